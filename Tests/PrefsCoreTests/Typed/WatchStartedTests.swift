import Foundation
import Testing
@testable import PrefsCore

extension Prefs.Keys {
    static let sentinel = Prefs.Key<Int>("sentinel", default: 0)
}

/// `started()`: once it returns, the watch is in place, so a change made at once is delivered.
@Suite struct WatchStartedTests {
    /// A change made right after `started()`, 200 times, each with a watch of its own: every one is
    /// delivered, as the change its version records (the store keeps a history). (A sentinel written after it bounds the wait: the change must come before, or with,
    /// the sentinel's.)
    @Test(arguments: FileSystemKind.allCases)
    func aChangeMadeRightAfterStartedIsNeverMissed(kind: FileSystemKind) async throws {
        let fixture = try LayerFixture(kind)
        let suite = Prefs.Suite("com.example.started", store: SuiteChangesTests.keepingHistory(fixture))
        try suite.set(.retries, 0)
        var missed: [Int] = []
        let trials = kind == .disk ? 200 : 50
        for trial in 1...trials {
            let changes = try await suite.changes().started()
            try suite.set(.retries, trial)
            try suite.set(.sentinel, trial)
            var sawRetries = false
            for try await change in changes {
                if change.key == "retries" && change.new == .integer(Int64(trial)) { sawRetries = true }
                if change.key == "sentinel" && change.new == .integer(Int64(trial)) { break }
            }
            if !sawRetries { missed.append(trial) }
        }
        #expect(missed == [], "\(missed.count) of \(trials) missed")
    }

    /// `values(of:)`: the first value is the one read when the watch was set up, and a change made
    /// right after `started()` follows it.
    @Test(arguments: FileSystemKind.allCases)
    func valuesStartedSeeTheNextChange(kind: FileSystemKind) async throws {
        let fixture = try LayerFixture(kind)
        let suite = Prefs.Suite("com.example.started", store: fixture.store)
        try suite.set(.retries, 0)
        for trial in 1...20 {
            let values = try await suite.values(of: .retries).started()
            try suite.set(.retries, trial)
            var seen: [Int] = []
            for try await value in values {
                seen.append(value)
                if value == trial { break }
            }
            #expect(seen == [trial - 1, trial], "the first value is the one read before the change")
        }
    }

    /// A watch that cannot be set up: `started()` throws what kept it.
    @Test func startedThrowsWhatKeptTheWatchFromBeingSetUp() async throws {
        let suite = Prefs.Suite("bad/name", store: try LayerFixture(.memory).store)
        await #expect(throws: PrefsError.self) { _ = try await suite.changes().started() }
        await #expect(throws: PrefsError.self) { _ = try await suite.values(of: .retries).started() }
    }
}
