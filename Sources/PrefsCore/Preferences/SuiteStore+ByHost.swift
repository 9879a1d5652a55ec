/// Host scope: `defaults`' `-currentHost` and `-host NAME`. A store seen from a host keeps its suites
/// and its global suite in that host's ByHost suites (`SuiteLocation.byHost`); files named by their
/// paths are the same on every host.
extension SuiteStore {
    /// This store as seen from `host` (a host ID; nil: any host, the usual suites).
    public func onHost(_ host: String?) throws -> SuiteStore {
        if let host {
            guard Environment.isHostID(host) else { throw PrefsError.usage("-host \(host): give \(Environment.hostIDRule)") }
            try checkKeepsByHostSuites()
        }
        var store = self
        store.host = host
        return store
    }

    /// Refuses a host (64) when this store keeps no ByHost suites: checked before the host is
    /// looked for, so the etcd store says so even on a machine with no host ID.
    public func checkKeepsByHostSuites() throws {
        guard storage.keepsByHostSuites else { throw PrefsError.usage(SuiteStore.noByHostSuites) }
    }

    static let noByHostSuites = "ByHost suites (-currentHost, -host) are kept in files only, not in this store: leave out --store and PREFS_STORE"

    /// The host's location for a suite or the global suite (any other location is itself).
    func onHost(_ location: SuiteLocation) throws -> SuiteLocation {
        guard let host else { return location }
        switch location {
        case .suite(let name): return .byHost(suite: name, host: host)
        case .global: return .byHost(suite: nil, host: host)
        case .file, .registered, .byHost, .schema, .managed: return location
        }
    }

    /// The host whose ByHost suites an application reading here sees first: the store's host, else
    /// this machine's (`Environment.hostID`); nil when there is none, or the store keeps none.
    public func readingHost() throws -> String? {
        guard storage.keepsByHostSuites else { return nil }
        return try host ?? environment.hostID(fileSystem: fileSystem)
    }
}
