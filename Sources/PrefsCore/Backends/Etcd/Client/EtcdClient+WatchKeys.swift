/// Watching several keys at once, their events in the order of their revisions.
///
/// One stream carries one etcd watch per key, so etcd sends the changes of those keys and of no
/// other. etcd keeps each watch's events in order, but not the events of two watches: one that
/// catches up (created from a past revision, or held back while the stream's reader was slow)
/// sends its backlog whole, after later events of the others. So events are held until they are
/// known complete: a revision is handed over once no watch can still bring an earlier event. A
/// watch that has said nothing is asked about with one read of every such key at the newest
/// revision held (`WatchMerge`), in one transaction on another connection.
extension EtcdClient {
    /// Watches `keys` (each just that key) from `fromRevision` (0: from now), calling `onEvents`
    /// with their events in revision order (those of one revision together, in the order of `keys`) and the last one's
    /// revision; otherwise as the one-range `watch`. A key whose events stopped being known
    /// complete (its state at the newest revision held is not what its events so far make it)
    /// holds the others back until its own come.
    ///
    /// One case is beyond what a read can tell: a key that was absent, then created and deleted
    /// between two events of the others, while its watch was behind. Its two events are then
    /// passed over (the state they lead to is the one before them).
    package func watch(keys: [[UInt8]], fromRevision: Int64, deadline: Double?, stopWhenReadable: Int32? = nil,
                       _ onEvents: ([EtcdWatchEvent], Int64) throws -> Bool) throws -> WatchStop {
        var merge = try WatchMerge(keys: keys, from: fromRevision, client: self)
        let targets = WatchTargets(keys.map { ($0, nil) }, from: merge.start)
        return try watch(targets, deadline: deadline, stop: stopWhenReadable) { index, events in
            merge.received(index, events)
            return try merge.handOver(targets, onEvents)
        }
    }
}

/// The events of several watched keys received and not yet handed over, and what is known of
/// each key.
struct WatchMerge {
    /// Whether a key exists, and its last change's revision (0 when it does not).
    struct KeyState: Equatable {
        var exists = false
        var modRevision: Int64 = 0

        init(_ kv: EtcdKeyValue?) {
            exists = kv != nil
            modRevision = kv?.modRevision ?? 0
        }

        init(after event: EtcdWatchEvent) {
            if case .put(let kv) = event { self.init(kv) } else { self.init(nil) }
        }
    }

    let keys: [[UInt8]]
    let client: EtcdClient
    /// The revision the watches start from.
    let start: Int64
    /// Each key's state after the events received so far.
    var states: [KeyState]
    /// Events received and not handed over, each with its key's index.
    var held: [(index: Int, event: EtcdWatchEvent)] = []

    /// Reads the keys as of the revision before `from` (from 0: the latest, and the watch starts
    /// after it). A revision etcd compacted away is `storeRefused` code 11.
    init(keys: [[UInt8]], from: Int64, client: EtcdClient) throws {
        self.keys = keys
        self.client = client
        if from == 1 {
            (start, states) = (1, keys.map { _ in KeyState(nil) })
        } else {
            let read = try client.txn(success: keys.map { .range(key: $0, keysOnly: true, revision: max(0, from - 1)) })
            start = from == 0 ? read.revision + 1 : from
            states = read.ranges.map { KeyState($0.kvs.first) }
        }
    }

    mutating func received(_ index: Int, _ events: [EtcdWatchEvent]) {
        held += events.map { (index, $0) }
        if let last = events.last { states[index] = KeyState(after: last) }
    }

    /// Hands over, in revision order, the events held that no watch can still bring an earlier
    /// event than; false when `onEvents` stops the watch. The keys whose watches are not known
    /// complete up to the newest revision held are read as of it: one whose state is what its
    /// events make it has nothing more until then (its watch resumes after it), and one whose
    /// state is not holds back every revision after those its watch is known complete up to.
    mutating func handOver(_ targets: WatchTargets, _ onEvents: ([EtcdWatchEvent], Int64) throws -> Bool) throws -> Bool {
        guard let newest = held.map(\.event.keyValue.modRevision).max() else { return true }
        var ready = newest
        let unknown = keys.indices.filter { targets.next[$0] <= newest }
        if !unknown.isEmpty {
            let read = try client.txn(success: unknown.map { .range(key: keys[$0], keysOnly: true, revision: newest) })
            for (index, range) in zip(unknown, read.ranges) {
                if KeyState(range.kvs.first) == states[index] {
                    targets.next[index] = newest + 1
                } else {
                    ready = min(ready, targets.next[index] - 1)
                }
            }
        }
        let due = held.filter { $0.event.keyValue.modRevision <= ready }
        guard let last = due.map(\.event.keyValue.modRevision).max() else { return true }
        held.removeAll { $0.event.keyValue.modRevision <= ready }
        // Those of one revision (one transaction) in the order of the keys, whichever watch sent first.
        let ordered = due.enumerated().sorted {
            ($0.element.event.keyValue.modRevision, $0.element.index, $0.offset) < ($1.element.event.keyValue.modRevision, $1.element.index, $1.offset)
        }
        return try onEvents(ordered.map(\.element.event), last)
    }
}
