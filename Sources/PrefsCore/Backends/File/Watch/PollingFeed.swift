import Glibc

/// The file store's feed on a file system the kernel does not see (`InMemoryFileSystem`): it looks
/// again every `interval` milliseconds, so code that observes a suite can be unit-tested in memory.
package final class PollingFeed: ChangeFeed {
    let interval: Int32
    package var wakesForHistory = false
    /// What its `readCacheSignal` gives (the store's own check, which it cannot know).
    let readCache: ((_ suite: String) -> any ChangeSignal)?

    package init(interval: Int32 = 5, readCache: ((_ suite: String) -> any ChangeSignal)? = nil) {
        self.interval = interval
        self.readCache = readCache
    }

    package func readCacheSignal(suite: String) -> (any ChangeSignal)? { readCache?(suite) }

    package func wait(until deadline: Double?, stop output: Int32?, look: (ChangePoint) throws -> () -> Bool) throws -> WatchStop {
        guard try look(.now)() else { return .handlerStopped }
        while true {
            if let deadline, MonotonicClock.now() >= deadline { return .timedOut }
            var hangUp = pollfd(fd: output ?? -1, events: 0, revents: 0)
            _ = poll(&hangUp, 1, interval)
            if output != nil && hangUp.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return .outputClosed }
            guard try look(.now)() else { return .handlerStopped }
        }
    }
}
