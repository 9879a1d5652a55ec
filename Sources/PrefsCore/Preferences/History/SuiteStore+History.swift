/// A suite's history (`prefs history`, `diff`, `rollback`): every change of a suite or the global
/// suite records a version in the same step as it commits (`SuiteBackend.recordingVersions`), the
/// newest `PREFS_HISTORY` (10) kept. Versions are deltas of the stored contents, so undoing them
/// needs nothing else, and a value comes back byte for byte as it was stored.
extension SuiteStore {
    /// The store a change of `location` goes through: recording its version, unless `PREFS_HISTORY`
    /// is 0 or the place keeps no history.
    func changing(_ location: SuiteLocation) throws -> any SuiteBackend {
        let storage = storage(for: location)
        guard !location.isFile, host == nil else { return storage }
        let keep = try environment.historyLength()
        guard keep > 0 || expectedVersion != nil else { return storage }
        return storage.recordingVersions(VersionStamp(verb: changeVerb, keep: keep, expectedHead: expectedVersion))
    }

    /// Whether changes of `location` record versions, which then name the blobs the changes drop.
    func keepsVersions(_ location: SuiteLocation) throws -> Bool {
        try location.keepsHistory && host == nil && environment.historyLength() > 0
    }

    /// The blobs (`KEYDIR/UUID`) a location's stored contents (expired values too) and its kept
    /// versions name.
    func blobsNamed(at location: SuiteLocation) throws -> Set<String> {
        try blobsNamedByVersions(location).union(ExternalReference.blobIDs(in: ExpiringStorage.unwrapped(storage(for: location)).load(location)?.contents ?? [:]))
    }

    /// The blobs (`KEYDIR/UUID`) the kept versions of a location name, which `gc` keeps and `check`
    /// does not count as orphans.
    func blobsNamedByVersions(_ location: SuiteLocation) throws -> Set<String> {
        Set(try (storage(for: location).versions(of: location) ?? []).flatMap(\.references).map(\.blobID))
    }

    /// The versions kept of a domain's suite, oldest first (none when it has none). A store without
    /// history, a file and a ByHost suite are refused (64).
    package func versions(of domain: Domain) throws -> [SuiteVersion] {
        let location = try location(of: domain)
        guard !location.isFile, host == nil else {
            throw PrefsError.usage("\(domain.displayName): only suites and the global suite of a store keep a history (not files or ByHost suites)")
        }
        guard let versions = try storage(for: location).versions(of: location) else { throw PrefsError.usage(SuiteStore.keepsNoHistory(domain)) }
        return versions
    }

    /// Why `history`, `diff` and `rollback` are refused (64) on a store that keeps no history.
    static func keepsNoHistory(_ domain: Domain) -> String {
        "\(domain.displayName): this store does not keep a history of changes"
    }

    /// What changed from the suite as version `from` left it to the suite as version `to` left it
    /// (nil: the newest), key by key, sorted by key; either may be the older. Fails (1) for a version
    /// not kept, (65) for one between them kept without its values.
    package func difference(in domain: Domain, from: Int64, to: Int64?) throws -> [KeyChange] {
        let versions = try versions(of: domain)
        return try SuiteStore.difference(versions, from: from, to: to ?? versions.last?.number ?? 0, domain: domain.displayName)
    }

    static func difference(_ versions: [SuiteVersion], from: Int64, to: Int64, domain: String) throws -> [KeyChange] {
        for number in [from, to] where !versions.contains(where: { $0.number == number }) {
            throw PrefsError.versionNotFound(domain: domain, version: number,
                                             kept: versions.isEmpty ? "none" : "\(versions[0].number) to \(versions[versions.count - 1].number)")
        }
        let (low, high) = (min(from, to), max(from, to))
        // Per key (by its bytes), the value before the first version in the range that changed it
        // and after the last.
        var order: [String] = []
        var first: [[UInt8]: PrefValue?] = [:], last: [[UInt8]: PrefValue?] = [:]
        for version in versions where version.number > low && version.number <= high {
            guard let keyChanges = version.changes else {
                throw PrefsError.invalidValue(domain: domain, key: nil, flag: nil, given: String(version.number),
                                              reason: "version \(version.number) was too large to keep its values, so the suite before it cannot be told")
            }
            for change in keyChanges {
                let bytes = Array(change.key.utf8)
                if first[bytes] == nil {
                    first[bytes] = .some(change.old)
                    order.append(change.key)
                }
                last[bytes] = .some(change.new)
            }
        }
        return order.compactMap { key -> KeyChange? in
            let bytes = Array(key.utf8)
            let (old, new) = from <= to ? (first[bytes]!, last[bytes]!) : (last[bytes]!, first[bytes]!)
            return old == new ? nil : KeyChange(key: key, old: old, new: new)
        }.sorted { $0.key.utf8Compare($1.key) < 0 }
    }

    /// Puts a domain's suite back as version `number` left it, as a new version (verb `rollback`):
    /// every key the later versions changed gets the value it had then. A compare-and-swap: when
    /// the suite has a newer version than the one read here, or a key to put back no longer holds
    /// the value its newest version gave it (a change that kept no version), nothing changes (4).
    /// With `dryRun`, what would change. External values come back as the references they were
    /// (their blobs are kept while a version names them).
    package func rollback(_ domain: Domain, to number: Int64, dryRun: Bool) throws -> ChangeOutcome {
        let versions = try versions(of: domain)
        let head = versions.last?.number ?? 0
        let changes = try SuiteStore.difference(versions, from: head, to: number, domain: domain.displayName)
        if dryRun { return ChangeOutcome(changed: !changes.isEmpty, report: changes) }
        guard !changes.isEmpty else { return ChangeOutcome(changed: false) }
        let target = try target(for: domain)
        try refuseManaged(changes.map(\.key), in: target, managed: try managedValues(for: target.location))
        var store = self
        store.changeVerb = "rollback"
        store.expectedVersion = head
        let storage = ExpiringStorage.unwrapped(try store.changing(target.location))
        let putBack: (inout PrefDictionary) throws -> Void = { contents in
            for change in changes {
                guard contents[change.key] == change.old else {
                    throw PrefsError.versionConflict(domain: domain.displayName,
                        reason: "\(change.key) changed without a version since version \(head); nothing changed")
                }
                contents[change.key] = change.new
            }
        }
        let stored = StoredChange(apply: { contents, _ in try putBack(&contents) }, probe: putBack)
        let changed = try storage.modify(target.location, scope: KeySet(changes.map(\.key)), removingEmpty: true, stored)
        return ChangeOutcome(changed: changed)
    }
}
