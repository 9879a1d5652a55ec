/// What a backend tells a watch: when the places it was asked about may have changed
/// (`SuiteBackend.changeFeed(for:)`). It knows nothing of values: at each change it hands the
/// watcher (`Watcher`, in the core) a `ChangePoint` to read them through, and the watcher compares
/// what an application sees. Files: inotify on the directories (`InotifyFeed`); etcd: the watch of
/// the places' markers (`EtcdChangeFeed`); files on a file system the kernel does not see: a look
/// every few milliseconds (`PollingFeed`). A store that cannot be watched has none.
package protocol ChangeFeed: AnyObject {
    /// Whether a version recorded in a watched place's history wakes the watch too, even where the
    /// values stay as they were (`Suite.changes(of:)` reads the history at each wake). Set before
    /// `wait`; false to begin with.
    var wakesForHistory: Bool { get set }

    /// Sets up the watch and calls `look` at once, with the point the watch starts from (every
    /// change after it comes); then, until a report that `look` returns says stop (false),
    /// `deadline` (monotonic seconds, `MonotonicClock`) passes, or `output` hangs up, calls `look`
    /// at each change. `look` reads the values at the point and returns what reports them: the feed
    /// calls it unless the reading may have seen a change half made (a file being rewritten in
    /// place), in which case it looks again once the change is whole.
    func wait(until deadline: Double?, stop output: Int32?, look: (ChangePoint) throws -> () -> Bool) throws -> WatchStop

    /// Whether a read at a point failed only because the backend has forgotten that point (etcd
    /// compacted its revision away): then the point's `latest` is read instead. False by default.
    func hasForgotten(_ error: PrefsError) -> Bool

    /// Whether a read that fails with `error` ends the watch (an outage of a networked store) instead
    /// of being reported and waited out (a corrupt value). False by default.
    func endsTheWatch(_ error: PrefsError) -> Bool

    /// What tells a read cache of `suite`, without blocking, whether the places may have changed
    /// since it last asked (files: the events the kernel queued for them, `KernelChangeQueue`). nil
    /// by default: the feed has none, and a cache keeps values only while a watch runs on a thread
    /// of its own (`WatchedStore`).
    func readCacheSignal(suite: String) -> (any ChangeSignal)?
}

extension ChangeFeed {
    package func hasForgotten(_ error: PrefsError) -> Bool { false }
    package func endsTheWatch(_ error: PrefsError) -> Bool { false }
    package func readCacheSignal(suite: String) -> (any ChangeSignal)? { nil }
}

/// Where a change is read: the backend as it was at the change, when the feed knows it.
package struct ChangePoint {
    /// The backend as it was at the change (etcd: at its revision); nil: the store as it is now.
    package var backend: (any SuiteBackend)?
    /// What is read when `backend` has forgotten the change (`ChangeFeed.hasForgotten`): the
    /// backend as it is now; nil: the store as it is now.
    package var latest: (any SuiteBackend)?

    package init(backend: (any SuiteBackend)?, latest: (any SuiteBackend)? = nil) {
        self.backend = backend
        self.latest = latest
    }

    /// The store as it is now.
    package static var now: ChangePoint { ChangePoint(backend: nil) }
}

/// Why a watch ended.
package enum WatchStop: Equatable, Sendable {
    /// `onChanges` asked to stop.
    case handlerStopped
    /// The deadline passed.
    case timedOut
    /// The `closedWhen` descriptor was closed at the other end (a pipe reader went away).
    case outputClosed
}
