import Foundation
import Testing
@testable import PrefsCore

/// The backends the contract suite (`BackendContractTests`) runs every scenario on, through the
/// `SuiteStore` façade the verbs call: the file store on the in-memory file system and on disk, the
/// etcd store on its in-memory fake and on a real cluster. A new backend is one more case here
/// (and its fixture in `ContractStore`), and it is done when every scenario passes on it.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case fileMemory = "file/memory"
    case fileDisk = "file/disk"
    case etcdFake = "etcd/fake"
    case etcdReal = "etcd/real"

    var testDescription: String { rawValue }

    var isEtcd: Bool { self == .etcdFake || self == .etcdReal }

    /// Every backend; in the edit loop's run without etcd (PREFS_TEST_NO_ETCD=1, README, Test), all
    /// but the real cluster, and the others still run every scenario.
    static let allCases: [Backend] = {
        let every: [Backend] = [.fileMemory, .fileDisk, .etcdFake, .etcdReal]
        // Stops compiling when a case is added, so that it is listed above too, never left untested.
        for backend in every { switch backend { case .fileMemory, .fileDisk, .etcdFake, .etcdReal: break } }
        return ProcessInfo.processInfo.environment["PREFS_TEST_NO_ETCD"] == "1" ? every.filter { $0 != .etcdReal } : every
    }()
}

/// What a backend documents it does differently. A scenario that meets a difference asks here and
/// checks the documented behaviour instead, so no backend ever skips a scenario in silence.
extension Backend {
    /// The format a new suite is written in: XML for a file suite (the product brief, "Where things
    /// live"), none for etcd, which keeps each top-level value as a binary plist of its own (the man
    /// page, ETCD STORE). What the format cannot hold decides the two rows below.
    var newSuiteFormat: PlistFormat? { isEtcd ? nil : .xml }

    /// Whether a date keeps its fraction of a second: an XML plist keeps whole seconds.
    var keepsSubsecondDates: Bool { newSuiteFormat != .xml }

    /// Whether a dictionary whose only key is `CF$UID` (with an integer) can be stored: XML writes a
    /// UID in that shape, so such a dictionary would read back as a UID, and a file suite refuses it
    /// (65) and writes nothing.
    var storesUIDShapedDictionaries: Bool { newSuiteFormat != .xml }

    /// Whether a one-key read or change of a suite reads the whole suite, and so fails on damage
    /// anywhere in it: a file suite is one document (its structure is checked on every read, and
    /// every change re-reads it whole); an etcd suite is one key per value, and a one-key read or
    /// change reads that key alone, so damage elsewhere shows only to whole-suite reads and changes
    /// (the man page says so under COMMANDS, read, for reads of files). Either way damaged bytes are kept.
    var oneKeyChangesReadTheWholeSuite: Bool { !isEtcd }

    /// Whether the store keeps ByHost suites (`-currentHost`, `-host`): the etcd store refuses them
    /// with 64 (the man page, ETCD STORE: ByHost suites are kept in files only; `SuiteBackend.keepsByHostSuites`).
    var keepsByHostSuites: Bool { !isEtcd }

    /// Whether the façade can watch the store (`SuiteBackend.watcher`): files by inotify, or by
    /// polling on the in-memory file system; etcd by its watch where its etcd has one
    /// (`EtcdKV.canWatch`). The in-memory etcd fake has none, and `watch` is refused (64,
    /// `SuiteStore.notWatchable`) before anything is read (`BackendCapabilityTests`).
    var canBeWatched: Bool { self != .etcdFake }

    /// Whether the store keeps named locks (`SuiteBackend.locks`, `prefs lock`): files where the
    /// kernel has them (flock and inotify: not on the in-memory file system), etcd where its waiters
    /// can watch (not the fake). The others refuse the lock verbs and `--fence` (64,
    /// `SuiteStore.keepsNoLocks`).
    var keepsLocks: Bool { self == .fileDisk || self == .etcdReal }
}

/// The scenarios a backend fails today: each one a bug, recorded where the scenario runs with
/// `withKnownIssue`, so its test goes on checking the rest and fails the day the bug is fixed (then
/// the row goes). None today: the last ones (suite names the façade took as they were, a dry run
/// that read the whole etcd suite, the machine's administered files ignored on etcd, the façade's
/// watcher on the in-memory file system) are fixed, and their scenarios must pass.
/// Runs a scenario on a backend; where `issue` names a bug the backend has today, the failures it
/// causes are known issues (see the rows above), and the scenario still runs in full.
func scenario(_ issue: Comment?, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) throws {
    guard let issue else { return try body() }
    withKnownIssue(issue, sourceLocation: sourceLocation) { try body() }
}

/// Expects `body` to fail with `expected`, whose exit status is `status` (the public contract
/// scripts branch on).
func expectFailure(_ expected: PrefsError, status: PrefsCore.ExitStatus, comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                   _ body: () throws -> Void) {
    expectFailure(status: status, comment: comment, sourceLocation: sourceLocation, body) { $0 == expected }
}

/// Expects `body` to fail with exit status `status` and a `PrefsError` that `matches` accepts (for
/// errors that name a backend's own path or URL).
func expectFailure(status: PrefsCore.ExitStatus, comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void,
                   matching matches: (PrefsError) -> Bool) {
    let about = comment.map { "\($0): " } ?? ""
    do {
        try body()
        Issue.record("\(about)no error was thrown", sourceLocation: sourceLocation)
    } catch let error as PrefsError {
        #expect(matches(error), "\(about)\(error)", sourceLocation: sourceLocation)
        #expect(error.exitStatus == status, "\(about)\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("\(about)not a PrefsError: \(error)", sourceLocation: sourceLocation)
    }
}
