extension SuiteStore {
    /// The store a command line chose: `url` (`--store URL`), else `$PREFS_STORE` (empty counts as
    /// unset), else the files. An etcd URL gives an `EtcdSuiteStorage` over an `EtcdClient` with
    /// `$PREFS_ETCD_TIMEOUT` and the credentials in `$PREFS_ETCD_USER`/`$PREFS_ETCD_PASSWORD`
    /// (`etcds://`: TLS with the files `$PREFS_ETCD_CACERT`, `$PREFS_ETCD_CERT`, `$PREFS_ETCD_KEY`);
    /// files named by their paths stay on `fileSystem` either way. A bad URL is a usage error
    /// (64) naming it, before anything is contacted.
    public static func selected(url: String?, fileSystem: any FileSystem, environment: Environment) throws -> SuiteStore {
        let files = FileSuiteStorage(fileSystem: fileSystem, environment: environment)
        let chosen: String
        if let url {
            chosen = url
        } else if let variable = try environment["PREFS_STORE"] {
            do {
                _ = try EtcdClient.parse(url: variable)
            } catch PrefsError.usage(let reason) {
                throw PrefsError.badEnvironment(name: "PREFS_STORE", value: variable, accepted: "etcd://HOST:PORT[,HOST:PORT…][/PREFIX] or etcds://… (\(reason))")
            }
            chosen = variable
        } else {
            return SuiteStore(storage: files, files: files)
        }
        let (endpoints, prefix, secure) = try EtcdClient.parse(url: chosen)
        let (timeout, credentials) = (try environment.etcdTimeout(), try environment.etcdCredentials())
        let client: EtcdClient
        if secure {
            let tls = try environment.etcdTLS(fileSystem: fileSystem)
            do {
                client = try EtcdClient(endpoints: endpoints, timeout: timeout, credentials: credentials, tls: tls)
            } catch PrefsError.tlsRefused(let endpoints, let reason) {
                // A file that holds no PEM certificate, a key that is not the certificate's: 65 naming it.
                guard let (variable, detail) = Environment.tlsVariable(of: reason) else { throw PrefsError.tlsRefused(endpoint: endpoints, reason: reason) }
                throw PrefsError.malformed(source: "\(variable) \(try environment[variable] ?? "")", format: nil, reason: detail)
            }
        } else {
            client = EtcdClient(endpoints: endpoints, timeout: timeout, credentials: credentials)
        }
        let name = (secure ? "etcds://" : "etcd://") + endpoints.map(\.description).joined(separator: ",") + "/" + prefix
        return SuiteStore(storage: EtcdSuiteStorage(etcd: client, prefix: prefix, name: name, environment: environment), files: files)
    }
}
