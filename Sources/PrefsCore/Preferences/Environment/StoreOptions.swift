/// A store's settings, given in code: what the command reads from `PREFS_EXTERNAL_THRESHOLD`,
/// `PREFS_LOCK_TIMEOUT`, `PREFS_ETCD_TIMEOUT`, and the etcd credentials, TLS files and host id
/// variables, typed, so a program need not set environment variables. Given to a store
/// (`Prefs.Suite(_:options:)`, `Prefs.Suite.inMemory(_:options:)`, `SuiteStore(environment:options:)`,
/// `SuiteStore(url:environment:options:)`), they replace those variables for it: the threshold and
/// timeouts always (where not given, the default here), a credential, file or host id where it is
/// not nil (nil: the variable, if set, as `prefs` reads it). A store made without options reads the
/// variables, as `prefs` does.
///
/// ```swift
/// let suite = Prefs.Suite("com.example.app", options: StoreOptions(externalThreshold: 1 << 20, lockTimeout: 2))
/// let fleet = try SuiteStore(url: "etcds://10.0.0.5:2379/prefs", options: StoreOptions(
///     etcdCACertificate: "/etc/prefs/ca.pem", etcdCertificate: "/etc/prefs/client.pem", etcdKey: "/etc/prefs/client.key"))
/// ```
public struct StoreOptions: Sendable, Equatable {
    /// A value whose encoding would be larger than this many bytes is stored outside the property
    /// list (EXTERNAL STORAGE in prefs(1)); 0 to 1 TiB. Default 100 KiB.
    public var externalThreshold: Int
    /// How many seconds a writer waits for another's lock before giving up; 0 to 86400. Default 10.
    public var lockTimeout: Double
    /// How many seconds a networked store (etcd) waits, over every endpoint, for one to answer
    /// (`PREFS_ETCD_TIMEOUT`); 0.1 to 3600. Default 5.
    public var timeout: Double
    /// The etcd user and password (`PREFS_ETCD_USER`, `PREFS_ETCD_PASSWORD`): both or neither.
    public var etcdUser: String?
    public var etcdPassword: String?
    /// The PEM files of an `etcds://` store: the CA that signs its certificates
    /// (`PREFS_ETCD_CACERT`), and this client's certificate and key (`PREFS_ETCD_CERT`,
    /// `PREFS_ETCD_KEY`, both or neither).
    public var etcdCACertificate: String?
    public var etcdCertificate: String?
    public var etcdKey: String?
    /// The name of this machine in ByHost suites (`PREFS_HOST_ID`; default: from `/etc/machine-id`).
    public var hostID: String?

    public init(externalThreshold: Int = 100 << 10, lockTimeout: Double = 10, timeout: Double = 5,
                etcdUser: String? = nil, etcdPassword: String? = nil, etcdCACertificate: String? = nil,
                etcdCertificate: String? = nil, etcdKey: String? = nil, hostID: String? = nil) {
        self.externalThreshold = externalThreshold
        self.lockTimeout = lockTimeout
        self.timeout = timeout
        (self.etcdUser, self.etcdPassword) = (etcdUser, etcdPassword)
        (self.etcdCACertificate, self.etcdCertificate, self.etcdKey) = (etcdCACertificate, etcdCertificate, etcdKey)
        self.hostID = hostID
    }

    /// The value given in code for the variable `name`, when it is one of the credential, file and
    /// host id variables and a value was given (an empty one counts as none, as for a variable).
    func given(_ name: String) -> String? {
        let value: String?
        switch name {
        case "PREFS_ETCD_USER": value = etcdUser
        case "PREFS_ETCD_PASSWORD": value = etcdPassword
        case "PREFS_ETCD_CACERT": value = etcdCACertificate
        case "PREFS_ETCD_CERT": value = etcdCertificate
        case "PREFS_ETCD_KEY": value = etcdKey
        case "PREFS_HOST_ID": value = hostID
        default: value = nil
        }
        return value?.isEmpty == false ? value : nil
    }

    /// The given value when it is in `range`, else a usage error naming the option.
    func checked<T: Comparable>(_ value: T, _ range: ClosedRange<T>, _ name: String, _ accepted: String) throws -> T {
        guard range.contains(value) else { throw PrefsError.usage("StoreOptions.\(name) is \(value); it takes \(accepted)") }
        return value
    }
}
