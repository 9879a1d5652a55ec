import Foundation
import Testing
@testable import PrefsCore

/// The backends the contract suite (`BackendContractTests`) runs every scenario on, through the
/// `SuiteStore` façade the verbs call: the file store on the in-memory file system and on disk, the
/// etcd store on its in-memory fake and on a real cluster, and the minimal store (`MinimalStorage`:
/// only what every store must, so the seam's "unsupported" defaults meet every promise). A new backend is one more case here and
/// its conformer of `ContractBackend` in its folder, and it is done when every scenario passes on
/// it. What a backend does differently by design the fixture asks of the store itself
/// (`ContractStore.newSuiteFormat`, `keepsByHostSuites`, `canBeWatched`, `keepsLocks`), and a
/// scenario that meets a difference checks the documented behaviour instead, so no backend ever
/// skips a scenario in silence.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case fileMemory = "file/memory"
    case fileDisk = "file/disk"
    case etcdFake = "etcd/fake"
    case etcdReal = "etcd/real"
    case minimal = "minimal"

    var testDescription: String { rawValue }

    /// A fresh backend of this row for one fixture.
    func make() throws -> any ContractBackend {
        switch self {
        case .fileMemory: try FileContractBackend(onDisk: false)
        case .fileDisk: try FileContractBackend(onDisk: true)
        case .etcdFake: try EtcdContractBackend(real: false)
        case .etcdReal: try EtcdContractBackend(real: true)
        case .minimal: MinimalContractBackend()
        }
    }

    /// Every backend; `PREFS_CONTRACT_BACKENDS` (rows by name, comma-separated: `file/memory,etcd/fake`)
    /// keeps only those, and the edit loop's run without etcd (`PREFS_TEST_NO_ETCD=1`, README, Test)
    /// leaves out the real cluster; the rows kept still run every scenario.
    static let allCases: [Backend] = {
        let every: [Backend] = [.fileMemory, .fileDisk, .etcdFake, .etcdReal, .minimal]
        // Stops compiling when a case is added, so that it is listed above too, never left untested.
        for backend in every { switch backend { case .fileMemory, .fileDisk, .etcdFake, .etcdReal, .minimal: break } }
        return selected(from: every, ProcessInfo.processInfo.environment)
    }()

    static func selected(from every: [Backend], _ variables: [String: String]) -> [Backend] {
        var kept = every
        if let names = variables["PREFS_CONTRACT_BACKENDS"], !names.isEmpty {
            let wanted = names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            // A name no row has is a mistake, not a filter that keeps nothing: every row then runs
            // (and `theBackendFilterNamesRows` fails).
            if wanted.allSatisfy({ Backend(rawValue: $0) != nil }) { kept = kept.filter { wanted.contains($0.rawValue) } }
        }
        return variables["PREFS_TEST_NO_ETCD"] == "1" ? kept.filter { $0 != .etcdReal } : kept
    }

    /// For the argument lists of tests outside the contract that need a watchable store (declared
    /// here because arguments are listed before any fixture exists; the contract's watch scenario
    /// asks the fixture, `ContractStore.canBeWatched`, and checks this against it).
    var declaresWatch: Bool { self != .etcdFake && self != .minimal }
}

/// The scenarios a backend fails today: each one a bug, recorded where the scenario runs with
/// `withKnownIssue` (`scenario(backend.knownIssue())`), so its test goes on checking the rest and
/// fails the day the bug is fixed (then the row goes). A row reads
/// `"BACKEND scenario(backend:)": "what is wrong"`. None today.
let knownIssues: [String: Comment] = [:]

extension Backend {
    /// The bug this row has today in the scenario `function` (`knownIssues`), if any.
    func knownIssue(_ function: String = #function) -> Comment? { knownIssues["\(rawValue) \(function)"] }
}

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

extension BackendContractTests {
    /// `PREFS_CONTRACT_BACKENDS` keeps the rows it names (the edit loop need not start a cluster);
    /// a name no row has fails here, and every row runs, rather than none.
    @Test func theBackendFilterNamesRows() {
        let every = [Backend.fileMemory, .fileDisk, .etcdFake, .etcdReal, .minimal]
        #expect(Backend.selected(from: every, ["PREFS_CONTRACT_BACKENDS": "file/memory, minimal"]) == [.fileMemory, .minimal])
        #expect(Backend.selected(from: every, ["PREFS_CONTRACT_BACKENDS": "etcd/real", "PREFS_TEST_NO_ETCD": "1"]) == [])
        #expect(Backend.selected(from: every, ["PREFS_CONTRACT_BACKENDS": "file/mem"]) == every)
        #expect(Backend.selected(from: every, ["PREFS_TEST_NO_ETCD": "1"]) == [.fileMemory, .fileDisk, .etcdFake, .minimal])
        if let names = ProcessInfo.processInfo.environment["PREFS_CONTRACT_BACKENDS"], !names.isEmpty {
            let unknown = names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { Backend(rawValue: $0) == nil }
            #expect(unknown.isEmpty, "PREFS_CONTRACT_BACKENDS names no row \(unknown); the rows are \(every.map(\.rawValue))")
        }
    }
}
