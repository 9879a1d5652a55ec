extension EtcdSuiteStorage {
    /// The registrations that exist: the markers under `.suites/.registered/` whose names a command
    /// line can give (`NSGlobalDomain` for the global suite's).
    public func registeredNames() throws -> SuiteListing {
        try markedNames(after: layout.markers + Array(".registered/".utf8), shown: name + "/.suites/.registered/") {
            (try? Domain(argument: $0))?.registrationName == $0
        }
    }
}
