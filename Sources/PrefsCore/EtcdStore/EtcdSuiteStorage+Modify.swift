/// Changing suites in etcd: read → change → one transaction that commits only if nothing the change
/// read has moved since (else read again and retry), never more than etcd takes in one transaction.
extension EtcdSuiteStorage {
    /// etcd's default limits: operations in one transaction (`--max-txn-ops`) and bytes in one request
    /// (`--max-request-bytes`).
    static let maxOperations = 128
    static let maxRequestBytes = 1_572_864

    public func modify(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool, _ change: StoredChange) throws -> Bool {
        let place = try place(location)
        // Removing an emptied suite needs all of it; otherwise a named set of keys is read alone,
        // unless reading (and comparing) them one by one would pass etcd's limit of operations.
        let keys = removingEmpty ? nil : scope.map { Array($0) }.flatMap { $0.count + 2 <= EtcdSuiteStorage.maxOperations ? $0 : nil }
        var wait = LockWait(timeout: try environment.lockTimeout())
        while true {
            let snapshot = try snapshot(place, keys: keys)
            let before = try contents(of: snapshot, place: place, location: location)
            var after = before
            try change.apply(&after, nil)
            var operations: [EtcdOperation] = []
            try PrefDictionary.zip(before, after) { old, new in
                guard old?.value != new?.value else { return }
                if let new {
                    operations.append(.put(key: layout.value(new.key, of: place), value: try PropertyList.encode(new.value, as: .binary)))
                } else if let old {
                    operations.append(.delete(key: layout.value(old.key, of: place)))
                }
            }
            guard !operations.isEmpty else { return false }
            let removesSuite = keys == nil && after.isEmpty && removingEmpty
            if keys == nil && after.isEmpty {
                let values = layout.values(of: place)
                operations = [.delete(key: values, rangeEnd: EtcdClient.prefixEnd(values))]
            }
            let nonce = EtcdSuiteStorage.newNonce()
            operations.append(removesSuite ? .delete(key: layout.marker(of: place)) : .put(key: layout.marker(of: place), value: nonce))
            try checkLimits(operations, location: location)
            change.willCommit()
            if try commit(operations, place: place, snapshot: snapshot, keys: keys, nonce: removesSuite ? nil : nonce) { return true }
            guard wait.pause() else { throw PrefsError.lockUnavailable(path: describe(location), seconds: wait.timeout) }
        }
    }

    /// Bytes that tag one commit: the suite's marker holds the tag of the change that last wrote it.
    static func newNonce() -> [UInt8] { (0..<16).map { _ in UInt8.random(in: 0...255) } }

    /// Runs a change's transaction: whether it committed. The client sends a transaction again when
    /// a connection fails before its answer (`EtcdTxnResult.resent`), so a failed compare may be its
    /// own earlier send's effect; it is then looked for, not applied a second time. A change that
    /// keeps the suite writes `nonce` into the marker: the earlier send committed when the marker's
    /// first change after the snapshot wrote it (the marker is followed back through its revisions).
    /// A removal (`nonce` nil) leaves no tag: it counts as committed when the marker the snapshot
    /// read is gone and nothing wrote it since.
    func commit(_ operations: [EtcdOperation], place: [UInt8], snapshot: Snapshot, keys: [String]?, nonce: [UInt8]?) throws -> Bool {
        let marker = layout.marker(of: place)
        let result = try etcd.txn(compare: compares(snapshot, place: place, keys: keys), success: operations, failure: [.range(key: marker)])
        if result.succeeded { return true }
        guard result.resent else { return false }
        let current = result.ranges.first?.kvs.first
        guard let nonce else { return snapshot.marker != nil && current == nil }
        let before = snapshot.marker?.modRevision ?? 0
        var found = current
        while let kv = found, kv.modRevision > before {
            if kv.value == nonce { return true }
            found = try etcd.range(marker, rangeEnd: nil, limit: 0, keysOnly: false, countOnly: false, revision: kv.modRevision - 1).kvs.first
        }
        return false
    }

    /// What must still hold for a change to commit: the suite's marker (which every change rewrites)
    /// and every key it read are as they were, and no `gc` holds the suite.
    func compares(_ snapshot: Snapshot, place: [UInt8], keys: [String]?) -> [EtcdCompare] {
        var compares: [EtcdCompare] = [
            .modRevision(key: layout.marker(of: place), op: .equal, snapshot.marker?.modRevision ?? 0),
            .version(key: layout.lock(of: place), op: .equal, 0),
        ]
        if let keys {
            let read = Dictionary(snapshot.values.map { ($0.key, $0.modRevision) }, uniquingKeysWith: { $1 })
            for key in keys {
                let etcdKey = layout.value(key, of: place)
                compares.append(.modRevision(key: etcdKey, op: .equal, read[etcdKey] ?? 0))
            }
        } else {
            // Nothing in the suite was written (nor added) since the snapshot.
            let values = layout.values(of: place)
            compares.append(.modRevision(key: values, rangeEnd: EtcdClient.prefixEnd(values), op: .less, snapshot.revision + 1))
        }
        return compares
    }

    /// A change etcd would refuse is refused here first (65, naming the limit), never half-applied.
    func checkLimits(_ operations: [EtcdOperation], location: SuiteLocation) throws {
        guard operations.count <= EtcdSuiteStorage.maxOperations else {
            throw PrefsError.invalidValue(domain: describe(location), key: nil, flag: nil, given: nil,
                reason: "this change needs \(operations.count) operations, and etcd takes at most \(EtcdSuiteStorage.maxOperations) in one transaction (its --max-txn-ops); nothing changed")
        }
        let bytes = operations.reduce(0) { total, operation in
            switch operation {
            case .put(let key, let value, _): return total + key.count + value.count + 16
            case .delete(let key, let end): return total + key.count + (end?.count ?? 0) + 16
            case .range(let key, let end, _, _): return total + key.count + (end?.count ?? 0) + 16
            }
        }
        guard bytes <= EtcdSuiteStorage.maxRequestBytes - 4096 else {
            throw PrefsError.invalidValue(domain: describe(location), key: nil, flag: nil, given: nil,
                reason: "this change writes \(bytes) bytes, and etcd takes at most 1.5 MiB in one request (its --max-request-bytes); nothing changed")
        }
    }

    public func remove(_ location: SuiteLocation) throws -> PrefDictionary? {
        let place = try place(location)
        var wait = LockWait(timeout: try environment.lockTimeout())
        while true {
            let snapshot = try snapshot(place, keys: nil)
            guard snapshot.marker != nil || !snapshot.values.isEmpty else { return nil }
            let contents = try contents(of: snapshot, place: place, location: location)
            let values = layout.values(of: place)
            let operations: [EtcdOperation] = [.delete(key: values, rangeEnd: EtcdClient.prefixEnd(values)), .delete(key: layout.marker(of: place))]
            if try commit(operations, place: place, snapshot: snapshot, keys: nil, nonce: nil) { return contents }
            guard wait.pause() else { throw PrefsError.lockUnavailable(path: describe(location), seconds: wait.timeout) }
        }
    }

    /// Holds the suite's lock key (on a lease, so a killed holder frees it) while `body` runs: every
    /// change's transaction requires it absent, so none commits meanwhile.
    public func withChangesHeld<T>(_ location: SuiteLocation, creating: Bool, _ body: () throws -> T) throws -> T {
        let lock = layout.lock(of: try place(location))
        let lease = try etcd.grantLease(ttl: 60)
        defer { try? etcd.revokeLease(lease) }
        var wait = LockWait(timeout: try environment.lockTimeout())
        while try !etcd.txn(compare: [.version(key: lock, op: .equal, 0)], success: [.put(key: lock, value: [], lease: lease)]).succeeded {
            guard wait.pause() else { throw PrefsError.lockUnavailable(path: describe(location), seconds: wait.timeout) }
        }
        return try body()
    }
}
