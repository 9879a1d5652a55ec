import Glibc
import Testing
@testable import PrefsCore

/// `Suite.changes(of:)` reports every committed change in commit order, even changes that come
/// faster than its watcher reads (a burst), and a gap — never silence — where the suite's history
/// cannot account for what changed. On files (in memory and on disk) and on etcd, each with a
/// history (`XDG_STATE_HOME`, `ContractStore`).
@Suite struct SuiteChangesOrderTests {
    static let watchable = Backend.allCases.filter(\.declaresWatch)

    /// A suite of `fixture`'s store, with its global suite's file there (so it can be held open,
    /// `inOneBurst`), the watch of `keys` started.
    static func watching(_ fixture: ContractStore, _ keys: Prefs.Keys...) async throws -> (Prefs.Suite, Prefs.WatchIterator<Prefs.Change>) {
        try fixture.write(.global, "unrelated", "-int", "1")
        let suite = Prefs.Suite("com.example.ordered", store: fixture.store)
        try suite.set(.word, "a")
        let changes = keys.isEmpty ? suite.changes() : Prefs.SuiteChanges(suite: suite, keys: keys.map(\.name))
        return (suite, try await changes.started().makeAsyncIterator())
    }

    /// Runs `body`'s writes as one burst, as writes faster than the watcher reads would come. On
    /// disk the global suite's file, a layer of the watched suite, is held open for writing
    /// meanwhile: the file watcher reads nothing while a layer's writer may be mid-write, and
    /// reads once after it closes the file. In memory the watcher reads every few milliseconds,
    /// and the writes, microseconds apart, fall between two readings. etcd's watch sees each
    /// commit, however close.
    static func inOneBurst(_ fixture: ContractStore, _ body: () throws -> Void) throws {
        guard fixture.backend == .fileDisk else { return try body() }
        let path = fixture.root + "/config/.GlobalPreferences.plist"
        let held = open(path, O_WRONLY | O_CLOEXEC)
        guard held >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
        defer { close(held) }
        try body()
    }

    /// Runs `body`, cancelling it if it has not finished after `seconds`: a watch that stays
    /// silent then ends (its `next()` gives nil), and the test fails instead of waiting for ever.
    static func patiently(_ seconds: Int = 60, _ body: @escaping @Sendable () async throws -> Void) async throws {
        let work = Task { try await body() }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(seconds))
            work.cancel()
        }
        defer { watchdog.cancel() }
        try await work.value
    }

    static func change(_ key: String, _ old: PrefValue?, _ new: PrefValue?) -> WatchChange { WatchChange(key: key, old: old, new: new) }

    static func summary(_ key: String, _ old: PrefValue?, _ new: PrefValue?) -> WatchChange {
        var change = WatchChange(key: key, old: old, new: new)
        change.isSummary = true
        return change
    }

    /// The elements that come until one leaves `key` at `last`.
    static func until(_ changes: inout Prefs.WatchIterator<Prefs.Change>, _ key: String, is last: PrefValue) async throws -> [WatchChange] {
        var seen: [WatchChange] = []
        while let change = try await changes.next() {
            seen.append(change)
            if !change.isGap && change.key == key && change.new == last { break }
        }
        return seen
    }

    /// Whether `seen` tells `key`'s story from `first` truly: each change starts where the last
    /// one ended; a gap is followed by its summary, which starts there too.
    static func chained(_ seen: [WatchChange], _ key: String, from first: PrefValue) -> Bool {
        var value: PrefValue? = first
        var afterGap = false
        for change in seen {
            if change.isGap {
                if afterGap { return false }
                afterGap = true
                continue
            }
            guard change.key == key, change.old == value, change.isSummary == afterGap else { return false }
            value = change.new
            afterGap = false
        }
        return !afterGap
    }

    @Test(arguments: watchable)
    func aKeyChangedAndChangedBackInABurstComesTwiceInOrder(backend: Backend) async throws {
        try await SuiteChangesOrderTests.patiently {
            let fixture = try ContractStore(backend)
            var (suite, changes) = try await SuiteChangesOrderTests.watching(fixture, .word)
            try SuiteChangesOrderTests.inOneBurst(fixture) {
                try suite.set(.word, "b")
                try suite.set(.word, "a")
            }
            try suite.set(.word, "c")
            #expect(try await changes.next() == SuiteChangesOrderTests.change("word", "a", "b"))
            #expect(try await changes.next() == SuiteChangesOrderTests.change("word", "b", "a"))
            #expect(try await changes.next() == SuiteChangesOrderTests.change("word", "a", "c"))
        }
    }

    /// Keys come in the order they were written, not in the order a reading lists them.
    @Test(arguments: watchable)
    func writesToKeysABAComeInThatOrder(backend: Backend) async throws {
        try await SuiteChangesOrderTests.patiently {
            let fixture = try ContractStore(backend)
            var (suite, changes) = try await SuiteChangesOrderTests.watching(fixture)
            try SuiteChangesOrderTests.inOneBurst(fixture) {
                try suite.set(.word, "b")
                try suite.set(.retries, 5)
                try suite.set(.word, "c")
            }
            #expect(try await changes.next() == SuiteChangesOrderTests.change("word", "a", "b"))
            #expect(try await changes.next() == SuiteChangesOrderTests.change("retries", nil, 5))
            #expect(try await changes.next() == SuiteChangesOrderTests.change("word", "b", "c"))
        }
    }

    /// A writer that records no version (`PREFS_HISTORY=0`): a gap, then what differs across it.
    @Test(arguments: watchable)
    func changesThatRecordNoVersionComeAfterAGap(backend: Backend) async throws {
        try await SuiteChangesOrderTests.patiently {
            let fixture = try ContractStore(backend, variables: ["PREFS_HISTORY": "0"])
            var (suite, changes) = try await SuiteChangesOrderTests.watching(fixture, .word)
            try SuiteChangesOrderTests.inOneBurst(fixture) {
                try suite.set(.word, "b")
                try suite.set(.word, "c")
            }
            let seen = try await SuiteChangesOrderTests.until(&changes, "word", is: "c")
            #expect(SuiteChangesOrderTests.chained(seen, "word", from: "a"), "\(seen)")
            #expect(seen.allSatisfy { $0.isGap || $0.isSummary }, "no version accounts for any of them: \(seen)")
            let gap = try #require(seen.first)
            #expect(gap.isGap && gap.key.isEmpty && gap.old == nil && gap.new == nil)
            if backend == .fileDisk {
                #expect(seen == [gap, SuiteChangesOrderTests.summary("word", "a", "c")], "one burst, one gap")
            }
        }
    }

    /// More changes in a burst than the history keeps: the versions the watcher never read are
    /// gone, and a gap says so.
    @Test(arguments: watchable)
    func versionsPrunedBeforeTheyWereReadGiveAGap(backend: Backend) async throws {
        try await SuiteChangesOrderTests.patiently {
            let fixture = try ContractStore(backend, variables: ["PREFS_HISTORY": "2"])
            var (suite, changes) = try await SuiteChangesOrderTests.watching(fixture, .word)
            try SuiteChangesOrderTests.inOneBurst(fixture) {
                for word in ["b", "c", "d", "e"] { try suite.set(.word, word) }
            }
            let seen = try await SuiteChangesOrderTests.until(&changes, "word", is: "e")
            #expect(SuiteChangesOrderTests.chained(seen, "word", from: "a"), "\(seen)")
            if backend == .fileDisk {
                #expect(seen == [.gap(suite: nil), SuiteChangesOrderTests.summary("word", "a", "e")], "one burst, one gap")
            } else {
                // etcd's watch wakes at each commit, the in-memory watcher every few milliseconds:
                // each change may be read before the later ones prune its version.
                #expect(seen.contains(where: \.isGap) || seen.count == 4, "\(seen)")
            }
            try suite.set(.word, "f")
            #expect(try await changes.next() == SuiteChangesOrderTests.change("word", "e", "f"), "after the gap, changes come one by one again")
        }
    }

    /// The global suite's changes come too, from its own history, in time order with the suite's
    /// (to the millisecond); one the suite's own value hides is no change.
    @Test(arguments: watchable)
    func theGlobalSuitesChangesComeAndAHiddenOneDoesNot(backend: Backend) async throws {
        try await SuiteChangesOrderTests.patiently {
            let fixture = try ContractStore(backend)
            var (suite, changes) = try await SuiteChangesOrderTests.watching(fixture)
            // Versions record their time to the millisecond: the writes are a few apart.
            try SuiteChangesOrderTests.inOneBurst(fixture) {
                try fixture.write(.global, "word", "hidden")
                try fixture.write(.global, "shown", "g")
                usleep(3_000)
                try suite.set(.retries, 1)
                usleep(3_000)
                try fixture.write(.global, "shown", "h")
            }
            let seen = try await SuiteChangesOrderTests.until(&changes, "shown", is: "h")
            #expect(seen == [SuiteChangesOrderTests.change("shown", nil, "g"), SuiteChangesOrderTests.change("retries", nil, 1),
                             SuiteChangesOrderTests.change("shown", "g", "h")])
        }
    }

    /// A change that removes the suite's file (its last key reset) records its version after the
    /// removal: it comes as itself, no gap, and so do the changes after it.
    @Test(arguments: watchable)
    func theSuiteRemovedComesAsItsChanges(backend: Backend) async throws {
        try await SuiteChangesOrderTests.patiently {
            let fixture = try ContractStore(backend)
            var (suite, changes) = try await SuiteChangesOrderTests.watching(fixture, .word)
            for _ in 1...5 {
                try suite.reset(.word)
                try suite.set(.word, "a")
            }
            var seen: [WatchChange] = []
            for _ in 1...10 { seen.append(try #require(try await changes.next())) }
            #expect(seen == Array(repeating: [SuiteChangesOrderTests.change("word", "a", nil), SuiteChangesOrderTests.change("word", nil, "a")], count: 5).flatMap { $0 })
        }
    }

    /// A layer that keeps no history (the user's registered defaults): its change comes after a
    /// gap, since one such change between two readings cannot be told from several.
    @Test(arguments: watchable)
    func aChangeOfALayerWithoutHistoryComesAfterAGap(backend: Backend) async throws {
        try await SuiteChangesOrderTests.patiently {
            let fixture = try ContractStore(backend)
            var (suite, changes) = try await SuiteChangesOrderTests.watching(fixture)
            _ = try fixture.store.register(.document(["nickname": "kim"]), for: .suite("com.example.ordered"), replacing: false)
            #expect(try await changes.next()?.isGap == true)
            #expect(try await changes.next() == SuiteChangesOrderTests.summary("nickname", nil, "kim"))
            try suite.set(.nickname, "lee")
            #expect(try await changes.next() == SuiteChangesOrderTests.change("nickname", "kim", "lee"))
        }
    }

    /// Many changes one after the other, each seen as its version comes (on files right after the
    /// suite's file: a watcher that reads in between waits for it): each once, in order, no gap.
    /// (The history keeps them all, however far behind the watcher falls.)
    @Test(arguments: watchable)
    func manyChangesComeEachOnceInOrderWithoutAGap(backend: Backend) async throws {
        try await SuiteChangesOrderTests.patiently {
            let fixture = try ContractStore(backend, variables: ["PREFS_HISTORY": "100"])
            var (suite, changes) = try await SuiteChangesOrderTests.watching(fixture, .retries)
            for count in 1...40 { try suite.set(.retries, count) }
            let seen = try await SuiteChangesOrderTests.until(&changes, "retries", is: 40)
            let expected = (1...40).map { count in
                SuiteChangesOrderTests.change("retries", count == 1 ? nil : .integer(Int64(count - 1)), .integer(Int64(count)))
            }
            #expect(seen == expected)
        }
    }
}
