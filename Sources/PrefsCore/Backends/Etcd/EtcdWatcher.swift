/// Watches the values an application sees in a suite kept in etcd, as `SuiteWatcher` does for
/// files: one etcd watch per marker the values depend on (`markers`: the suite's, the global
/// suite's, the user's registered defaults' and schema's, the fleet's managed values', each of
/// which every change of that place rewrites or deletes), all on one stream, from the revision the
/// first values were read at, so no change made after that read is missed, whichever member it
/// went through; the watch resumes after a disconnect or a member restart from the last revision
/// it delivered. Values, large values' chunks and other suites' markers never come down the
/// stream: a change elsewhere costs a watcher nothing. The markers' events come in revision order
/// (`EtcdClient.watch(keys:…)`); for each revision, the values are read as they were at it and
/// compared with the last ones, so every change is reported once, in order, even when changes
/// come faster than they are read. When etcd has compacted away the revision the watch would
/// resume from (it was disconnected meanwhile), the latest values are read and their difference
/// reported as one change, and the watch carries on from there.
///
/// Registered defaults that packages ship (files under `$XDG_DATA_DIRS`) are read with every
/// change but not watched themselves: a change to one alone shows with the next change in etcd.
package final class EtcdWatcher: ValueWatcher {
    let layers: Layers
    let keys: [(name: String, path: PrefKeyPath)]?
    let storage: EtcdSuiteStorage
    /// The store's etcd, which can watch (`EtcdKV.canWatch`).
    var client: any EtcdKV { storage.etcd }
    package var reportsEveryReading = false

    init(_ layers: Layers, keys: [(name: String, path: PrefKeyPath)]?, storage: EtcdSuiteStorage) {
        self.layers = layers
        self.keys = keys
        self.storage = storage
    }

    /// The values at `revision` (0: the latest), external values' blobs included. A revision etcd has
    /// compacted away (the suite's, or a blob's) is read as the latest: what a later revision shows
    /// is reported then instead.
    func values(at revision: Int64) throws -> WatchedValues.Reading {
        func read(_ storage: EtcdSuiteStorage) throws -> WatchedValues.Reading {
            try WatchedValues.read(try layers.on(layers.store.reading(storage)), keys: keys)
        }
        do {
            return try read(storage.at(revision: revision))
        } catch PrefsError.storeRefused(_, 11, _, _) where revision != 0 {
            return try read(storage)
        }
    }

    /// The markers whose changes can change the values: each etcd layer's (every layer that is not
    /// a file has a place in the store, since the watched suite is in it), and the schema's place
    /// while there is no schema (one written later changes the values).
    func markers() throws -> [[UInt8]] {
        var locations = try layers.layers().map(\.location)
        if !layers.storedOnly, let name = layers.domain.registrationName { locations += try storage.schemaLocations(for: name) }
        var markers: [[UInt8]] = []
        for place in locations.compactMap(EtcdLayout.place(of:)) where !markers.contains(storage.layout.marker(of: place)) {
            markers.append(storage.layout.marker(of: place))
        }
        return markers
    }

    /// The store's revision now: the values read at it are the latest.
    func latestRevision() throws -> Int64 {
        try client.range(storage.layout.markers, rangeEnd: nil, limit: 0, keysOnly: false, countOnly: true, revision: 0).revision
    }

    package func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool,
                    onChanges: ([WatchChange]) -> Bool, onError: (PrefsError) -> Void) throws -> WatchStop {
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        let markers = try markers()
        // The revision first read: every change after it comes through the watch.
        var start = try latestRevision()
        var reader = Reader(watcher: self, current: try values(at: start), everyReading: reportsEveryReading)
        guard initial(WatchedValues.initial(reader.current)) else {
            return .handlerStopped
        }
        while true {
            let stop: EtcdClient.WatchStop
            do {
                stop = try client.watch(keys: markers, fromRevision: start + 1, deadline: deadline, stopWhenReadable: output) { events, _ in
                    var revisions: [Int64] = []
                    for event in events where revisions.last != event.keyValue.modRevision {
                        revisions.append(event.keyValue.modRevision)
                    }
                    return try revisions.allSatisfy { try reader.report(at: $0, onChanges, onError) }
                }
            } catch PrefsError.storeRefused(_, 11, _, _) {
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
        var current: WatchedValues.Reading
        /// `reportsEveryReading`.
        let everyReading: Bool
        var lastError: PrefsError?

        /// Reads the values at `revision` and hands their changes to `onChanges`: false when it
        /// stops the watch. A read that fails (a corrupt value) goes to `onError` once, and the
        /// values stay the last ones read; an outage is thrown.
        mutating func report(at revision: Int64, _ onChanges: ([WatchChange]) -> Bool, _ onError: (PrefsError) -> Void) throws -> Bool {
            do {
                let now = try watcher.values(at: revision)
                lastError = nil
                let changes = WatchedValues.changes(from: current, to: now)
                current = now
                return (changes.isEmpty && !everyReading) || onChanges(changes)
            } catch let error as PrefsError {
                if case .unavailable = error { throw error }
                if error != lastError { onError(error) }
                lastError = error
                return true
            }
        }
    }
}

extension EtcdSuiteStorage {
    /// etcd's watch, where this store's etcd has one (the in-memory fake has none: unsupported).
    package func watcher(for layers: Layers, keys: [(name: String, path: PrefKeyPath)]?) throws -> any ValueWatcher {
        guard etcd.canWatch else { throw PrefsError.usage(SuiteStore.notWatchable(layers.domain)) }
        return EtcdWatcher(layers, keys: keys, storage: self)
    }
}
