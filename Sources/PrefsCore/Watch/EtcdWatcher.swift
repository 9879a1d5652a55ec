/// Watches the values an application sees in a suite kept in etcd, as `SuiteWatcher` does for
/// files: one etcd watch on the store's prefix from the revision the first values were read at, so
/// no change made after that read is missed, whichever member it went through; the watch resumes
/// after a disconnect or a member restart from the last revision it delivered. For each revision
/// that touched a layer kept in etcd (the suite, the global suite, the user's registered defaults),
/// the values are read as they were at that revision and compared with the last ones, so every
/// change is reported once, in order, even when changes come faster than they are read.
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

    /// The etcd keys whose changes can change the values: each etcd layer's values and marker.
    func isRelevant(_ key: [UInt8], places: [[UInt8]]) -> Bool {
        places.contains { place in
            key.starts(with: storage.layout.values(of: place)) || key == storage.layout.marker(of: place)
        }
    }

    public func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool,
                    onChanges: ([WatchChange]) -> Bool, onError: (PrefsError) -> Void) throws -> SuiteWatcher.Stop {
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        let places = try layers.layers().compactMap { layers.store.storage(for: $0.location) is EtcdSuiteStorage ? EtcdLayout.place(of: $0.location) : nil }
        // The revision first read: every change after it comes through the watch.
        let start = try client.range(storage.layout.markers, countOnly: true).revision
        var current = try values(at: start)
        guard initial(current.compactMap { $0.value == nil ? nil : WatchChange(key: $0.key, old: nil, new: $0.value) }) else {
            return .handlerStopped
        }
        var lastError: PrefsError?
        let root = storage.layout.join([])
        let stop = try client.watch(root, rangeEnd: EtcdClient.prefixEnd(root), fromRevision: start + 1, deadline: deadline,
                                    stopWhenReadable: output) { events, _ in
            var revisions: [Int64] = []
            for event in events where isRelevant(event.keyValue.key, places: places) && revisions.last != event.keyValue.modRevision {
                revisions.append(event.keyValue.modRevision)
            }
            for revision in revisions {
                do {
                    let now = try values(at: revision)
                    lastError = nil
                    let changes = SuiteWatcher.changes(from: current, to: now)
                    current = now
                    if !changes.isEmpty && !onChanges(changes) { return false }
                } catch let error as PrefsError {
                    if case .unavailable = error { throw error }
                    if error != lastError { onError(error) }
                    lastError = error
                }
            }
            return true
        }
        switch stop {
        case .handlerStopped: return .handlerStopped
        case .timedOut: return .timedOut
        case .descriptorClosed: return .outputClosed
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
