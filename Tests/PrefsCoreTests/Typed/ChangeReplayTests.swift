import Foundation
import Testing
@testable import PrefsCore

/// `ChangeReplay`, what `Suite.changes(of:)` reports at each wake, with the race of the file store
/// played out by hand: a suite's file renamed in before its change's version.
@Suite struct ChangeReplayTests {
    /// A suite holding `word` = "a", its replay started, and where its history is.
    static func started(_ kind: FileSystemKind) throws -> (LayerFixture, Prefs.Suite, ChangeReplay, history: String) {
        let fixture = try LayerFixture(kind)
        let store = SuiteChangesTests.keepingHistory(fixture)
        let suite = Prefs.Suite("com.example.replayed", store: store)
        try suite.set(.word, "a")
        let replay = try ChangeReplay(try Layers(.suite(suite.name), in: store), keys: [(name: "word", path: PrefKeyPath(["word"]))])
        let files = FileSuiteStorage(fileSystem: store.fileSystem, environment: store.environment)
        return (fixture, suite, replay, try #require(try files.historyDirectory(of: .suite(suite.name))))
    }

    /// The history's log as it is, and as it was before its last version was appended.
    static func log(_ files: any FileSystem, _ history: String) throws -> (whole: [UInt8], withoutLast: [UInt8]) {
        let whole = try files.contents(of: history + "/" + VersionLog.name)
        let last = try #require(VersionLog(whole).records.last)
        return (whole, Array(whole[..<last.bytes.lowerBound]))
    }

    /// A read that shows a change before its version is there, while a temporary file is in the
    /// history (a version on its way): it waits for the version, and the change comes as itself,
    /// no gap.
    @Test(arguments: FileSystemKind.allCases)
    func aReadAheadOfItsVersionWaitsForIt(kind: FileSystemKind) throws {
        let (fixture, suite, replay, history) = try ChangeReplayTests.started(kind)
        let files = fixture.fixture.fileSystem
        try suite.set(.word, "b")
        // The log as it is before the version is appended, a temporary file beside it.
        let (whole, withoutLast) = try ChangeReplayTests.log(files, history)
        try files.replace(history + "/" + VersionLog.name, with: withoutLast, newFileMode: 0o600)
        try files.replace(history + "/.tmp-version", with: [], newFileMode: 0o600)
        // Generous: the version comes long before, whatever the machine's load.
        replay.grace = 60
        let renamed = UncheckedBox(files)
        Thread.detachNewThread {
            usleep(50_000)
            try? renamed.value.replace(history + "/" + VersionLog.name, with: whole, newFileMode: 0o600)
            try? renamed.value.removeFile(history + "/.tmp-version")
        }
        #expect(try replay.next() == [WatchChange(key: "word", old: "a", new: "b")])
    }

    /// The version comes, and its writer goes, between the listing of the versions and the look
    /// for one on its way: the versions are listed again, and the change comes as itself, no gap.
    @Test func aVersionThatComesWhileOneIsLookedForIsNoGap() throws {
        let counting = CountingFileSystem(InMemoryFileSystem())
        let fixture = try LayerFixture(.memory)
        let root = fixture.root
        try counting.createDirectory(root + "/config", mode: 0o700)
        let store = SuiteStore(fileSystem: counting, environment: Environment(["XDG_CONFIG_HOME": root + "/config", "XDG_STATE_HOME": root + "/state",
                                                                               "XDG_DATA_HOME": root + "/data", "XDG_CONFIG_DIRS": root + "/xdg"]))
        let suite = Prefs.Suite("com.example.replayed", store: store)
        try suite.set(.word, "a")
        let replay = try ChangeReplay(try Layers(.suite(suite.name), in: store), keys: [(name: "word", path: PrefKeyPath(["word"]))])
        let history = try #require(try FileSuiteStorage(fileSystem: counting, environment: store.environment).historyDirectory(of: .suite(suite.name)))
        try suite.set(.word, "b")
        let (whole, withoutLast) = try ChangeReplayTests.log(counting, history)
        try counting.replace(history + "/" + VersionLog.name, with: withoutLast, newFileMode: 0o600)
        counting.beforeLookingForAWriter = { _ in try? counting.base.replace(history + "/" + VersionLog.name, with: whole, newFileMode: 0o600) }
        replay.grace = 600
        #expect(try replay.next() == [WatchChange(key: "word", old: "a", new: "b")])
    }

    /// The same change with no version on its way (no temporary file): a change that recorded
    /// none, so a gap at once and what differs across it.
    @Test(arguments: FileSystemKind.allCases)
    func aChangeWithNoVersionOnItsWayIsAGapAtOnce(kind: FileSystemKind) throws {
        let (fixture, suite, replay, history) = try ChangeReplayTests.started(kind)
        let files = fixture.fixture.fileSystem
        try suite.set(.word, "b")
        try files.replace(history + "/" + VersionLog.name, with: try ChangeReplayTests.log(files, history).withoutLast, newFileMode: 0o600)
        // A wait would outlast any run's patience: the gap must come without one.
        replay.grace = 600
        let changes = try replay.next()
        #expect(changes == ChangeReplay.gap([WatchChange(key: "word", old: "a", new: "b")]))
        #expect(changes.first?.isGap == true && changes.last?.isSummary == true)
        try suite.set(.word, "c")
        #expect(try replay.next() == [WatchChange(key: "word", old: "b", new: "c")], "versions are replayed again after the gap")
    }

    /// A version whose old values are not the ones replayed (a change between them that recorded
    /// none): a gap, not a wrong change.
    @Test func aVersionThatDoesNotFollowIsAGap() throws {
        let layer = ChangeReplay.Tracked(location: .suite("s"), contents: ["k": 1], seen: 4)
        func version(_ number: Int64, _ old: PrefValue?, _ new: PrefValue?) -> SuiteVersion {
            SuiteVersion(number: number, time: 0, user: "u", host: "h", verb: "swift", keys: ["k"], changes: [KeyChange(key: "k", old: old, new: new)])
        }
        #expect(ChangeReplay.match([version(5, 1, 2), version(6, 2, 1)], from: layer, to: ["k": 1]) == .all, "changed and changed back")
        #expect(ChangeReplay.match([version(5, 1, 2), version(6, 2, 3)], from: layer, to: ["k": 2]) == .prefix(1), "the second committed after the read")
        #expect(ChangeReplay.match([version(5, 1, 2)], from: layer, to: ["k": 3]) == .none, "a change its version does not show yet")
        #expect(ChangeReplay.match([version(5, 7, 2)], from: layer, to: ["k": 2]) == .broken, "old values that are not the ones replayed")
        #expect(ChangeReplay.match([version(6, 1, 2)], from: layer, to: ["k": 2]) == .broken, "a number skipped (pruned)")
        var bare = version(5, 1, 2)
        bare.changes = nil
        #expect(ChangeReplay.match([bare], from: layer, to: ["k": 2]) == .broken, "a version kept without its values")
    }
}
