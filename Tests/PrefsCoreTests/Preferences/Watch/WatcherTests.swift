import Testing
@testable import PrefsCore

/// A change feed that plays a script: before each look it makes a change (`before`), then looks
/// at the step's point and reports what the look read, or drops it (a look the feed found torn).
final class ScriptedFeed: ChangeFeed {
    struct Step {
        var before: () throws -> Void = {}
        var point = ChangePoint.now
        var reported = true
    }

    var steps: [Step]
    var wakesForHistory = false

    init(_ steps: [Step]) { self.steps = steps }

    func wait(until deadline: Double?, stop output: Int32?, look: (ChangePoint) throws -> () -> Bool) throws -> WatchStop {
        for step in steps {
            try step.before()
            let report = try look(step.point)
            if step.reported && !report() { return .handlerStopped }
        }
        return .timedOut
    }
}

/// The core's one watcher (`Watcher`): what it reports of the looks a feed makes it take.
@Suite struct WatcherTests {
    let fileSystem = InMemoryFileSystem()
    let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p"])
    var store: SuiteStore { SuiteStore(fileSystem: fileSystem, environment: environment) }

    func set(_ key: String, _ value: PrefValue) throws {
        try store.update(.suite("s")) { $0[key] = value }
    }

    func run(_ feed: ScriptedFeed, everyReading: Bool = false) throws
        -> (stop: WatchStop, initial: [WatchChange], changes: [[WatchChange]], errors: [PrefsError]) {
        let watcher = Watcher(try Layers(.suite("s"), in: store), keys: nil, feed: feed)
        watcher.reportsEveryReading = everyReading
        var initial: [WatchChange] = [], changes: [[WatchChange]] = [], errors: [PrefsError] = []
        let stop = try watcher.run(timeout: nil, closedWhen: nil, initial: { initial = $0; return true },
                                   onChanges: { changes.append($0); return true }, onError: { errors.append($0) })
        return (stop, initial, changes, errors)
    }

    @Test func eachReportedLookIsComparedWithTheLastReportedOneNotWithADroppedOne() throws {
        try set("a", 1)
        let feed = ScriptedFeed([
            .init(),
            .init(before: { try set("a", 2) }),
            // Dropped: as if read mid-write. The next look is compared with a == 2, not with this.
            .init(before: { try set("a", 3) }, reported: false),
            .init(before: { try set("b", "x") }),
            // Nothing changed: nothing reported.
            .init(),
        ])
        let result = try run(feed)
        #expect(result.stop == .timedOut)
        #expect(result.initial == [WatchChange(key: "a", old: nil, new: 1)])
        #expect(result.changes == [[WatchChange(key: "a", old: 1, new: 2)],
                                   [WatchChange(key: "a", old: 2, new: 3), WatchChange(key: "b", old: nil, new: "x")]])
    }

    @Test func everyReadingIsReportedWhenAsked() throws {
        try set("a", 1)
        let feed = ScriptedFeed([.init(), .init(), .init(before: { try set("a", 2) })])
        let result = try run(feed, everyReading: true)
        #expect(feed.wakesForHistory, "the feed is told to wake for histories too")
        #expect(result.changes == [[], [WatchChange(key: "a", old: 1, new: 2)]])
    }

    @Test func aPointsBackendIsReadInsteadOfTheStoreAsItIsNow() throws {
        try set("a", 1)
        // The store as it was at the change: another file system where a is 7.
        let then = InMemoryFileSystem()
        try SuiteStore(fileSystem: then, environment: environment).update(.suite("s")) { $0["a"] = 7 }
        let feed = ScriptedFeed([.init(), .init(point: ChangePoint(backend: FileSuiteStorage(fileSystem: then, environment: environment)))])
        let result = try run(feed)
        #expect(result.changes == [[WatchChange(key: "a", old: 1, new: 7)]])
    }

    @Test func aFailedReadIsSaidOnceAndTheWatchGoesOnFromTheLastValues() throws {
        try set("a", 1)
        let path = try #require(try store.storage.filePath(of: .suite("s")))
        let corrupt = { try fileSystem.replace(path, with: Array("not a plist <".utf8), newFileMode: 0o600) }
        let repair = {
            try fileSystem.removeFile(path)
            try set("a", 2)
        }
        let feed = ScriptedFeed([.init(), .init(before: corrupt), .init(), .init(before: repair)])
        let result = try run(feed)
        #expect(result.errors.count == 1, "a file that stays corrupt is said once: \(result.errors)")
        #expect(result.changes == [[WatchChange(key: "a", old: 1, new: 2)]])
    }

    @Test func aFirstReadThatFailsIsThrown() throws {
        try set("a", 1)
        let path = try #require(try store.storage.filePath(of: .suite("s")))
        try fileSystem.replace(path, with: Array("not a plist <".utf8), newFileMode: 0o600)
        #expect(throws: PrefsError.self) { _ = try run(ScriptedFeed([.init()])) }
    }
}
