import Foundation
import Testing
@testable import PrefsCore

extension Prefs.Keys {
    static let word = Prefs.Key<String>("word", default: "none")
}

/// `Suite.changes(of:)`: each change of a suite's values (key, old, new), whoever makes it, ending
/// when its task is cancelled — on disk and on the in-memory file system alike.
@Suite struct SuiteChangesTests {
    /// The fixture's store with a place for the suites' histories (`XDG_STATE_HOME`), which
    /// `changes(of:)` replays (`SuiteChangesOrderTests`; without one, each change comes after a gap).
    static func keepingHistory(_ fixture: LayerFixture) -> SuiteStore {
        let root = fixture.root
        return SuiteStore(fileSystem: fixture.fixture.fileSystem, environment: Environment([
            "XDG_CONFIG_HOME": root + "/config", "XDG_DATA_HOME": root + "/data", "XDG_STATE_HOME": root + "/state",
            "XDG_DATA_DIRS": root + "/pkg1/:" + root + "/pkg2", "PREFS_LOCK_TIMEOUT": "0.2", "XDG_CONFIG_DIRS": root + "/xdg1:" + root + "/xdg2",
        ]))
    }

    /// Iterates `sequence` in a task, handing each change to the returned stream.
    static func collect(_ sequence: Prefs.SuiteChanges) -> (Task<Void, any Error>, AsyncStream<Prefs.Change>.Iterator) {
        let seen = AsyncStream<Prefs.Change>.makeStream()
        let task = Task {
            for try await change in sequence { seen.continuation.yield(change) }
            seen.continuation.finish()
        }
        return (task, seen.stream.makeAsyncIterator())
    }

    /// The watch starts when iteration does, on a thread: writes `first1`, `first2`… until a change
    /// comes, then waits for the change to the last value written, so every later change is seen.
    /// Returns that value.
    static func started(_ suite: Prefs.Suite, _ changes: inout AsyncStream<Prefs.Change>.Iterator, key: Prefs.Key<String>,
                        first: String) async throws -> String {
        let writer = Task {
            var count = 0
            while !Task.isCancelled {
                count += 1
                try suite.set(key, first + String(count))
                try? await Task.sleep(for: .milliseconds(30))
            }
            return first + String(count)
        }
        var change = await changes.next()
        writer.cancel()
        let last = try await writer.value
        while let seen = change, seen.new != .string(last) { change = await changes.next() }
        return last
    }

    @Test(arguments: FileSystemKind.allCases)
    func eachChangeWithItsOldAndNewValueUntilCancelled(kind: FileSystemKind) async throws {
        let fixture = try LayerFixture(kind)
        let suite = Prefs.Suite("com.example.watched", store: SuiteChangesTests.keepingHistory(fixture))
        let (task, changesSeen) = SuiteChangesTests.collect(suite.changes())
        var changes = changesSeen
        let last = try await SuiteChangesTests.started(suite, &changes, key: .word, first: "go")
        // Another suite value on the same files, as another process's write would be.
        let other = Prefs.Suite("com.example.watched", store: SuiteChangesTests.keepingHistory(fixture))
        try other.set(.word, "hello")
        #expect(await changes.next() == WatchChange(key: "word", old: .string(last), new: "hello"))
        try other.update { changes in
            try changes.set(.retries, 4)
            try changes.set(.nickname, "kim")
        }
        let both = [await changes.next(), await changes.next()].compactMap { $0 }.sorted { $0.key < $1.key }
        #expect(both == [WatchChange(key: "nickname", old: nil, new: "kim"), WatchChange(key: "retries", old: nil, new: 4)])
        try other.reset(.retries)
        #expect(await changes.next() == WatchChange(key: "retries", old: 4, new: nil))
        task.cancel()
        #expect(await changes.next() == nil)
        try await task.value
    }

    /// Only the keys asked for; the defaults registered in code stand in for absent values, and a
    /// change they hide is no change.
    @Test func onlyTheKeysAskedForAndTheDefaultsRegisteredInCode() async throws {
        let fixture = try LayerFixture(.memory)
        let suite = Prefs.Suite("com.example.watched", store: SuiteChangesTests.keepingHistory(fixture))
        suite.register(defaults: ["retries": 4])
        let (task, changesSeen) = SuiteChangesTests.collect(suite.changes(of: .word, .retries))
        var changes = changesSeen
        _ = try await SuiteChangesTests.started(suite, &changes, key: .word, first: "go")
        try suite.set(.nickname, "kim")
        try suite.set(.retries, 4)
        try suite.set(.retries, 5)
        #expect(await changes.next() == WatchChange(key: "retries", old: 4, new: 5))
        task.cancel()
        try await task.value
    }

    /// A store with no place for a history (neither `XDG_STATE_HOME` nor `HOME`): nothing tells
    /// one change between two readings from several, so each comes after a gap, summed up.
    @Test(arguments: FileSystemKind.allCases)
    func withoutAPlaceForHistoryEachChangeComesAfterAGap(kind: FileSystemKind) async throws {
        let fixture = try LayerFixture(kind)
        let suite = Prefs.Suite("com.example.watched", store: fixture.store)
        try suite.set(.word, "a")
        var changes = try await suite.changes(of: .word).started().makeAsyncIterator()
        try suite.set(.word, "b")
        let gap = try #require(try await changes.next())
        #expect(gap.isGap && gap.key.isEmpty && gap.old == nil && gap.new == nil)
        #expect(throws: PrefsError.usage("this is a gap in the changes of com.example.watched, not a change of word")) { try gap.new(as: .word) }
        var summed = WatchChange(key: "word", old: "a", new: "b")
        summed.isSummary = true
        #expect(try await changes.next() == summed)
    }

    /// A value whose deadline passes (`write --ttl`) goes as one change, from the history's point
    /// of view a change without a version, but known: no gap.
    @Test(arguments: FileSystemKind.allCases)
    func aValuePastItsDeadlineGoesAsOneChange(kind: FileSystemKind) async throws {
        let fixture = try LayerFixture(kind)
        let store = SuiteChangesTests.keepingHistory(fixture)
        let suite = Prefs.Suite("com.example.watched", store: store)
        try suite.set(.word, "kept")
        var options = WriteOptions()
        // Far enough ahead for the watch to be in place first, whatever the machine's load.
        options.deadline = PrefDate(secondsSinceReferenceDate: Expiry.now().secondsSinceReferenceDate + 2)
        _ = try store.write(try WriteRequest.parse(["retries", "-int", "9"], domain: suite.name), to: .suite(suite.name), options: options)
        var changes = try await suite.changes(of: .retries, .word).started().makeAsyncIterator()
        #expect(try await changes.next() == WatchChange(key: "retries", old: 9, new: nil))
        try suite.set(.word, "next")
        #expect(try await changes.next() == WatchChange(key: "word", old: "kept", new: "next"))
    }
}
