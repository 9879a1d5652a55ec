import Glibc

/// Watches layers the kernel cannot see (files on an `InMemoryFileSystem`) by reading their values
/// again every `interval` milliseconds and reporting what changed, with the contract of
/// `ValueWatcher.run`: so code that observes a suite can be unit-tested in memory.
final class PollingWatcher: ValueWatcher {
    let layers: Layers
    let keys: [(name: String, path: PrefKeyPath)]?
    let interval: Int32
    var reportsEveryReading = false

    init(_ layers: Layers, keys: [(name: String, path: PrefKeyPath)]?, interval: Int32 = 5) {
        self.layers = layers
        self.keys = keys
        self.interval = interval
    }

    func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool,
             onChanges: ([WatchChange]) -> Bool, onError: (PrefsError) -> Void) throws -> WatchStop {
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        var current = try WatchedValues.read(layers, keys: keys)
        guard initial(WatchedValues.initial(current)) else {
            return .handlerStopped
        }
        var lastError: PrefsError?
        while true {
            if let deadline, MonotonicClock.now() >= deadline { return .timedOut }
            var hangUp = pollfd(fd: output ?? -1, events: 0, revents: 0)
            _ = poll(&hangUp, 1, interval)
            if output != nil && hangUp.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return .outputClosed }
            do {
                let now = try WatchedValues.read(layers, keys: keys)
                let changes = WatchedValues.changes(from: current, to: now)
                (current, lastError) = (now, nil)
                if (!changes.isEmpty || reportsEveryReading) && !onChanges(changes) { return .handlerStopped }
            } catch let error as PrefsError {
                if error != lastError { onError(error) }
                lastError = error
            }
        }
    }
}
