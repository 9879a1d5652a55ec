/// The etcd store's change feed: one etcd watch per marker of the watched places (`markers`: a
/// suite's, the global suite's, the user's registered defaults' and schema's, the fleet's managed
/// values', each of which every change of that place rewrites or deletes), all on one stream, from
/// the revision the watch starts at, so no change made after the first look is missed, whichever
/// member it went through; the watch resumes after a disconnect or a member restart from the last
/// revision it delivered. Values, large values' chunks and other suites' markers never come down
/// the stream: a change elsewhere costs a watcher nothing. The markers' events come in revision
/// order (`EtcdClient.watch(keys:…)`); each revision is a `ChangePoint` the watcher reads the values
/// at, so every change is reported once, in order, even when changes come faster than they are
/// read. When etcd has compacted away the revision the watch would resume from (it was
/// disconnected meanwhile), the latest revision is looked at, and the watch carries on from there;
/// a point whose revision etcd has compacted is read as the latest (`hasForgotten`).
///
/// Places that are files (registered defaults that packages ship, under `$XDG_DATA_DIRS`) are not
/// watched: a change to one alone shows with the next change in etcd.
package final class EtcdChangeFeed: ChangeFeed {
    /// The places watched (read once, when the watch starts).
    let locations: () throws -> [SuiteLocation]
    let storage: EtcdSuiteStorage
    /// The store's etcd, which can watch (`EtcdKV.canWatch`).
    var client: any EtcdKV { storage.etcd }
    /// Histories are kept in the suites' places, whose markers are watched already.
    package var wakesForHistory = false

    init(_ locations: @escaping () throws -> [SuiteLocation], storage: EtcdSuiteStorage) {
        self.locations = locations
        self.storage = storage
    }

    /// The store at `revision`, and as it is now should etcd have compacted that revision away.
    func point(at revision: Int64) -> ChangePoint {
        ChangePoint(backend: storage.at(revision: revision), latest: storage)
    }

    package func hasForgotten(_ error: PrefsError) -> Bool {
        if case .storeRefused(_, 11, _, _) = error { return true }
        return false
    }

    /// An outage ends the watch (`RetryingWatcher` takes it up again).
    package func endsTheWatch(_ error: PrefsError) -> Bool {
        if case .unavailable = error { return true }
        return false
    }

    /// The markers whose changes can change the values: each watched place's that is in etcd.
    func markers() throws -> [[UInt8]] {
        var markers: [[UInt8]] = []
        for place in try locations().compactMap(EtcdLayout.place(of:)) where !markers.contains(storage.layout.marker(of: place)) {
            markers.append(storage.layout.marker(of: place))
        }
        return markers
    }

    /// The store's revision now: the values read at it are the latest.
    func latestRevision() throws -> Int64 {
        try client.range(storage.layout.markers, rangeEnd: nil, limit: 0, keysOnly: false, countOnly: true, revision: 0).revision
    }

    package func wait(until deadline: Double?, stop output: Int32?, look: (ChangePoint) throws -> () -> Bool) throws -> WatchStop {
        let markers = try markers()
        // The revision first looked at: every change after it comes through the watch.
        var start = try latestRevision()
        guard try look(point(at: start))() else { return .handlerStopped }
        while true {
            let stop: EtcdClient.WatchStop
            do {
                stop = try client.watch(keys: markers, fromRevision: start + 1, deadline: deadline, stopWhenReadable: output) { events, _ in
                    var revisions: [Int64] = []
                    for event in events where revisions.last != event.keyValue.modRevision {
                        revisions.append(event.keyValue.modRevision)
                    }
                    return try revisions.allSatisfy { try look(point(at: $0))() }
                }
            } catch PrefsError.storeRefused(_, 11, _, _) {
                // Compacted past the revision to resume from: the latest values, as one change.
                start = try latestRevision()
                guard try look(point(at: start))() else { return .handlerStopped }
                continue
            }
            switch stop {
            case .handlerStopped: return .handlerStopped
            case .timedOut: return .timedOut
            case .descriptorClosed: return .outputClosed
            }
        }
    }
}

extension EtcdSuiteStorage {
    /// etcd's watch, where this store's etcd has one (the in-memory fake has none: nil, unsupported).
    package func changeFeed(for locations: @escaping () throws -> [SuiteLocation]) throws -> (any ChangeFeed)? {
        guard etcd.canWatch else { return nil }
        return EtcdChangeFeed(locations, storage: self)
    }
}
