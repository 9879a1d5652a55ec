/// The etcd store's history of a suite's changes: one key per version,
/// `PREFIX/.history/PLACE/NUMBER` (NUMBER in 20 decimal digits, so key order is number order), its
/// value the version as a binary property list (`SuiteVersion.stored`). A change reads the numbers
/// kept in the transaction that reads the suite, and writes its version and deletes the oldest
/// beyond the count kept in the transaction that commits it (two operations more): the history is
/// exactly the changes that committed, whatever etcd compacts. A version whose values would not fit
/// that transaction (etcd's 128 operations and 1.5 MiB) is kept without them: listed, not undone.
extension EtcdLayout {
    func history(of place: [UInt8]) -> [UInt8] { join(Array(".history".utf8), place) + [0x2F] }

    func version(_ number: Int64, of place: [UInt8]) -> [UInt8] {
        let digits = Array(String(number).utf8)
        return history(of: place) + [UInt8](repeating: 0x30, count: max(0, 20 - digits.count)) + digits
    }
}

extension EtcdSuiteStorage {
    package func recordingVersions(_ stamp: VersionStamp) -> any SuiteStorage {
        var recording = self
        recording.versioning = stamp
        return recording
    }

    /// Whether a location keeps a history: suites and the global suite.
    static func hasHistory(_ location: SuiteLocation) -> Bool {
        switch location {
        case .suite, .global: return true
        default: return false
        }
    }

    package func versions(of location: SuiteLocation) throws -> [SuiteVersion]? {
        guard EtcdSuiteStorage.hasHistory(location) else { return nil }
        let prefix = layout.history(of: try place(location))
        return try etcd.range(prefix, rangeEnd: EtcdClient.prefixEnd(prefix)).kvs.map { kv in
            guard let version = SuiteVersion(encoded: kv.value) else {
                throw PrefsError.malformed(source: describe(location), format: nil, reason: "etcd key \(ByteText.escaped(kv.key)) is not a version prefs wrote")
            }
            return version
        }.sorted { $0.number < $1.number }
    }

    /// The history a change of `location` reads and writes (nil: it records none).
    func historyPrefix(_ location: SuiteLocation, place: [UInt8]) -> [UInt8]? {
        guard let versioning, versioning.keep > 0 || versioning.expectedHead != nil, EtcdSuiteStorage.hasHistory(location) else { return nil }
        return layout.history(of: place)
    }

    /// The numbers of the versions kept, from a keys-only range over the history.
    func versionNumbers(_ range: EtcdRange, prefix: [UInt8]) -> [Int64] {
        range.kvs.compactMap { kv in Int64(String(decoding: kv.key.dropFirst(prefix.count), as: UTF8.self)) }.sorted()
    }

    /// What records the change from `before` to `after` beside `operations` (the change's own): its
    /// version with the values when all of it fits one transaction, else without them; the oldest
    /// versions beyond the count kept deleted (one range). Checks the newest version against the
    /// one a `rollback` expects (4). Nothing when no version is recorded.
    func versionOperations(_ numbers: [Int64]?, place: [UInt8], location: SuiteLocation, before: PrefDictionary, after: PrefDictionary,
                           beside operations: [EtcdOperation]) throws -> [EtcdOperation] {
        guard let numbers, let stamp = versioning else { return [] }
        try stamp.checkHead(numbers.last ?? 0, domain: describe(location))
        let number = (numbers.last ?? 0) + 1
        guard stamp.keep > 0, let version = stamp.version(number, from: before, to: after) else { return [] }
        var recording: [EtcdOperation] = []
        let drop = numbers.count + 1 - stamp.keep
        if drop > 0 {
            let oldestKept = drop < numbers.count ? numbers[drop] : number
            recording.append(.delete(key: layout.history(of: place), rangeEnd: layout.version(oldestKept, of: place)))
        }
        let whole = recording + [.put(key: layout.version(number, of: place), value: try version.encoded())]
        if fits(operations + whole) { return whole }
        var bare = version
        bare.changes = nil
        return recording + [.put(key: layout.version(number, of: place), value: try bare.encoded())]
    }
}
