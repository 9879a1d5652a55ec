import Glibc
import Testing
@testable import PrefsCore

/// A watcher that plays a script: each run reads `readings[i]` (or fails as a store away does), hands
/// it to `initial`, then its changes, then fails again or stops.
final class ScriptedWatcher: ValueWatcher {
    enum Run {
        case away
        case reads(initial: [WatchChange], then: [[WatchChange]], andThen: Outcome)
    }
    enum Outcome { case away, stop }

    var script: [Run]
    var runs = 0
    var reportsEveryReading = false

    init(_ script: [Run]) { self.script = script }

    static let away = PrefsError.unavailable(endpoints: ["e:1"], reason: "timed out")

    func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool, onChanges: ([WatchChange]) -> Bool,
             onError: (PrefsError) -> Void) throws -> WatchStop {
        runs += 1
        guard !script.isEmpty else { return .timedOut }
        switch script.removeFirst() {
        case .away: throw ScriptedWatcher.away
        case .reads(let first, let changes, let outcome):
            guard initial(first) else { return .handlerStopped }
            for batch in changes where !onChanges(batch) { return .handlerStopped }
            if case .away = outcome { throw ScriptedWatcher.away }
            return .handlerStopped
        }
    }
}

/// The watch outlives its store going away: said once, tried again, and what changed meanwhile
/// reported as one change when it answers again.
@Suite struct RetryingWatcherTests {
    func change(_ key: String, _ old: PrefValue?, _ new: PrefValue?) -> WatchChange { WatchChange(key: key, old: old, new: new) }

    @Test func anOutageIsSaidOnceAndWhatChangedMeanwhileComesAsOneChange() throws {
        let inner = ScriptedWatcher([
            .reads(initial: [change("a", nil, 1), change("gone", nil, "x")], then: [[change("a", 1, 2)]], andThen: .away),
            .away, .away,
            .reads(initial: [change("a", nil, 3), change("new", nil, true)], then: [[change("a", 3, 4)]], andThen: .stop),
        ])
        var said: [String] = [], initial: [[WatchChange]] = [], changes: [[WatchChange]] = []
        var readings = 0
        let watcher = RetryingWatcher(inner, limit: nil, lost: { said.append("lost: \($0)") }, back: { said.append("back") },
                                      afterReading: { readings += 1 })
        let stop = try watcher.run(timeout: nil, closedWhen: nil, initial: { initial.append($0); return true },
                                   onChanges: { changes.append($0); return true }, onError: { _ in })
        #expect(stop == .handlerStopped)
        #expect(inner.runs == 4)
        #expect(said == ["lost: \(ScriptedWatcher.away)", "back"], "one line each, however many attempts failed")
        #expect(initial.count == 1, "the values first read are the only initial ones")
        #expect(changes == [[change("a", 1, 2)], [change("a", 2, 3), change("new", nil, true), change("gone", "x", nil)], [change("a", 3, 4)]])
        #expect(readings == 4, "each reading reported is kept in the snapshot")
    }

    @Test func theStoreAwayAtTheStartIsWaitedFor() throws {
        let inner = ScriptedWatcher([.away, .reads(initial: [change("a", nil, 1)], then: [], andThen: .stop)])
        var said: [String] = [], initial: [[WatchChange]] = []
        let stop = try RetryingWatcher(inner, limit: nil, lost: { _ in said.append("lost") }, back: { said.append("back") })
            .run(timeout: nil, closedWhen: nil, initial: { initial.append($0); return true }, onChanges: { _ in true }, onError: { _ in })
        #expect(stop == .handlerStopped && said == ["lost", "back"] && initial == [[change("a", nil, 1)]])
    }

    @Test func theLimitEndsTheWatchWithTheStoresFailure() throws {
        let never = ScriptedWatcher(Array(repeating: .away, count: 1000))
        var said = 0
        #expect(throws: ScriptedWatcher.away) {
            try RetryingWatcher(never, limit: 0, lost: { _ in said += 1 }, back: {})
                .run(timeout: nil, closedWhen: nil, initial: { _ in true }, onChanges: { _ in true }, onError: { _ in })
        }
        #expect(never.runs == 1 && said == 0, "--retry-for 0: the first outage ends it, as before")
        #expect(throws: ScriptedWatcher.away) {
            try RetryingWatcher(never, limit: 0.5, lost: { _ in said += 1 }, back: {})
                .run(timeout: nil, closedWhen: nil, initial: { _ in true }, onChanges: { _ in true }, onError: { _ in })
        }
        #expect(never.runs >= 3 && said == 1)
    }

    /// While it waits, `--timeout` still ends the watch, and so does the reader of its output going away.
    @Test func waitingEndsAtTheTimeoutOrWhenTheOutputIsClosed() throws {
        let never = ScriptedWatcher(Array(repeating: .away, count: 1000))
        #expect(try RetryingWatcher(never, limit: nil, lost: { _ in }, back: {})
            .run(timeout: 0.6, closedWhen: nil, initial: { _ in true }, onChanges: { _ in true }, onError: { _ in }) == .timedOut)
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        #expect(try RetryingWatcher(never, limit: nil, lost: { _ in }, back: {})
            .run(timeout: nil, closedWhen: ends[1], initial: { _ in true }, onChanges: { _ in true }, onError: { _ in }) == .outputClosed)
    }
}
