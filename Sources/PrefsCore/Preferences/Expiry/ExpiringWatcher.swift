/// A watch that reports a value's expiry as a change. What tells the store's watcher to look
/// (inotify, etcd's watch) sees no event when a deadline passes, so the watch wakes at the next
/// deadline of the keys it watches: the store's watcher is run until then, and run again, its first
/// reading compared with the last values reported (as `RetryingWatcher` does after an outage). A
/// change that moves the next deadline (a write with `--ttl`) starts it again at once.
package final class ExpiringWatcher: ValueWatcher {
    let inner: any ValueWatcher
    let layers: Layers
    let keys: [(name: String, path: PrefKeyPath)]?
    package var reportsEveryReading: Bool {
        get { inner.reportsEveryReading }
        set { inner.reportsEveryReading = newValue }
    }

    init(_ inner: any ValueWatcher, layers: Layers, keys: [(name: String, path: PrefKeyPath)]?) {
        self.inner = inner
        self.layers = layers
        self.keys = keys
    }

    /// The next deadline ahead of the watched keys in the stored layers (wall clock); nil: none.
    func nextDeadline() -> PrefDate? {
        try? layers.nextDeadline(keys: keys.map { KeySet($0.map(\.path.first)) })
    }

    package func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool,
                    onChanges: ([WatchChange]) -> Bool, onError: (PrefsError) -> Void) throws -> WatchStop {
        let end = timeout.map { MonotonicClock.now() + $0 }
        var last: WatchedValues.Reading?
        while true {
            let next = nextDeadline()
            // A little after the deadline, so the reading sees it passed.
            let wake = next.map { MonotonicClock.now() + max(0, $0.secondsSinceReferenceDate - Expiry.now().secondsSinceReferenceDate) + 0.005 }
            let until = [end, wake].compactMap { $0 }.min()
            var restart = false
            let stop = try inner.run(timeout: until.map { max(0, $0 - MonotonicClock.now()) }, closedWhen: output, initial: { changes in
                let now = WatchedValues.reading(changes)
                defer { last = now }
                guard let previous = last else { return initial(changes) }
                let missed = WatchedValues.changes(from: previous, to: now)
                return (missed.isEmpty && !reportsEveryReading) || onChanges(missed)
            }, onChanges: { changes in
                if last != nil { WatchedValues.apply(changes, to: &last!) }
                guard onChanges(changes) else { return false }
                if nextDeadline() != next {
                    restart = true
                    return false
                }
                return true
            }, onError: onError)
            switch stop {
            case .handlerStopped where restart: continue
            case .timedOut where wake != nil && (end.map { MonotonicClock.now() < $0 } ?? true): continue
            default: return stop
            }
        }
    }
}

extension Layers {
    /// The earliest deadline still ahead of `keys` (nil: every key) in the layers that hold stored
    /// values (the suite's, the global suite's, this host's), read as stored.
    package func nextDeadline(keys: KeySet?) throws -> PrefDate? {
        let now = Expiry.now()
        var next: PrefDate?
        for layer in try layersAboveSchema() {
            switch layer.origin {
            case .stored, .global, .byHost, .globalByHost: break
            default: continue
            }
            guard let storage = store.storage(for: layer.location) as? ExpiringStorage,
                  case .dictionary(let table)? = try storage.deadlines(in: layer.location) else { continue }
            for entry in table {
                guard case .date(let deadline) = entry.value, deadline > now, keys?.contains(entry.key) ?? true else { continue }
                if next.map({ deadline < $0 }) ?? true { next = deadline }
            }
        }
        return next
    }
}
