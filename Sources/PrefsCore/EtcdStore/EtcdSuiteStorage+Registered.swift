extension EtcdSuiteStorage {
    /// The registrations that exist: the markers under `.suites/.registered/` whose names a command
    /// line can give (`NSGlobalDomain` for the global suite's).
    public func registeredNames() throws -> SuiteListing {
        try markedNames(after: layout.markers + Array(".registered/".utf8), shown: name + "/.suites/.registered/") {
            (try? Domain(argument: $0))?.registrationName == $0
        }
    }
}

extension EtcdSuiteStorage {
    /// A fleet's managed values: the suite NAME (`.GlobalPreferences` for the global suite) of the
    /// store at `PREFIX/.managed`, so under `PREFIX/.managed/NAME/`. An administrator writes them
    /// with `PREFS_STORE=…/PREFIX/.managed prefs write …`; etcd's roles give users read-only access
    /// to that prefix.
    public func managedValues(for name: String) throws -> ManagedValues? {
        let managed = EtcdSuiteStorage(etcd: etcd, prefix: String(decoding: layout.prefix, as: UTF8.self) + "/.managed",
                                       name: self.name + "/.managed", environment: environment).at(revision: revision)
        let location: SuiteLocation = name == Domain.global.registrationName ? .global : .suite(name)
        guard let suite = try managed.load(location) else { return nil }
        return ManagedValues(values: suite.contents, source: managed.describe(location))
    }
}
