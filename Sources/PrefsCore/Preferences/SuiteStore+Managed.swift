/// Managed values: nothing a user runs changes one. A change that names a managed key, or whose
/// result differs from what was stored at one, is refused whole (`.managedKey`, 77) before anything
/// is written; the suite's other keys stay writable. The keys managed in a suite are its own managed
/// values' and the global suite's (`Layers.managedOwners`), this machine's files' and the store's.
extension SuiteStore {
    /// The managed values that bind changes of a location: each managed layer's values and where
    /// they are, highest first, those without values left out. A managed file or value that cannot
    /// be read or parsed is an error: the policy is not known.
    struct Managed: Sendable {
        var layers: [ManagedValues] = []

        /// Where the value of `key` is managed (the highest layer that has it); nil when it is not.
        func source(of key: String) -> String? {
            layers.first { $0.values[key] != nil }?.source
        }
    }

    /// The managed values that bind changes of `location`; nil when there are none. The store's own
    /// are read in one request (a change reads them with the suite's schema, `checks(for:)`).
    func managedValues(for location: SuiteLocation) throws -> Managed? {
        let places = try managedPlaces(for: location)
        let inStore = places.compactMap { if case .inStore(let location) = $0 { location } else { nil } }
        return managed(places, loaded: inStore.isEmpty ? [] : try storage.lookup("", in: [], loading: inStore).loaded)
    }

    /// Where a managed layer is: this machine's file, already read, or a place in the store.
    enum ManagedPlace {
        case file(ManagedValues)
        case inStore(SuiteLocation)
    }

    /// Where the managed values that bind `location` are, highest first: for the suite, then the
    /// global suite, the machine's file, then the store's places.
    func managedPlaces(for location: SuiteLocation) throws -> [ManagedPlace] {
        guard !storage(for: location).holdsManagedValues, let name = managedName(of: location) else { return [] }
        let directories = try administered.directories()
        var places: [ManagedPlace] = []
        for owner in Layers.managedOwners(of: name) {
            if let values = try administered.managedValues(for: owner, in: directories) { places.append(.file(values)) }
            places += try storage.managedLocations(for: owner).map { .inStore($0) }
        }
        return places
    }

    /// The managed values `places` hold, `loaded` being what the store's places hold, in order.
    func managed(_ places: [ManagedPlace], loaded: [StoredSuite?]) -> Managed? {
        var managed = Managed()
        var next = loaded.makeIterator()
        for place in places {
            switch place {
            case .file(let values):
                managed.layers.append(values)
            case .inStore(let location):
                if let contents = next.next()??.contents { managed.layers.append(ManagedValues(values: contents, source: describe(location))) }
            }
        }
        managed.layers.removeAll { $0.values.isEmpty }
        return managed.layers.isEmpty ? nil : managed
    }

    /// The suite whose managed values bind `location` (`NSGlobalDomain` for the global suite); nil
    /// for registered defaults, schemas, managed values themselves and files that are not a suite's.
    func managedName(of location: SuiteLocation) -> String? {
        switch location {
        case .suite(let name): return name
        case .global: return Domain.global.registrationName
        case .byHost(let suite, _): return suite ?? Domain.global.registrationName
        case .file: return files.blobSuite(for: location)
        case .registered, .schema, .managed: return nil
        }
    }

    /// Refuses a change of `target` that names a managed key among `keys`.
    func refuseManaged(_ keys: some Sequence<String>, in target: SuiteTarget, managed: Managed?) throws {
        guard let managed else { return }
        for key in keys {
            if let source = managed.source(of: key) { throw PrefsError.managedKey(domain: target.displayName, key: key, source: source) }
        }
    }

    /// `change`, refusing one that leaves a managed key other than it was.
    static func checkingManaged(_ change: @escaping (inout PrefDictionary) throws -> Void, name: String,
                                managed: Managed?) -> (inout PrefDictionary) throws -> Void {
        guard let managed else { return change }
        return { contents in
            let before = contents
            try change(&contents)
            for layer in managed.layers {
                for entry in layer.values where before[entry.key] != contents[entry.key] {
                    throw PrefsError.managedKey(domain: name, key: entry.key, source: managed.source(of: entry.key) ?? layer.source)
                }
            }
        }
    }

    /// Refuses removing a whole suite that stores a value for a managed key.
    func refuseRemovingManaged(_ domain: Domain) throws {
        let target = try target(for: domain)
        guard let managed = try managedValues(for: target.location), let stored = try load(at: target.location) else { return }
        try refuseManaged(stored.contents.map(\.key), in: target, managed: managed)
    }

    /// Where the managed values of the dumped suites are: `dump` holds only the user's values, and
    /// says which suites an administrator manages (the global suite's managed values, which bind
    /// every suite, are said once, for the global suite).
    package func managedSources(of suites: [DumpedSuite]) throws -> [(suite: String, source: String)] {
        guard !storage.holdsManagedValues else { return [] }
        let directories = try administered.directories()
        var sources: [(suite: String, source: String)] = []
        for suite in suites where suite.section == .suites {
            if let managed = try administered.managedValues(for: suite.name, in: directories), !managed.values.isEmpty {
                sources.append((suite.name, managed.source))
            }
            for location in try storage.managedLocations(for: suite.name) {
                if let stored = try storage.load(location), !stored.contents.isEmpty { sources.append((suite.name, describe(location))) }
            }
        }
        return sources
    }
}
