/// Changes while etcd is over its quota (`--quota-backend-bytes`): etcd then refuses every request
/// that writes a key ("database space exceeded", 73) and takes only reads and deletes, until
/// space is freed and its alarm disarmed. A change that only deletes is still made, so that space
/// can be freed: a whole suite's removal already deletes its marker with its values; a change that
/// deletes keys of a suite that stays (`delete SUITE KEY`, `reset`) deletes the marker instead of
/// rewriting it. The deletion is the change's revision: readers see the suite before or after, in
/// one transaction as ever; watchers see the marker's event; a concurrent change, which compares
/// the marker, reads the suite again. The suite keeps its other values without a marker until its
/// next change writes one: `read` finds them, `domains` and `dump` (which list markers) do not.
/// That works once: a suite with no marker, or whose values are in generation 1 or 2 (which only
/// the marker names), can then only be deleted whole until the quota has room again.
extension EtcdSuiteStorage {
    /// Whether etcd refused a request because it is over its quota.
    static func isOverQuota(_ error: PrefsError) -> Bool {
        if case .storeRefused(_, 8, _, .cannotWrite) = error { return true }
        return false
    }

    /// `commit`, and when etcd refuses it over its quota, the same change made of deletes alone
    /// (`withoutPuts`), if it is one; whether it committed, and whether with the version it
    /// recorded (a change made of deletes alone keeps none).
    func commitEvenOverQuota(_ operations: [EtcdOperation], compares: [EtcdCompare], place: [UInt8], snapshot: Snapshot, tag: [UInt8]?,
                             location: SuiteLocation) throws -> (committed: Bool, keptVersion: Bool) {
        do {
            return (try commit(operations, compares: compares, place: place, snapshot: snapshot, tag: tag, location: location), true)
        } catch let full as PrefsError where EtcdSuiteStorage.isOverQuota(full) {
            let deletes = try withoutPuts(operations, place: place, snapshot: snapshot, location: location, refusal: full)
            return (try commit(deletes, compares: compares, place: place, snapshot: snapshot, tag: nil, location: location), false)
        }
    }

    /// A change's operations with the marker deleted instead of rewritten, when the rest only
    /// deletes, the marker exists and the values are in generation 0; else `refusal`, saying what
    /// can still be done.
    func withoutPuts(_ operations: [EtcdOperation], place: [UInt8], snapshot: Snapshot, location: SuiteLocation, refusal: PrefsError) throws -> [EtcdOperation] {
        let marker = layout.marker(of: place)
        let rest = withoutVersion(operations, place: place).filter { if case .put(marker, _, _) = $0 { return false } else { return true } }
        guard rest.allSatisfy({ if case .delete = $0 { return true } else { return false } }) else { throw refusal }
        guard snapshot.marker != nil, snapshot.generation == .zero else {
            let why = snapshot.marker == nil ? "has no marker since a change made over the quota" : "keeps its values in generation 1 or 2, which only its marker names"
            throw PrefsError.storeRefused(endpoint: describe(location), code: 8, message: "etcd is over its quota and takes only deletes, and this suite "
                + why + ": it can only be deleted whole until there is room again (see ETCD STORE in prefs(1))", status: .cannotWrite)
        }
        return rest + [.delete(key: marker)]
    }

    /// A change's operations without the put of its version (`EtcdSuiteStorage+History.swift`):
    /// over the quota a change keeps no version, and a `rollback` past it is refused (4) for the
    /// keys it changed.
    func withoutVersion(_ operations: [EtcdOperation], place: [UInt8]) -> [EtcdOperation] {
        let history = layout.history(of: place)
        return operations.filter { if case .put(let key, _, _) = $0, key.starts(with: history) { return false } else { return true } }
    }
}
