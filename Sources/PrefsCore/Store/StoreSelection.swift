extension SuiteStore {
    /// The store a command line chose: `url` (`--store URL`), else `$PREFS_STORE` (empty counts as
    /// unset), else the files. An etcd URL gives an `EtcdSuiteStorage` over an `EtcdClient` with
    /// `$PREFS_ETCD_TIMEOUT` and the credentials in `$PREFS_ETCD_USER`/`$PREFS_ETCD_PASSWORD`;
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
                throw PrefsError.badEnvironment(name: "PREFS_STORE", value: variable, accepted: "etcd://HOST:PORT[,HOST:PORT…][/PREFIX] (\(reason))")
            }
            chosen = variable
        } else {
            return SuiteStore(storage: files, files: files)
        }
        let (endpoints, prefix) = try EtcdClient.parse(url: chosen)
        let client = EtcdClient(endpoints: endpoints, timeout: try environment.etcdTimeout(), credentials: try environment.etcdCredentials())
        let name = "etcd://" + endpoints.map(\.description).joined(separator: ",") + "/" + prefix
        return SuiteStore(storage: EtcdSuiteStorage(etcd: client, prefix: prefix, name: name, environment: environment), files: files)
    }
}
