/// Watches the values an application sees in a suite kept in etcd, as `SuiteWatcher` does for
/// files: one etcd watch on the suites' markers (`PREFIX/.suites/`, which every change of a suite
/// rewrites or deletes) from the revision the first values were read at, so no change made after
/// that read is missed, whichever member it went through; the watch resumes after a disconnect or a
/// member restart from the last revision it delivered. Values, large values' chunks and other
/// suites' data never come down the stream: a change elsewhere costs one marker event. For each
/// revision that rewrote the marker of a layer kept in etcd (the suite, the global suite, the
/// user's registered defaults and schema), the values are read as they were at that revision and
/// compared with the last ones, so every change is reported once, in order, even when changes come
/// faster than they are read. When etcd has compacted away the revision the watch would resume
/// from (it was disconnected meanwhile), the latest values are read and their difference reported
/// as one change, and the watch carries on from there.
///
/// Registered defaults that packages ship (files under `$XDG_DATA_DIRS`) are read with every
/// change but not watched themselves: a change to one alone shows with the next change in etcd.
public final class EtcdWatcher: ValueWatcher {
    let layers: Layers
    let keys: [(name: String, path: KeyPath)]?
    let storage: EtcdSuiteStorage
    let client: EtcdClient

    init(_ layers: Layers, keys: [(name: String, path: KeyPath)]?, storage: EtcdSuiteStorage, client: EtcdClient) {
        self.layers = layers
        self.keys = keys
        self.storage = storage
        self.client = client
    }

    /// The values at `revision` (0: the latest), external values' blobs included. A revision etcd has
    /// compacted away (the suite's, or a blob's) is read as the latest: what a later revision shows
    /// is reported then instead.
    func values(at revision: Int64) throws -> [(key: String, value: PrefValue?)] {
        func read(_ storage: EtcdSuiteStorage) throws -> [(key: String, value: PrefValue?)] {
            try SuiteWatcher.values(of: try layers.on(SuiteStore(storage: storage, files: layers.store.files)), keys: keys)
        }
        do {
            return try read(storage.at(revision: revision))
        } catch PrefsError.storeRefused(_, 11, _) where revision != 0 {
            return try read(storage)
        }
    }

    /// The markers whose changes can change the values: each etcd layer's.
    func markers() throws -> Set<[UInt8]> {
        Set(try layers.layers().compactMap { layer in
            guard layers.store.storage(for: layer.location) is EtcdSuiteStorage, let place = EtcdLayout.place(of: layer.location) else { return nil }
            return storage.layout.marker(of: place)
        })
    }

    /// The store's revision now: the values read at it are the latest.
    func latestRevision() throws -> Int64 {
        try client.range(storage.layout.markers, countOnly: true).revision
    }

    public func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool,
                    onChanges: ([WatchChange]) -> Bool, onError: (PrefsError) -> Void) throws -> SuiteWatcher.Stop {
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        let markers = try markers()
        // The revision first read: every change after it comes through the watch.
        var start = try latestRevision()
        var reader = Reader(watcher: self, current: try values(at: start))
        guard initial(reader.current.compactMap { $0.value == nil ? nil : WatchChange(key: $0.key, old: nil, new: $0.value) }) else {
            return .handlerStopped
        }
        let range = storage.layout.markers
        while true {
            let stop: EtcdClient.WatchStop
            do {
                stop = try client.watch(range, rangeEnd: EtcdClient.prefixEnd(range), fromRevision: start + 1, deadline: deadline,
                                        stopWhenReadable: output) { events, _ in
                    var revisions: [Int64] = []
                    for event in events where markers.contains(event.keyValue.key) && revisions.last != event.keyValue.modRevision {
                        revisions.append(event.keyValue.modRevision)
                    }
                    return try revisions.allSatisfy { try reader.report(at: $0, onChanges, onError) }
                }
            } catch PrefsError.storeRefused(_, 11, _) {
                // Compacted past the revision to resume from: the latest values, as one change.
                start = try latestRevision()
                guard try reader.report(at: start, onChanges, onError) else { return .handlerStopped }
                continue
            }
            switch stop {
            case .handlerStopped: return .handlerStopped
            case .timedOut: return .timedOut
            case .descriptorClosed: return .outputClosed
            }
        }
    }

    /// The last values reported, and how the next ones are.
    struct Reader {
        let watcher: EtcdWatcher
        var current: [(key: String, value: PrefValue?)]
        var lastError: PrefsError?

        /// Reads the values at `revision` and hands their changes to `onChanges`: false when it
        /// stops the watch. A read that fails (a corrupt value) goes to `onError` once, and the
        /// values stay the last ones read; an outage is thrown.
        mutating func report(at revision: Int64, _ onChanges: ([WatchChange]) -> Bool, _ onError: (PrefsError) -> Void) throws -> Bool {
            do {
                let now = try watcher.values(at: revision)
                lastError = nil
                let changes = SuiteWatcher.changes(from: current, to: now)
                current = now
                return changes.isEmpty || onChanges(changes)
            } catch let error as PrefsError {
                if case .unavailable = error { throw error }
                if error != lastError { onError(error) }
                lastError = error
                return true
            }
        }
    }
}

/// What `prefs watch` runs: a `SuiteWatcher` for suites in files, an `EtcdWatcher` for etcd's.
public protocol ValueWatcher: AnyObject {
    /// Reads the current values, which `initial` receives (as changes from absent, for the keys
    /// that have a value); then, until `onChanges` returns false, `timeout` seconds pass, or
    /// `closedWhen` hangs up, hands each batch of changes to `onChanges`. A read that fails later (a
    /// corrupt value) goes to `onError` once, and the watch goes on from the last values read.
    func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool,
             onChanges: ([WatchChange]) -> Bool, onError: (PrefsError) -> Void) throws -> SuiteWatcher.Stop
}

extension SuiteWatcher: ValueWatcher {}

extension Layers {
    /// The watcher for these layers: etcd's watch when the domain's suite is in etcd, else inotify.
    public func watcher(keys: [(name: String, path: KeyPath)]?) throws -> any ValueWatcher {
        let storage = store.storage(for: try store.location(of: domain))
        if let etcd = storage as? EtcdSuiteStorage {
            guard let client = etcd.etcd as? EtcdClient else { throw PrefsError.internalError("this etcd store cannot be watched") }
            return EtcdWatcher(self, keys: keys, storage: etcd, client: client)
        }
        return try SuiteWatcher(self, keys: keys)
    }

    /// The same layers read through another store.
    func on(_ store: SuiteStore) throws -> Layers {
        try Layers(domain, in: store, defaults: commandLineDefaults, storedOnly: storedOnly)
    }
}
