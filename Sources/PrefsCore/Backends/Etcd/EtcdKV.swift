/// What the etcd store needs of etcd: `EtcdClient` over the network, `InMemoryEtcd` for unit tests
/// (the same contract tests run on both). Keys and values are bytes.
package protocol EtcdKV: Sendable {
    func range(_ key: [UInt8], rangeEnd: [UInt8]?, limit: Int64, keysOnly: Bool, countOnly: Bool, revision: Int64) throws -> EtcdRange
    func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]) throws -> EtcdTxnResult
    /// `txn`, given up (`.unavailable`) at `deadline` (CLOCK_MONOTONIC seconds) rather than after the
    /// client's whole timeout; a store without a network has no deadline to keep.
    func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation], deadline: Double) throws -> EtcdTxnResult
    func grantLease(ttl: Int64) throws -> Int64
    func revokeLease(_ id: Int64) throws
    /// Renews a lease; returns its TTL. An expired or revoked lease is `storeRefused` code 5.
    @discardableResult func keepAlive(_ id: Int64) throws -> Int64

    /// Whether `watch` works here: etcd's watch stream over the network does; the in-memory fake has
    /// none (false by default), so its store cannot be watched.
    var canWatch: Bool { get }
    /// Watches `keys` from `fromRevision`, their events in revision order (see `EtcdClient.watch(keys:…)`).
    func watch(keys: [[UInt8]], fromRevision: Int64, deadline: Double?, stopWhenReadable: Int32?,
               _ onEvents: ([EtcdWatchEvent], Int64) throws -> Bool) throws -> EtcdClient.WatchStop
    /// Watches the key, or the range up to `rangeEnd` (a lock's waiters: `EtcdLocks`).
    func watch(_ key: [UInt8], rangeEnd: [UInt8]?, fromRevision: Int64, deadline: Double?, stopWhenReadable: Int32?,
               _ onEvents: ([EtcdWatchEvent], Int64) throws -> Bool) throws -> EtcdClient.WatchStop
}

extension EtcdClient: EtcdKV {
    package var canWatch: Bool { true }
}

extension EtcdKV {
    package var canWatch: Bool { false }

    package func watch(keys: [[UInt8]], fromRevision: Int64, deadline: Double?, stopWhenReadable: Int32?,
                      _ onEvents: ([EtcdWatchEvent], Int64) throws -> Bool) throws -> EtcdClient.WatchStop {
        throw PrefsError.internalError("this etcd has no watch")
    }

    package func watch(_ key: [UInt8], rangeEnd: [UInt8]?, fromRevision: Int64, deadline: Double?, stopWhenReadable: Int32?,
                      _ onEvents: ([EtcdWatchEvent], Int64) throws -> Bool) throws -> EtcdClient.WatchStop {
        throw PrefsError.internalError("this etcd has no watch")
    }

    func range(_ key: [UInt8], rangeEnd: [UInt8]? = nil, keysOnly: Bool = false) throws -> EtcdRange {
        try range(key, rangeEnd: rangeEnd, limit: 0, keysOnly: keysOnly, countOnly: false, revision: 0)
    }

    func txn(compare: [EtcdCompare] = [], success: [EtcdOperation]) throws -> EtcdTxnResult {
        try txn(compare: compare, success: success, failure: [])
    }

    package func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation], deadline: Double) throws -> EtcdTxnResult {
        try txn(compare: compare, success: success, failure: failure)
    }
}

/// Ranges of keys.
enum EtcdKeys {
    /// Whether `key` is in [start, end) (end nil: just `start`; `[0]`: every key from `start`).
    static func contains(_ key: [UInt8], from start: [UInt8], to end: [UInt8]?) -> Bool {
        guard let end else { return key == start }
        guard key.lexicographicallyPrecedes(start) == false else { return false }
        return end == [0] || key.lexicographicallyPrecedes(end)
    }
}
