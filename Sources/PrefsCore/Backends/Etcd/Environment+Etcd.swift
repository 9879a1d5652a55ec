/// The etcd store's settings: `PREFS_ETCD_*`, or the `StoreOptions` given in code.
extension Environment {
    /// `$PREFS_ETCD_TIMEOUT` (or `StoreOptions.timeout`): how many seconds an etcd store waits, over every endpoint, for one to
    /// answer before giving up with 69; a decimal number from 0.1 to 3600 (default 5).
    package func etcdTimeout() throws -> Double {
        if let options { return try options.checked(options.timeout, 0.1...3600, "timeout", "0.1 to 3600 seconds") }
        guard let text = try self["PREFS_ETCD_TIMEOUT"] else { return 5 }
        guard let seconds = Environment.decimal(text), seconds >= 0.1, seconds <= 3600 else {
            throw PrefsError.badEnvironment(name: "PREFS_ETCD_TIMEOUT", value: text, accepted: "a number of seconds from 0.1 to 3600")
        }
        return seconds
    }

    /// `$PREFS_ETCD_USER` and `$PREFS_ETCD_PASSWORD`: etcd credentials, both or neither.
    package func etcdCredentials() throws -> (user: String, password: String)? {
        switch (try self["PREFS_ETCD_USER"], try self["PREFS_ETCD_PASSWORD"]) {
        case (nil, nil): return nil
        case (let user?, let password?): return (user, password)
        case (nil, _?): throw refused("PREFS_ETCD_USER", value: "", accepted: "a user name with \(settingName("PREFS_ETCD_PASSWORD"))")
        case (_?, nil): throw refused("PREFS_ETCD_PASSWORD", value: "", accepted: "a password with \(settingName("PREFS_ETCD_USER"))")
        }
    }

    /// The most a certificate or key file may hold: a system's whole trust store is about 200 KiB.
    static let pemFileLimit = 4 << 20

    /// `$PREFS_ETCD_CACERT`, `$PREFS_ETCD_CERT` and `$PREFS_ETCD_KEY`, read from `fileSystem`: PEM
    /// files, as etcdctl's `--cacert`, `--cert` and `--key`. Without a CA file the system's trust
    /// store is used; a certificate needs its key and a key its certificate (64 naming the one
    /// missing). A file that is missing is 66, unreadable 74; one that is not a regular file is 65
    /// before it is opened (a FIFO with no writer would hang the command, a device never ends), and
    /// so is one larger than `pemFileLimit`.
    package func etcdTLS(fileSystem: any FileSystem) throws -> TLSCredentials {
        let (ca, certificate, key) = (try self["PREFS_ETCD_CACERT"], try self["PREFS_ETCD_CERT"], try self["PREFS_ETCD_KEY"])
        switch (certificate, key) {
        case (nil, _?): throw refused("PREFS_ETCD_CERT", value: "", accepted: "the client certificate of \(settingName("PREFS_ETCD_KEY"))")
        case (_?, nil): throw refused("PREFS_ETCD_KEY", value: "", accepted: "the private key of \(settingName("PREFS_ETCD_CERT"))")
        default: break
        }
        func read(_ path: String?, _ variable: String) throws -> [UInt8]? {
            guard let path else { return nil }
            guard let status = try fileSystem.status(of: path) else { throw PrefsError.fileNotFound(path: path) }
            if status.isSpecial {
                throw PrefsError.malformed(source: "\(variable) \(path)", format: nil, reason: "not a regular file (a FIFO, a device or a socket); give a PEM file")
            }
            let bytes = try fileSystem.contents(of: path, atMost: Environment.pemFileLimit)
            guard bytes.count <= Environment.pemFileLimit else {
                throw PrefsError.malformed(source: path, format: nil, reason: "larger than \(Environment.pemFileLimit) bytes; not a PEM file")
            }
            return bytes
        }
        var credentials = TLSCredentials(trusted: try read(ca, settingName("PREFS_ETCD_CACERT")),
                                         certificate: try read(certificate, settingName("PREFS_ETCD_CERT")), key: try read(key, settingName("PREFS_ETCD_KEY")))
        // A file that holds no PEM certificate, a key that is not the certificate's: 65 naming it.
        func origin(_ variable: String, _ path: String?) -> String? { path.map { "\(settingName(variable)) \($0)" } }
        credentials.origins = (origin("PREFS_ETCD_CACERT", ca), origin("PREFS_ETCD_CERT", certificate), origin("PREFS_ETCD_KEY", key))
        return credentials
    }
}
