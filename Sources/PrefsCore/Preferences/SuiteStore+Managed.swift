/// Managed values (`SuiteStorage.managedValues(for:)`): nothing a user runs changes one. A change
/// that names a managed key, or whose result differs from what was stored at one, is refused whole
/// (`.managedKey`, 77) before anything is written; the suite's other keys stay writable.
extension SuiteStore {
    /// The managed values that bind changes of `location`, and where they are; nil when there are
    /// none. A managed file that cannot be read or parsed is an error: the policy is not known.
    func managedValues(for location: SuiteLocation) throws -> (values: PrefDictionary, source: String)? {
        guard let name = managedName(of: location), let managed = try storage.managedValues(for: name), !managed.values.isEmpty else { return nil }
        return (managed.values, managed.source)
    }

    /// The suite whose managed values bind `location` (`NSGlobalDomain` for the global suite); nil
    /// for registered defaults, schemas and files that are not a suite's.
    func managedName(of location: SuiteLocation) -> String? {
        switch location {
        case .suite(let name): return name
        case .global: return Domain.global.registrationName
        case .byHost(let suite, _): return suite ?? Domain.global.registrationName
        case .file: return files.blobSuite(for: location)
        case .registered, .schema: return nil
        }
    }

    /// Refuses a change of `target` that names a managed key among `keys`.
    func refuseManaged(_ keys: some Sequence<String>, in target: SuiteTarget,
                       managed: (values: PrefDictionary, source: String)?) throws {
        guard let managed else { return }
        for key in keys where managed.values[key] != nil {
            throw PrefsError.managedKey(domain: target.displayName, key: key, source: managed.source)
        }
    }

    /// `change`, refusing one that leaves a managed key other than it was.
    static func checkingManaged(_ change: @escaping (inout PrefDictionary) throws -> Void, name: String,
                                managed: (values: PrefDictionary, source: String)?) -> (inout PrefDictionary) throws -> Void {
        guard let managed else { return change }
        return { contents in
            let before = contents
            try change(&contents)
            for entry in managed.values where before[entry.key] != contents[entry.key] {
                throw PrefsError.managedKey(domain: name, key: entry.key, source: managed.source)
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
    /// says which suites an administrator manages.
    public func managedSources(of suites: [DumpedSuite]) throws -> [(suite: String, source: String)] {
        try suites.filter { $0.section == .suites }.compactMap { suite in
            try storage.managedValues(for: suite.name).map { (suite.name, $0.source) }
        }
    }
}
