import Glibc

/// A watch that outlives its store going away. When no endpoint answers (`.unavailable`, within the
/// store's timeout), it says so once (`lost`), tries again after a delay that doubles from
/// `firstDelay` to `longestDelay`, and once the store answers (`back`) reports what changed
/// meanwhile as one change — the difference between the last values reported and the values now,
/// as after a compaction — and goes on watching. `limit` bounds how long the store may stay away
/// (from the first failure on; nil: for ever), after which the watch ends with that failure (69).
/// A store that never goes away (files) is watched as it is.
package final class RetryingWatcher: ValueWatcher {
    static let firstDelay = 0.25
    static let longestDelay = 5.0

    let inner: any ValueWatcher
    let limit: Double?
    let lost: (PrefsError) -> Void
    let back: () -> Void
    /// Called after each reading the watch reports (to keep it in the host's snapshot).
    let afterReading: () -> Void
    package var reportsEveryReading: Bool {
        get { inner.reportsEveryReading }
        set { inner.reportsEveryReading = newValue }
    }

    package init(_ inner: any ValueWatcher, limit: Double?, lost: @escaping (PrefsError) -> Void, back: @escaping () -> Void,
                 afterReading: @escaping () -> Void = {}) {
        self.inner = inner
        self.limit = limit
        self.lost = lost
        self.back = back
        self.afterReading = afterReading
    }

    package func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool,
                    onChanges: ([WatchChange]) -> Bool, onError: (PrefsError) -> Void) throws -> WatchStop {
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        var last: WatchedValues.Reading?
        var outage: Double?
        var delay = RetryingWatcher.firstDelay
        while true {
            do {
                return try inner.run(timeout: deadline.map { max(0, $0 - MonotonicClock.now()) }, closedWhen: output, initial: { changes in
                    afterReading()
                    if outage != nil {
                        outage = nil
                        delay = RetryingWatcher.firstDelay
                        back()
                    }
                    let now = WatchedValues.reading(changes)
                    defer { last = now }
                    guard let previous = last else { return initial(changes) }
                    let missed = WatchedValues.changes(from: previous, to: now)
                    return (missed.isEmpty && !reportsEveryReading) || onChanges(missed)
                }, onChanges: { changes in
                    afterReading()
                    if last != nil { WatchedValues.apply(changes, to: &last!) }
                    return onChanges(changes)
                }, onError: onError)
            } catch PrefsError.unavailable(let endpoints, let reason) {
                let failure = PrefsError.unavailable(endpoints: endpoints, reason: reason)
                let now = MonotonicClock.now()
                if let limit, now - (outage ?? now) >= limit { throw failure }
                if outage == nil {
                    outage = now
                    lost(failure)
                }
                if let stop = RetryingWatcher.pause(delay, until: deadline, closedWhen: output) { return stop }
                delay = min(delay * 2, RetryingWatcher.longestDelay)
            }
        }
    }

    /// Waits `seconds`; `.timedOut` when `deadline` comes first, `.outputClosed` when `output` hangs
    /// up meanwhile (the reader of a pipe went away), nil when the time is up.
    static func pause(_ seconds: Double, until deadline: Double?, closedWhen output: Int32?) -> WatchStop? {
        let end = min(MonotonicClock.now() + seconds, deadline ?? .infinity)
        while true {
            let left = end - MonotonicClock.now()
            guard left > 0 else { return deadline.map { $0 <= MonotonicClock.now() } == true ? .timedOut : nil }
            var watched = pollfd(fd: output ?? -1, events: 0, revents: 0)
            if poll(&watched, 1, Int32(min(left * 1000, 60_000)) + 1) > 0 && watched.revents & Int16(POLLHUP | POLLERR) != 0 {
                return .outputClosed
            }
        }
    }
}

extension WatchedValues {
    /// The values a first reading's changes (from absent) spell.
    static func reading(_ changes: [WatchChange]) -> Reading { changes.map { ($0.key, $0.new) } }

    /// `changes` applied to `reading`: each key's new value, a new key at the end, a removed one gone.
    static func apply(_ changes: [WatchChange], to reading: inout Reading) {
        for change in changes {
            if let index = reading.firstIndex(where: { $0.key.utf8.elementsEqual(change.key.utf8) }) {
                if let new = change.new { reading[index].value = new } else { reading.remove(at: index) }
            } else if let new = change.new {
                reading.append((change.key, new))
            }
        }
    }
}
