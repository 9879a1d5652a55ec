/// A suite a change is for: its location, how messages name it, and where its large values go.
package struct SuiteTarget: Equatable, Sendable {
    package let location: SuiteLocation
    /// The suite (or `SUITE (registered)`), or the path.
    package let displayName: String
    /// The suite whose external storage its large values go to (a suite's name or `NSGlobalDomain`);
    /// nil for a file domain or registered defaults, whose values stay inline.
    package let blobSuite: String?
}

extension SuiteStore {
    /// The suite a domain names, for changing it.
    package func target(for domain: Domain) throws -> SuiteTarget {
        let location = try location(of: domain)
        return SuiteTarget(location: location, displayName: domain.displayName, blobSuite: storage(for: location).blobSuite(for: location))
    }

    /// The user's registered defaults for a suite, which `prefs register` changes.
    package func registrationTarget(for domain: Domain) throws -> SuiteTarget {
        try domain.checkName()
        guard let name = domain.registrationName else {
            throw PrefsError.usage("\(domain.displayName): a file has no registered defaults; name a suite")
        }
        guard host == nil else { throw PrefsError.usage("registered defaults are the same on every host; leave out -currentHost and -host") }
        return SuiteTarget(location: .registered(name), displayName: "\(domain.displayName) (registered)", blobSuite: nil)
    }

    /// Changes a domain's suite; see `update(_ target: SuiteTarget, …)`.
    @discardableResult
    package func update(_ domain: Domain, keys: KeySet? = nil, removingEmpty: Bool = false, external: ExternalOptions = ExternalOptions(),
                       _ change: (inout PrefDictionary) throws -> Void) throws -> Bool {
        try update(try target(for: domain), keys: keys, removingEmpty: removingEmpty, external: external, change)
    }

    /// Changes a suite atomically. `change` sees the stored contents (empty when there is none) and
    /// edits them; throwing from it changes nothing. Returns whether the suite changed: a change that
    /// leaves the contents equal writes nothing. With `removingEmpty`, a change that leaves the
    /// contents empty removes the suite. With `keys`, the change touches only those top-level keys and
    /// the store may hand it only them (a binary or XML file is then patched, not rewritten).
    ///
    /// No change stores an empty top-level key or a key with NUL (`checkStoredKeys`), nor a value
    /// holding the external-reference marker key (`ExternalTransaction` in a suite that keeps
    /// external values, `checkStoredKeys` elsewhere: a file domain, a ByHost suite, registered
    /// defaults, a store without external storage), nor a value that breaks the suite's schema
    /// (`checkingSchema`, as `schemaChoice` says), nor changes a managed key
    /// (`SuiteStore+Managed.swift`, 77): the schema and the managed values are found first, together
    /// (`checks(for:)`: on etcd, one request), unless given (`checks`). In a suite,
    /// `change` sees external values as their references, except those of the keys `external.reading`
    /// names, which it sees read in; values it sets go external or inline as `ExternalTransaction`
    /// decides, and blobs it orphans are removed once the new contents are committed.
    @discardableResult
    package func update(_ target: SuiteTarget, keys: KeySet? = nil, removingEmpty: Bool = false, external: ExternalOptions = ExternalOptions(),
                       checks given: ChangeChecks? = nil, _ change: (inout PrefDictionary) throws -> Void) throws -> Bool {
        let checks: ChangeChecks
        do { checks = try given ?? self.checks(for: target) } catch {
            discard(external.prewritten, place: try? blobPlace(for: target))
            throw error
        }
        let transaction: ExternalTransaction?
        do {
            transaction = try ExternalTransaction(store: self, target: target, options: external)
        } catch {
            discard(external.prewritten, place: try? blobPlace(for: target))
            throw error
        }
        do {
            try refuseManaged(keys?.sorted ?? [], in: target, managed: checks.managed)
            let changed = try withoutActuallyEscaping(change) { change in
                let guarded = SuiteStore.checkingManaged(change, name: target.displayName, managed: checks.managed)
                let keysChecked = SuiteStore.checkingKeys(guarded, name: target.displayName, refusingMarkers: SuiteStore.refusesMarkers(target, transaction))
                let checked = SuiteStore.checkingSchema(keysChecked, for: target, schema: checks.schema)
                let stored = StoredChange(
                    apply: { contents, format in
                        guard let transaction else { return try checked(&contents) }
                        try transaction.run(&contents, scope: keys, format: format, checked)
                    },
                    probe: checked,
                    willCommit: { transaction?.committing = true },
                    didCommit: { transaction?.committed() },
                    recorded: { transaction?.recorded(pruning: $0) })
                return try changing(target.location).modify(target.location, scope: keys, removingEmpty: removingEmpty, stored)
            }
            transaction?.finish(succeeded: true)
            return changed
        } catch {
            transaction?.finish(succeeded: false)
            throw error
        }
    }

    /// `change`, refusing the keys no change may store (`checkStoredKeys`); with `refusingMarkers`
    /// (a place without external storage, where no `ExternalTransaction` looks at the values), also
    /// the values holding the external-reference marker key, which no user may give anywhere.
    static func checkingKeys(_ change: @escaping (inout PrefDictionary) throws -> Void, name: String,
                             refusingMarkers: Bool) -> (inout PrefDictionary) throws -> Void {
        { contents in
            let before = contents
            try change(&contents)
            try contents.checkStoredKeys(comparedTo: before, domain: name, refusingMarkers: refusingMarkers)
        }
    }

    /// Whether a change of `target` refuses values holding the external-reference marker key itself:
    /// wherever no `ExternalTransaction` decides which references it may store — but in a schema,
    /// which describes values and holds none.
    static func refusesMarkers(_ target: SuiteTarget, _ transaction: ExternalTransaction?) -> Bool {
        if case .schema = target.location { return false }
        return transaction == nil
    }

    /// What `update` would do, for `--dry-run`: the contents before and after `change`, read without a
    /// lock and with nothing written, external values read in. Fails exactly where `update` would
    /// (a corrupt store, a value the file's format cannot hold), no more: it reads what the change
    /// would read (`SuiteBackend.load(_:scope:removingEmpty:)`: on etcd, only the keys it names,
    /// and then the contents are only those keys).
    package func preview(_ target: SuiteTarget, keys: KeySet? = nil, removingEmpty: Bool = false, external: ExternalOptions = ExternalOptions(),
                        checks given: ChangeChecks? = nil, _ change: (inout PrefDictionary) throws -> Void) throws -> (before: PrefDictionary, after: PrefDictionary) {
        let checks = try given ?? self.checks(for: target)
        try refuseManaged(keys?.sorted ?? [], in: target, managed: checks.managed)
        let options = ExternalOptions(placement: external.placement, reading: keys)
        let transaction = try ExternalTransaction(store: self, target: target, options: options, writesBlobs: false)
        return try withoutActuallyEscaping(change) { change in
            let guarded = SuiteStore.checkingManaged(change, name: target.displayName, managed: checks.managed)
            let keysChecked = SuiteStore.checkingKeys(guarded, name: target.displayName, refusingMarkers: SuiteStore.refusesMarkers(target, transaction))
            let checked = SuiteStore.checkingSchema(keysChecked, for: target, schema: checks.schema)
            let current = try storage(for: target.location).load(target.location, scope: keys, removingEmpty: removingEmpty)
            var before = current?.contents ?? PrefDictionary()
            var after = before
            if let transaction {
                try transaction.run(&after, scope: keys, format: current?.format, checked)
                before = try materializedContents(before, place: transaction.place, domain: target.displayName)
                after = try materializedContents(after, place: transaction.place, domain: target.displayName)
            } else {
                try checked(&after)
            }
            if after != before, !after.isEmpty {
                let storage = storage(for: target.location)
                try PrefsError.locating(domain: target.displayName) {
                    try storage.checkStorable(after, format: current?.format ?? storage.newDocumentFormat(for: target.location)?.forNewSuite(holding: after))
                }
            }
            return (before, after)
        }
    }
}
