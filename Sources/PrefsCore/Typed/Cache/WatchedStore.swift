import Synchronization

/// Tells a `ReadCache` of changes to a suite kept in a store with a watch of its own (etcd): the
/// store's watcher runs on a thread of its own and counts the changes it reports. Values are kept
/// only while the watch is on: from the moment it has read the suite (every later change then
/// comes through it) until it stops (an outage; it is started again at the next read, at most once
/// a second). A kept value may so be older than the last write by as long as the watch takes to
/// report it — there is no cheaper check than the read itself: etcd's revision is a request too.
final class WatchedStore: ChangeSignal, @unchecked Sendable {
    /// What the watch thread and the reads share.
    final class Progress: Sendable {
        /// How many changes the watch has reported.
        let changes = Atomic<UInt64>(0)
        /// 0: stopped; 1: starting; 2: watching.
        let state = Atomic<Int>(0)
    }

    let layers: Layers
    let suite: String
    private let progress = Progress()
    private var stopper = WatchStopper()
    private var seen: UInt64 = 0
    private var lastStart = -Double.infinity

    init(_ layers: Layers, suite: String) {
        self.layers = layers
        self.suite = suite
    }

    deinit { stopper.stop() }

    var name: String { "watch" }

    func mayHaveChanged() -> Bool {
        let watching = progress.state.load(ordering: .acquiring) == 2
        let changes = progress.changes.load(ordering: .acquiring)
        defer { seen = changes }
        return !watching || changes != seen
    }

    func prepare() -> Bool {
        switch progress.state.load(ordering: .acquiring) {
        case 2: return true
        case 0 where MonotonicClock.now() - lastStart >= 1: start()
        default: break
        }
        return false
    }

    private func start() {
        lastStart = MonotonicClock.now()
        stopper.stop()
        stopper = WatchStopper()
        progress.state.store(1, ordering: .releasing)
        let (layers, progress) = (self.layers, self.progress)
        let failure = WatchThread.start(stopper, watching: suite) { hangUp in
            let counted = { () -> Bool in
                progress.changes.add(1, ordering: .releasing)
                return true
            }
            do {
                _ = try layers.watcher(keys: nil).run(timeout: nil, closedWhen: hangUp, initial: { _ in
                    progress.state.store(2, ordering: .releasing)
                    return true
                }, onChanges: { _ in counted() }, onError: { _ in _ = counted() })
            } catch {}
            progress.state.store(0, ordering: .releasing)
            _ = counted()
        }
        if failure != nil { progress.state.store(0, ordering: .releasing) }
    }
}
