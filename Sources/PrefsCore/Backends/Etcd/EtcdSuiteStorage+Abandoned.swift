import Glibc

/// What a change too large for one transaction leaves when its writer stops before it commits
/// (killed, or stalled past its staging lease): the keys of a generation the marker does not name,
/// which no reader reads, and the record of what it wrote (`PREFIX/.staged/PLACE`). `check`
/// reports them, `gc` removes them (`abandonedChanges`), and so does the suite's next large change
/// (it clears the generation it writes into).
extension EtcdSuiteStorage {
    /// `PREFIX/.staged/PLACE`: when a large change began, the generation it writes, and the keys
    /// and bytes it has written so far (updated with each batch, in its transaction).
    struct StagedRecord {
        var started = Int64(time(nil))
        var generation: Generation
        var keys = 0
        var bytes = 0

        init(generation: Generation) { self.generation = generation }

        /// The record a value spells; nil when it is not one.
        init?(_ value: [UInt8]?) {
            guard let value, case .dictionary(let fields)? = try? PropertyList.decode(value, as: .binary),
                  case .integer(let started)? = fields["started"], case .integer(let keys)? = fields["keys"],
                  case .integer(let bytes)? = fields["bytes"] else { return nil }
            (self.started, self.keys, self.bytes) = (started, Int(keys), Int(bytes))
            generation = fields["generation"] == .integer(2) ? .two : .one
        }

        /// Counts a batch's puts: keys and values.
        mutating func add(_ batch: [EtcdOperation]) {
            for case .put(let key, let value, _) in batch {
                keys += 1
                bytes += key.count + value.count
            }
        }

        func encoded() throws -> [UInt8] {
            let fields: PrefValue = ["started": .integer(started), "generation": .integer(generation == .one ? 1 : 2),
                                     "keys": .integer(Int64(keys)), "bytes": .integer(Int64(bytes))]
            return try PropertyList.encode(fields, as: .binary)
        }
    }

    /// The generations the marker does not name, and what was recorded of the change that wrote
    /// them, unless such a change holds the staging key now: how many keys they hold (the bytes
    /// and start as recorded; none when no record was left, by a writer from before records).
    /// With `removing`, they are deleted with the record, in one transaction that commits only if
    /// neither the marker nor the staging key moved: deletes only, which etcd takes over its quota.
    package func abandonedChanges(in location: SuiteLocation, removing: Bool) throws -> [AbandonedChange] {
        let place = try place(location)
        let marker = layout.marker(of: place), staging = layout.staging(of: place), staged = layout.staged(of: place)
        let read = try etcd.txn(success: [.range(key: marker), .range(key: staging, keysOnly: true), .range(key: staged)])
        guard read.ranges[1].kvs.isEmpty else { return [] }
        let current = read.ranges[0].kvs.first
        let kept = Generation(marker: current?.value)
        let stale = Generation.allCases.filter { $0 != .zero && $0 != kept }.map { layout.values(of: place, generation: $0) }
        let keys = try stale.reduce(0) { count, directory in
            count + Int(try etcd.range(directory, rangeEnd: EtcdClient.prefixEnd(directory), limit: 0, keysOnly: true, countOnly: true,
                                       revision: read.revision).count)
        }
        let record = StagedRecord(read.ranges[2].kvs.first?.value)
        guard keys > 0 || read.ranges[2].kvs.first != nil else { return [] }
        if removing {
            let compares: [EtcdCompare] = [.modRevision(key: marker, op: .equal, current?.modRevision ?? 0), .version(key: staging, op: .equal, 0)]
            let deletes = stale.map { EtcdOperation.delete(key: $0, rangeEnd: EtcdClient.prefixEnd($0)) } + [.delete(key: staged)]
            guard try etcd.txn(compare: compares, success: deletes).succeeded else { return [] }
        }
        return [AbandonedChange(keys: keys, bytes: record?.bytes, age: record.map { Int64(time(nil)) - $0.started })]
    }
}
