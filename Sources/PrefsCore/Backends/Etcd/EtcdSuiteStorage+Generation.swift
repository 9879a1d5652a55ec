/// Changes larger than etcd takes in one transaction (128 operations, 1.5 MiB): the whole new suite
/// is written in batches into a generation readers ignore, then one small transaction makes it the
/// suite's (`EtcdLayout` describes the generations).
extension EtcdSuiteStorage {
    /// Seconds the staging key's lease lives without renewal: how long a killed writer's hold lasts.
    static let stagingTTL: Int64 = 10

    /// A change's hold of a suite's staging key: the lease it is on and the revision that created it.
    struct Stage {
        let lease: Int64
        let revision: Int64
    }

    /// Commits `after` as the whole suite in the generation after the snapshot's: takes the suite's
    /// staging key (waiting while another large change holds it) and clears that generation of what a
    /// killed writer may have left, writes every value there in batches, each one transaction that
    /// commits only while the staging key is still this change's, then commits with one transaction
    /// that compares the marker as a small change does, points it at the new generation, deletes
    /// the other generations (a range each) and releases the staging key. Readers see the old suite
    /// until then, the new one after. Whether it committed (false: something moved; read again).
    /// `recording`: the operations that record the change's version (`versionOperations`).
    func commitInNewGeneration(_ after: PrefDictionary, place: [UInt8], snapshot: Snapshot, location: SuiteLocation,
                               _ change: StoredChange, recording: [EtcdOperation] = []) throws -> Bool {
        let generation = snapshot.generation.next
        guard let stage = try takeStaging(place, generation: generation, snapshot: snapshot, location: location) else { return false }
        defer { try? etcd.revokeLease(stage.lease) }
        guard try writeBatches(after, place: place, generation: generation, stage: stage, location: location) else { return false }
        let values = layout.values(of: place), directory = layout.values(of: place, generation: generation)
        let tag = Generation.marker(tag: EtcdSuiteStorage.newNonce(), generation: generation)
        let operations: [EtcdOperation] = [
            .delete(key: values, rangeEnd: directory),
            .delete(key: EtcdClient.prefixEnd(directory), rangeEnd: EtcdClient.prefixEnd(values)),
            .put(key: layout.marker(of: place), value: tag),
            .delete(key: layout.staging(of: place)),
            .delete(key: layout.staged(of: place)),
        ] + recording
        var compares = compares(snapshot, place: place, keys: nil)
        compares.append(.createRevision(key: layout.staging(of: place), op: .equal, stage.revision))
        change.willCommit()
        return try commit(operations, compares: compares, place: place, snapshot: snapshot, tag: tag, location: location)
    }

    /// Takes the suite's staging key on a new lease, clears `generation` and records the change's
    /// start (`StagedRecord`), in one transaction that commits only if the marker is as the
    /// snapshot read it (so `generation` is not the suite's); waits while another change holds the
    /// key. Nil when the marker moved.
    func takeStaging(_ place: [UInt8], generation: Generation, snapshot: Snapshot, location: SuiteLocation) throws -> Stage? {
        let key = layout.staging(of: place), marker = layout.marker(of: place)
        let directory = layout.values(of: place, generation: generation)
        let lease = try etcd.grantLease(ttl: EtcdSuiteStorage.stagingTTL)
        var wait = LockWait(timeout: try environment.lockTimeout())
        while true {
            let result = try etcd.txn(
                compare: [.version(key: key, op: .equal, 0), .modRevision(key: marker, op: .equal, snapshot.marker?.modRevision ?? 0)],
                success: [.put(key: key, value: [], lease: lease), .delete(key: directory, rangeEnd: EtcdClient.prefixEnd(directory)),
                          .put(key: layout.staged(of: place), value: try StagedRecord(generation: generation).encoded())],
                failure: [.range(key: key), .range(key: marker)])
            if result.succeeded { return Stage(lease: lease, revision: result.revision) }
            // Sent twice, the first send may have taken it.
            if let held = result.ranges[0].kvs.first, held.lease == lease { return Stage(lease: lease, revision: held.createRevision) }
            if result.ranges[1].kvs.first?.modRevision ?? 0 != snapshot.marker?.modRevision ?? 0 {
                try? etcd.revokeLease(lease)
                return nil
            }
            guard wait.pause() else {
                try? etcd.revokeLease(lease)
                throw PrefsError.lockUnavailable(path: describe(location), seconds: wait.timeout)
            }
        }
    }

    /// Puts every value of `contents` in `generation`, as many per transaction as etcd takes, each
    /// transaction only while `stage` still holds the staging key (renewed as it goes), and with
    /// the record of what is written so far. False when the hold was lost (its lease ran out,
    /// another change took the key).
    func writeBatches(_ contents: PrefDictionary, place: [UInt8], generation: Generation, stage: Stage, location: SuiteLocation) throws -> Bool {
        let held = EtcdCompare.createRevision(key: layout.staging(of: place), op: .equal, stage.revision)
        var batch: [EtcdOperation] = [], bytes = 0
        var record = StagedRecord(generation: generation)
        var renewed = MonotonicClock.now()
        func flush() throws -> Bool {
            defer { batch = []; bytes = 0 }
            guard !batch.isEmpty else { return true }
            record.add(batch)
            let recorded = EtcdOperation.put(key: layout.staged(of: place), value: try record.encoded())
            guard try etcd.txn(compare: [held], success: batch + [recorded]).succeeded else { return false }
            if MonotonicClock.now() - renewed > Double(EtcdSuiteStorage.stagingTTL) / 4 {
                try etcd.keepAlive(stage.lease)
                renewed = MonotonicClock.now()
            }
            return true
        }
        for entry in contents {
            let operation = EtcdOperation.put(key: layout.value(entry.key, of: place, generation: generation),
                                              value: try PropertyList.encode(entry.value, as: .binary))
            let size = EtcdSuiteStorage.bytes([operation])
            guard size <= EtcdSuiteStorage.batchBytes else { throw tooLarge(entry.key, bytes: size, location: location) }
            if batch.count == EtcdSuiteStorage.maxOperations - 1 || bytes + size > EtcdSuiteStorage.batchBytes {
                guard try flush() else { return false }
            }
            batch.append(operation)
            bytes += size
        }
        return try flush()
    }

    /// The bytes of puts one batch carries: etcd's request limit, with room for the rest of the request.
    static let batchBytes = maxRequestBytes - 4096

    /// A value etcd cannot take in one request, whatever the batches (65, naming the limit).
    func tooLarge(_ key: String, bytes: Int, location: SuiteLocation) -> PrefsError {
        .invalidValue(domain: describe(location), key: key, flag: nil, given: nil,
                      reason: "this value takes \(bytes) bytes, and etcd takes at most 1.5 MiB in one request (its --max-request-bytes); nothing changed")
    }
}
