/// Changing suites in etcd: read → change → one transaction that commits only if nothing the change
/// read has moved since (else read again and retry). A change larger than etcd takes in one
/// transaction is written in batches into a new generation first (EtcdSuiteStorage+Generation.swift).
extension EtcdSuiteStorage {
    /// etcd's default limits: operations in one transaction (`--max-txn-ops`) and bytes in one request
    /// (`--max-request-bytes`).
    static let maxOperations = 128
    static let maxRequestBytes = 1_572_864

    package func modify(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool, _ change: StoredChange) throws -> Bool {
        let place = try place(location)
        var keys = EtcdSuiteStorage.keysRead(scope: scope, removingEmpty: removingEmpty)
        var wait = LockWait(timeout: try environment.lockTimeout())
        while true {
            try fence?.check()
            let snapshot = try snapshot(place, keys: keys, history: historyPrefix(location, place: place))
            let before = try contents(of: snapshot, place: place, location: location)
            var after = before
            try change.apply(&after, nil)
            guard var operations = try operations(from: before, to: after, place: place, generation: snapshot.generation) else { return false }
            let removesSuite = keys == nil && after.isEmpty && removingEmpty
            if keys == nil && after.isEmpty {
                let values = layout.values(of: place)
                operations = [.delete(key: values, rangeEnd: EtcdClient.prefixEnd(values))]
            }
            let tag = Generation.marker(tag: EtcdSuiteStorage.newNonce(), generation: snapshot.generation)
            operations.append(removesSuite ? .delete(key: layout.marker(of: place)) : .put(key: layout.marker(of: place), value: tag))
            var recording = try versionOperations(snapshot.versions, place: place, location: location, before: before, after: after, beside: operations)
            let committed: Bool
            var keptVersion = !recording.operations.isEmpty
            if fits(operations + recording.operations) {
                operations += recording.operations
                change.willCommit()
                let outcome = try commitEvenOverQuota(operations, compares: compares(snapshot, place: place, keys: keys), place: place,
                                                  snapshot: snapshot, tag: removesSuite ? nil : tag, location: location)
                committed = outcome.committed
                keptVersion = keptVersion && outcome.keptVersion
            } else if keys != nil {
                keys = nil  // the whole suite is read, to be written in a new generation
                continue
            } else {
                recording = try versionOperations(snapshot.versions, place: place, location: location, before: before, after: after, beside: [])
                committed = try commitInNewGeneration(after, place: place, snapshot: snapshot, location: location, change, recording: recording.operations)
            }
            if committed {
                if keptVersion { change.recorded(recording.pruned) }
                return true
            }
            guard wait.pause() else { throw PrefsError.lockUnavailable(path: describe(location), seconds: wait.timeout) }
        }
    }

    /// The keys a change reads (nil: the whole suite). Removing an emptied suite needs all of it;
    /// otherwise a named set of keys is read alone, unless reading (and comparing) them one by one
    /// would pass etcd's limit of operations.
    static func keysRead(scope: KeySet?, removingEmpty: Bool) -> [String]? {
        guard !removingEmpty, let keys = scope?.sorted, reads(keys: keys) <= maxOperations else { return nil }
        return keys
    }

    /// What `modify` reads before its change: the scope's keys alone where it reads only those.
    package func load(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool) throws -> StoredSuite? {
        let place = try place(location)
        let snapshot = try snapshot(place, keys: EtcdSuiteStorage.keysRead(scope: scope, removingEmpty: removingEmpty))
        guard snapshot.exists else { return nil }
        return StoredSuite(contents: try contents(of: snapshot, place: place, location: location), format: nil)
    }

    /// The puts and deletes that turn `before` into `after` in `generation`; nil when they are equal.
    func operations(from before: PrefDictionary, to after: PrefDictionary, place: [UInt8], generation: Generation) throws -> [EtcdOperation]? {
        var operations: [EtcdOperation] = []
        try PrefDictionary.zip(before, after) { old, new in
            guard old?.value != new?.value else { return }
            if let new {
                operations.append(.put(key: layout.value(new.key, of: place, generation: generation), value: try PropertyList.encode(new.value, as: .binary)))
            } else if let old {
                operations.append(.delete(key: layout.value(old.key, of: place, generation: generation)))
            }
        }
        return operations.isEmpty ? nil : operations
    }

    /// Bytes that tag one commit: the suite's marker holds the tag of the change that last wrote it.
    static func newNonce() -> [UInt8] { (0..<Generation.tagLength).map { _ in UInt8.random(in: 0...255) } }

    /// Runs a change's transaction: whether it committed. The client sends a transaction again when
    /// a connection fails before its answer (`EtcdTxnResult.resent`), so a failed compare may be its
    /// own earlier send's effect; it is then looked for, not applied a second time. A change that
    /// keeps the suite writes `tag` into the marker: the earlier send committed when the marker's
    /// first change after the snapshot wrote it (the marker is followed back through its revisions).
    /// A removal (`tag` nil) leaves no tag: it counts as committed when the marker the snapshot
    /// read is gone and nothing wrote it since. When no endpoint answers within three quarters of
    /// the timeout, `settle` finds out within the rest: an unknown outcome (76) comes when the
    /// timeout has passed, as for any request, not twice that.
    func commit(_ operations: [EtcdOperation], compares: [EtcdCompare], place: [UInt8], snapshot: Snapshot, tag: [UInt8]?,
                location: SuiteLocation) throws -> Bool {
        let marker = layout.marker(of: place)
        let (sent, timeout) = (MonotonicClock.now(), try environment.etcdTimeout())
        let result: EtcdTxnResult
        do {
            result = try etcd.txn(compare: compares, success: operations, failure: [.range(key: marker)], deadline: sent + timeout * 0.75)
        } catch let error as PrefsError where error.exitStatus == .unavailable {
            return try settle(place: place, snapshot: snapshot, tag: tag, location: location, after: error, deadline: sent + timeout)
        }
        if result.succeeded { return true }
        guard result.resent else { return false }
        return try isOwnCommit(result.ranges.first?.kvs.first, place: place, snapshot: snapshot, tag: tag)
    }

    /// Whether the marker as found (`current`) shows that the change tagged `tag` committed.
    func isOwnCommit(_ current: EtcdKeyValue?, place: [UInt8], snapshot: Snapshot, tag: [UInt8]?) throws -> Bool {
        guard let tag else { return snapshot.marker != nil && current == nil }
        let before = snapshot.marker?.modRevision ?? 0
        var found = current
        while let kv = found, kv.modRevision > before {
            if kv.value == tag { return true }
            found = try etcd.range(layout.marker(of: place), rangeEnd: nil, limit: 0, keysOnly: false, countOnly: false, revision: kv.modRevision - 1).kvs.first
        }
        return false
    }

    /// A change was sent but no answer came back from any endpoint in time (`error`): it may or may
    /// not have committed. One more transaction tells: it commits only if the marker is still as the
    /// snapshot read it, and then rewrites it (a marker that did not exist: a write of nothing, which
    /// etcd still orders after every earlier request), so the change, which compares the same marker,
    /// can never commit after it: not applied (false, to be retried). If it fails, the change
    /// committed when the marker's history holds its tag. If that transaction gets no answer either,
    /// the outcome is unknown (76): never reported as "nothing applied" (69), which scripts retry.
    func settle(place: [UInt8], snapshot: Snapshot, tag: [UInt8]?, location: SuiteLocation, after error: PrefsError, deadline: Double) throws -> Bool {
        let marker = layout.marker(of: place)
        let fence: EtcdOperation = snapshot.marker == nil
            ? .delete(key: layout.staging(of: place) + Array("/.fence".utf8))
            : .put(key: marker, value: Generation.marker(tag: EtcdSuiteStorage.newNonce(), generation: snapshot.generation))
        do {
            let result = try etcd.txn(compare: [.modRevision(key: marker, op: .equal, snapshot.marker?.modRevision ?? 0)],
                                      success: [fence], failure: [.range(key: marker)], deadline: deadline)
            if result.succeeded { return false }
            return try isOwnCommit(result.ranges.first?.kvs.first, place: place, snapshot: snapshot, tag: tag)
        } catch let again as PrefsError where again.exitStatus == .unavailable {
            throw PrefsError.outcomeUnknown(domain: describe(location), reason: EtcdSuiteStorage.reason(of: again) ?? EtcdSuiteStorage.reason(of: error) ?? "")
        } catch let full as PrefsError where EtcdSuiteStorage.isOverQuota(full) && snapshot.marker != nil {
            // Over its quota etcd takes no fence: the change committed if the marker shows it, else no one can tell.
            if try isOwnCommit(try etcd.range(marker).kvs.first, place: place, snapshot: snapshot, tag: tag) { return true }
            throw PrefsError.outcomeUnknown(domain: describe(location), reason: EtcdSuiteStorage.reason(of: error) ?? "")
        }
    }

    /// The failure an unavailable store reports, for the message of an unknown outcome.
    static func reason(of error: PrefsError) -> String? {
        switch error {
        case .unavailable(_, let reason): return reason
        case .storeRefused(let endpoint, _, let message, _): return "\(endpoint): \(message)"
        default: return nil
        }
    }

    /// What must still hold for a change to commit: the suite's marker (which every change rewrites)
    /// and every key it read are as they were, no `gc` holds the suite, and the `fence` holds.
    func compares(_ snapshot: Snapshot, place: [UInt8], keys: [String]?) -> [EtcdCompare] {
        var compares: [EtcdCompare] = [
            .modRevision(key: layout.marker(of: place), op: .equal, snapshot.marker?.modRevision ?? 0),
            .version(key: layout.lock(of: place), op: .equal, 0),
        ] + (fence?.etcdCompare.map { [$0] } ?? [])
        if let keys {
            let read = Dictionary(snapshot.values.map { ($0.key, $0.modRevision) }, uniquingKeysWith: { $1 })
            for key in keys {
                let etcdKey = layout.value(key, of: place, generation: snapshot.generation)
                compares.append(.modRevision(key: etcdKey, op: .equal, read[etcdKey] ?? 0))
            }
        } else {
            // Nothing in the suite's generation was written (nor added) since the snapshot.
            for range in layout.ranges(of: place, generation: snapshot.generation) {
                compares.append(.modRevision(key: range.start, rangeEnd: range.end, op: .less, snapshot.revision + 1))
            }
        }
        return compares
    }

    /// Whether etcd takes `operations` in one transaction: at most 128, 1.5 MiB with room to spare.
    func fits(_ operations: [EtcdOperation]) -> Bool {
        operations.count <= EtcdSuiteStorage.maxOperations && EtcdSuiteStorage.bytes(operations) <= EtcdSuiteStorage.maxRequestBytes - 4096
    }

    static func bytes(_ operations: [EtcdOperation]) -> Int {
        operations.reduce(0) { total, operation in
            switch operation {
            case .put(let key, let value, _): return total + key.count + value.count + 16
            case .delete(let key, let end): return total + key.count + (end?.count ?? 0) + 16
            case .range(let key, let end, _, _): return total + key.count + (end?.count ?? 0) + 16
            }
        }
    }

    package func remove(_ location: SuiteLocation) throws -> PrefDictionary? {
        let place = try place(location)
        var wait = LockWait(timeout: try environment.lockTimeout())
        while true {
            try fence?.check()
            let snapshot = try snapshot(place, keys: nil, history: historyPrefix(location, place: place))
            guard snapshot.exists else { return nil }
            let contents = try contents(of: snapshot, place: place, location: location)
            let values = layout.values(of: place)
            var operations: [EtcdOperation] = [.delete(key: values, rangeEnd: EtcdClient.prefixEnd(values)), .delete(key: layout.marker(of: place))]
            operations += try versionOperations(snapshot.versions, place: place, location: location, before: contents, after: [:], beside: operations).operations
            let committed: Bool
            do {
                committed = try commit(operations, compares: compares(snapshot, place: place, keys: nil), place: place, snapshot: snapshot, tag: nil,
                                       location: location)
            } catch let full as PrefsError where EtcdSuiteStorage.isOverQuota(full) {
                // Over the quota only deletes are taken: the suite goes, without a version.
                committed = try commit(withoutVersion(operations, place: place), compares: compares(snapshot, place: place, keys: nil), place: place,
                                       snapshot: snapshot, tag: nil, location: location)
            }
            if committed { return contents }
            guard wait.pause() else { throw PrefsError.lockUnavailable(path: describe(location), seconds: wait.timeout) }
        }
    }

    /// Holds the suite's lock key (on a lease, so a killed holder frees it) while `body` runs: every
    /// change's transaction requires it absent, so none commits meanwhile. Over etcd's quota,
    /// where neither a lease nor a key can be written, no change that writes can commit anyway:
    /// `body` runs unheld, and a blob it removes is removed only while the suite's marker is as it
    /// was before (`EtcdBlobStore.removalGuards`), so that a change committed meanwhile (the
    /// alarm disarmed) keeps every blob it names.
    /// Holding a suite writes its lock key on a lease.
    package var holdsChangesByReading: Bool { false }

    package func withChangesHeld<T>(_ location: SuiteLocation, creating: Bool, _ body: () throws -> T) throws -> T {
        let place = try place(location)
        let lock = layout.lock(of: place)
        let lease: Int64
        do { lease = try etcd.grantLease(ttl: 60) } catch let full as PrefsError where EtcdSuiteStorage.isOverQuota(full) {
            return try overQuota(place, body)
        }
        defer { try? etcd.revokeLease(lease) }
        var wait = LockWait(timeout: try environment.lockTimeout())
        do {
            while try !etcd.txn(compare: [.version(key: lock, op: .equal, 0)], success: [.put(key: lock, value: [], lease: lease)]).succeeded {
                guard wait.pause() else { throw PrefsError.lockUnavailable(path: describe(location), seconds: wait.timeout) }
            }
        } catch let full as PrefsError where EtcdSuiteStorage.isOverQuota(full) {
            return try overQuota(place, body)
        }
        return try body()
    }

    /// Runs `body` unheld, over etcd's quota, every blob removal guarded by the marker as it is now.
    func overQuota<T>(_ place: [UInt8], _ body: () throws -> T) throws -> T {
        let marker = layout.marker(of: place)
        let now = try etcd.range(marker).kvs.first?.modRevision ?? 0
        return try EtcdBlobStore.$removalGuards.withValue([.modRevision(key: marker, op: .equal, now)], operation: body)
    }
}
