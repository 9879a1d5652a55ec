extension EtcdSuiteStorage {
    /// The registrations that exist: the markers under `.suites/.registered/`.
    public func registeredNames() throws -> SuiteListing {
        try markedNames(after: layout.markers + Array(".registered/".utf8), shown: name + "/.registered/", reason: "not a name prefs wrote")
    }
}
