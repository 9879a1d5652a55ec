/// Where the commands of one user on this machine share `EtcdEndpointHealth` between runs: the
/// `RuntimeFile` `$XDG_RUNTIME_DIR/prefs/etcd-HASH`, HASH naming the list of endpoints (nothing is
/// kept without `$XDG_RUNTIME_DIR`, or where it is not the user's alone).
struct EtcdHealthFile: Sendable {
    let file: RuntimeFile
    var name: String { file.name }

    /// The file for `endpoints` under `runtimeDirectory` (nil when it is unset: no file).
    init?(runtimeDirectory: String?, endpoints: [EtcdEndpoint]) {
        // FNV-1a, 64 bits, of the endpoints as the URL lists them.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in endpoints.map(\.description).joined(separator: ",").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        guard let file = RuntimeFile(runtimeDirectory: runtimeDirectory, name: "etcd-" + String(hash, radix: 16)) else { return nil }
        self.file = file
    }

    /// What the file says of `endpoints`; empty health when there is no such file or it is not one.
    func load(_ endpoints: [EtcdEndpoint]) -> EtcdEndpointHealth {
        guard let bytes = file.read(limit: EtcdEndpointHealth.sizeLimit) else { return EtcdEndpointHealth() }
        return EtcdEndpointHealth(text: bytes, endpoints: endpoints) ?? EtcdEndpointHealth()
    }

    /// Replaces the file with `health`; silently not when it cannot.
    func save(_ health: EtcdEndpointHealth) { file.replace(with: Array(health.text.utf8)) }
}
