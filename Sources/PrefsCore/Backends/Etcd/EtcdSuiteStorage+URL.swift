extension StoreScheme {
    /// `etcd://HOST:PORT[,HOST:PORT…][/PREFIX]`, and `etcds://…` for TLS (`EtcdClient.parse`).
    static let etcd = StoreScheme(name: "etcd", schemes: ["etcd", "etcds"], form: EtcdClient.urlForm,
                                  check: { _ = try EtcdClient.parse(url: $0) }, open: EtcdSuiteStorage.open)
}

extension EtcdSuiteStorage {
    /// The store an etcd URL names: an `EtcdClient` with `$PREFS_ETCD_TIMEOUT` and the credentials
    /// in `$PREFS_ETCD_USER`/`$PREFS_ETCD_PASSWORD` (`etcds://`: TLS with the files
    /// `$PREFS_ETCD_CACERT`, `$PREFS_ETCD_CERT`, `$PREFS_ETCD_KEY`, read from `fileSystem`).
    static func open(url: String, fileSystem: any FileSystem, environment: Environment) throws -> any SuiteBackend {
        let (endpoints, prefix, secure) = try EtcdClient.parse(url: url)
        let (timeout, credentials) = (try environment.etcdTimeout(), try environment.etcdCredentials())
        let client: EtcdClient
        if secure {
            client = try EtcdClient(endpoints: endpoints, timeout: timeout, credentials: credentials, tls: try environment.etcdTLS(fileSystem: fileSystem),
                                    runtimeDirectory: environment.runtimeDirectory())
        } else {
            client = EtcdClient(endpoints: endpoints, timeout: timeout, credentials: credentials, runtimeDirectory: environment.runtimeDirectory())
        }
        // Joined by hand: `joined(separator:)` is the stdlib's generic version here, whose
        // associated types are looked up at run time (about 0.1 M instructions).
        var name = secure ? "etcds://" : "etcd://"
        for (i, endpoint) in endpoints.enumerated() {
            if i > 0 { name += "," }
            name += endpoint.description
        }
        name += "/" + prefix
        // `PREFIX/.managed`: the administrator's view of the managed values of the store at PREFIX.
        guard let parent = try EtcdSuiteStorage.managedParent(of: prefix) else {
            return EtcdSuiteStorage(etcd: client, prefix: prefix, name: name, environment: environment)
        }
        return EtcdSuiteStorage(etcd: client, managedValuesOf: parent, name: name, environment: environment)
    }

    /// The store whose managed values a prefix names (`PREFIX/.managed`: PREFIX); nil for any other
    /// prefix. `.managed` alone is the managed values of no store (64).
    static func managedParent(of prefix: String) throws -> String? {
        guard prefix.hasSuffix(".managed") else { return nil }
        if prefix == ".managed" {
            throw PrefsError.usage("the etcd prefix .managed names the managed values of no store; give PREFIX/.managed")
        }
        guard prefix.hasSuffix("/.managed") else { return nil }
        return String(prefix.dropLast("/.managed".count))
    }
}
