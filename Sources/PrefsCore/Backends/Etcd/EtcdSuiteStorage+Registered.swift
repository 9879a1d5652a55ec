extension EtcdSuiteStorage {
    /// The registrations that exist: the markers under `.suites/.registered/` whose names a command
    /// line can give (`NSGlobalDomain` for the global suite's).
    public func registeredNames() throws -> SuiteListing {
        let markers = layout.markers + Array(".registered/".utf8)
        return try markedNames(after: markers, shown: shown(markers)) {
            (try? Domain(argument: $0))?.registrationName == $0
        }
    }
}
