/// The etcd store's history of a suite's changes: one key per version,
/// `PREFIX/.history/PLACE/NUMBER` (NUMBER in 20 decimal digits, so key order is number order), its
/// value the version as a binary property list (`SuiteVersion.stored`). A change reads the numbers
/// kept in the transaction that reads the suite, and writes its version and deletes the oldest
/// beyond the count kept in the transaction that commits it (two operations more): the history is
/// exactly the changes that committed, whatever etcd compacts. A version whose values would not fit
/// that transaction (etcd's 128 operations and 1.5 MiB) is kept without them: listed, not undone.
extension EtcdLayout {
    func history(of place: [UInt8]) -> [UInt8] { join(Array(".history".utf8), place) + [0x2F] }

    /// `NUMBER` in 20 digits, then `x` when the version names an external value (so a change that
    /// prunes it knows, from the keys alone, to read it and let its blobs go).
    func version(_ number: Int64, of place: [UInt8], namingBlobs: Bool = false) -> [UInt8] {
        let digits = Array(String(number).utf8)
        return history(of: place) + [UInt8](repeating: 0x30, count: max(0, 20 - digits.count)) + digits + (namingBlobs ? [0x78] : [])
    }
}

/// What records a change's version: the operations, and the versions it prunes that name blobs
/// (read before the change commits: a version is never rewritten).
struct VersionRecording {
    var operations: [EtcdOperation] = []
    var pruned: [SuiteVersion] = []
}

extension EtcdSuiteStorage {
    package func recordingVersions(_ stamp: VersionStamp) -> any SuiteBackend {
        var recording = self
        recording.versioning = stamp
        return recording
    }

    package func versions(of location: SuiteLocation) throws -> [SuiteVersion]? { try versions(of: location, after: 0) }

    /// One range from the first number above `number` (key order is number order).
    package func versions(of location: SuiteLocation, after number: Int64) throws -> [SuiteVersion]? {
        guard location.keepsHistory else { return nil }
        let place = try place(location)
        let prefix = layout.history(of: place)
        let start = number < 1 ? prefix : layout.version(number + 1, of: place)
        return try etcd.range(start, rangeEnd: EtcdClient.prefixEnd(prefix)).kvs.map { kv in
            guard let version = SuiteVersion(encoded: kv.value) else {
                throw PrefsError.malformed(source: describe(location), format: nil, reason: "etcd key \(ByteText.escaped(kv.key)) is not a version prefs wrote")
            }
            return version
        }.sorted { $0.number < $1.number }
    }

    /// The history a change of `location` reads and writes (nil: it records none).
    func historyPrefix(_ location: SuiteLocation, place: [UInt8]) -> [UInt8]? {
        guard let versioning, versioning.keep > 0 || versioning.expectedHead != nil, location.keepsHistory else { return nil }
        return layout.history(of: place)
    }

    /// The versions kept, from a keys-only range over the history: each one's number, and whether it
    /// names an external value.
    func versionNumbers(_ range: EtcdRange, prefix: [UInt8]) -> [(number: Int64, namesBlobs: Bool)] {
        range.kvs.compactMap { kv -> (Int64, Bool)? in
            let rest = kv.key.dropFirst(prefix.count)
            guard let number = Int64(String(decoding: rest.prefix(20), as: UTF8.self)) else { return nil }
            return (number, rest.count > 20)
        }.sorted { $0.0 < $1.0 }
    }

    /// What records the change from `before` to `after` beside `operations` (the change's own): its
    /// version with the values when all of it fits one transaction, else without them; the oldest
    /// versions beyond the count kept deleted (one operation each: usually one). Checks the newest version against the
    /// one a `rollback` expects (4). Nothing when no version is recorded.
    func versionOperations(_ kept: [(number: Int64, namesBlobs: Bool)]?, place: [UInt8], location: SuiteLocation, before: PrefDictionary,
                           after: PrefDictionary, beside operations: [EtcdOperation]) throws -> VersionRecording {
        guard let kept, let stamp = versioning else { return VersionRecording() }
        try stamp.checkHead(kept.last?.number ?? 0, domain: describe(location))
        let number = (kept.last?.number ?? 0) + 1
        guard stamp.keep > 0, let version = stamp.version(number, from: before, to: after) else { return VersionRecording() }
        var recording = VersionRecording()
        let drop = kept.count + 1 - stamp.keep
        for pruned in kept.prefix(max(0, drop)) {
            let key = layout.version(pruned.number, of: place, namingBlobs: pruned.namesBlobs)
            recording.operations.append(.delete(key: key))
            if pruned.namesBlobs, let value = try etcd.range(key).kvs.first?.value, let version = SuiteVersion(encoded: value) {
                recording.pruned.append(version)
            }
        }
        let whole = recording.operations + [.put(key: layout.version(number, of: place, namingBlobs: !version.references.isEmpty), value: try version.encoded())]
        guard !fits(operations + whole) else {
            recording.operations = whole
            return recording
        }
        var bare = version
        bare.changes = nil
        recording.operations.append(.put(key: layout.version(number, of: place), value: try bare.encoded()))
        return recording
    }
}
