import Synchronization

/// etcd's key-value model in memory, for unit tests: revisions (create, mod, version), ranges,
/// transactions with compares, and leases (which expire only when a test says so). The same store
/// code runs on it as on a real cluster.
package final class InMemoryEtcd: EtcdKV {
    struct Entry: Sendable {
        var value: [UInt8]
        var createRevision: Int64
        var modRevision: Int64
        var version: Int64
        var lease: Int64
    }

    struct State: Sendable {
        var entries: [[UInt8]: Entry] = [:]
        var revision: Int64 = 1
        var leases: Set<Int64> = []
        var nextLease: Int64 = 1000
        /// Ranges and transactions asked for: what a client of a real cluster would send.
        var requests = 0

        func kv(_ key: [UInt8], _ entry: Entry, keysOnly: Bool) -> EtcdKeyValue {
            EtcdKeyValue(key: key, value: keysOnly ? [] : entry.value, createRevision: entry.createRevision, modRevision: entry.modRevision,
                         version: entry.version, lease: entry.lease)
        }

        func range(_ key: [UInt8], _ end: [UInt8]?, keysOnly: Bool, limit: Int64 = 0) -> EtcdRange {
            let keys = entries.keys.filter { EtcdKeys.contains($0, from: key, to: end) }.sorted { $0.lexicographicallyPrecedes($1) }
            let shown = limit > 0 ? Array(keys.prefix(Int(limit))) : keys
            return EtcdRange(kvs: shown.map { kv($0, entries[$0]!, keysOnly: keysOnly) }, count: Int64(keys.count),
                             more: shown.count < keys.count, revision: revision)
        }

        func holds(_ compare: EtcdCompare) -> Bool {
            func test(_ value: Int64, _ op: EtcdCompare.Op, _ target: Int64) -> Bool {
                switch op {
                case .equal: return value == target
                case .notEqual: return value != target
                case .less: return value < target
                case .greater: return value > target
                }
            }
            switch compare {
            case .modRevision(let key, let end, let op, let target):
                guard let end else { return test(entries[key]?.modRevision ?? 0, op, target) }
                return entries.filter { EtcdKeys.contains($0.key, from: key, to: end) }.allSatisfy { test($0.value.modRevision, op, target) }
            case .version(let key, let op, let target): return test(entries[key]?.version ?? 0, op, target)
            case .createRevision(let key, let op, let target): return test(entries[key]?.createRevision ?? 0, op, target)
            }
        }

        /// No history is kept: a read of an earlier revision is refused as etcd refuses one it compacted.
        func check(revision asked: Int64) throws {
            guard asked == 0 || asked >= revision else {
                throw EtcdRefusal(code: 11, message: "etcdserver: mvcc: required revision has been compacted").error(at: "memory")
            }
        }

        mutating func apply(_ operations: [EtcdOperation]) -> [EtcdRange] {
            var ranges: [EtcdRange] = []
            var changed = false
            for operation in operations {
                switch operation {
                case .range(let key, let end, let keysOnly, _):
                    ranges.append(range(key, end, keysOnly: keysOnly))
                case .put(let key, let value, let lease):
                    if !changed { revision += 1; changed = true }
                    var entry = entries[key] ?? Entry(value: [], createRevision: revision, modRevision: revision, version: 0, lease: 0)
                    (entry.value, entry.modRevision, entry.version, entry.lease) = (value, revision, entry.version + 1, lease)
                    entries[key] = entry
                case .delete(let key, let end):
                    let doomed = entries.keys.filter { EtcdKeys.contains($0, from: key, to: end) }
                    if !doomed.isEmpty && !changed { revision += 1; changed = true }
                    for key in doomed { entries[key] = nil }
                }
            }
            return ranges
        }
    }

    private let state = Mutex(State())

    package init() {}

    /// How many requests (ranges and transactions) it has answered.
    package var requests: Int { state.withLock { $0.requests } }

    package func range(_ key: [UInt8], rangeEnd: [UInt8]?, limit: Int64, keysOnly: Bool, countOnly: Bool, revision: Int64) throws -> EtcdRange {
        try state.withLock { state in
            state.requests += 1
            try state.check(revision: revision)
            let found = state.range(key, rangeEnd, keysOnly: keysOnly, limit: limit)
            return countOnly ? EtcdRange(kvs: [], count: found.count, more: false, revision: found.revision) : found
        }
    }

    package func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]) throws -> EtcdTxnResult {
        // etcd's --max-txn-ops (128 by default) bounds each list of a transaction.
        guard max(compare.count, success.count, failure.count) <= 128 else {
            throw EtcdRefusal(code: 3, message: "etcdserver: too many operations in txn request").error(at: "memory")
        }
        // And its --max-request-bytes (1.5 MiB by default) each request.
        guard EtcdSuiteStorage.bytes(success) + EtcdSuiteStorage.bytes(failure) <= EtcdSuiteStorage.maxRequestBytes else {
            throw EtcdRefusal(code: 3, message: "etcdserver: request is too large").error(at: "memory")
        }
        return try state.withLock { state in
            state.requests += 1
            for case .range(_, _, _, let revision) in success + failure { try state.check(revision: revision) }
            let succeeded = compare.allSatisfy(state.holds)
            let ranges = state.apply(succeeded ? success : failure)
            return EtcdTxnResult(succeeded: succeeded, revision: state.revision, ranges: ranges)
        }
    }

    package func grantLease(ttl: Int64) throws -> Int64 {
        state.withLock { state in
            state.nextLease += 1
            state.leases.insert(state.nextLease)
            return state.nextLease
        }
    }

    package func revokeLease(_ id: Int64) throws { expire(id) }

    @discardableResult
    package func keepAlive(_ id: Int64) throws -> Int64 {
        guard state.withLock({ $0.leases.contains(id) }) else {
            throw EtcdRefusal(code: 5, message: "etcdserver: requested lease not found").error(at: "memory")
        }
        return 60
    }

    /// The leases that live (granted, not revoked nor expired).
    package var leases: [Int64] { state.withLock { $0.leases.sorted() } }

    /// Ends a lease as its TTL running out would: its keys go.
    package func expire(_ id: Int64) {
        state.withLock { state in
            state.leases.remove(id)
            let doomed = state.entries.filter { $0.value.lease == id }.map(\.key)
            if !doomed.isEmpty { state.revision += 1 }
            for key in doomed { state.entries[key] = nil }
        }
    }

    /// Every key and value, for tests that look at the data model.
    package func dump() -> [(key: String, value: [UInt8])] {
        state.withLock { state in
            state.entries.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { (String(decoding: $0.key, as: UTF8.self), $0.value.value) }
        }
    }

    /// Sets a key directly, as another etcd client would.
    package func put(_ key: String, _ value: [UInt8]) {
        _ = state.withLock { state in state.apply([.put(key: Array(key.utf8), value: value, lease: 0)]) }
    }
}
