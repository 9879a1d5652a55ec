import Glibc

/// Where the commands of one user keep the session each server last gave for resumption, so that
/// the next command's handshake resumes it instead of checking both certificates again (a TLS
/// one-key read runs 13 M instructions instead of 20 M, and the member does less): the `RuntimeFile`
/// `$XDG_RUNTIME_DIR/prefs/tls-HASH`, HASH naming the endpoint and the credentials, so that other
/// credentials (a renewed certificate, another CA file) never resume a session made with these.
/// Nothing is kept without `$XDG_RUNTIME_DIR`, or where it is not the user's alone: a session lets
/// whoever reads it act as the client, as the key file does.
///
/// A session is kept after a full handshake and resumed by the commands after it for at most
/// `maxAge` seconds, and no longer than the server allows; the server may refuse it (a restarted
/// etcd member does), and the handshake is then a full one, in the same connection, whose session
/// replaces it. A resumed handshake keeps the new ticket the server gives, with the time of the full
/// handshake behind it, so that each ticket is used once. The file holds that time (8 bytes,
/// big-endian seconds since the epoch) and the session as OpenSSL encodes it.
struct TLSSessionFiles: Sendable {
    /// An hour: then a full handshake checks both certificates again (an expired or revoked one is
    /// refused at most an hour late).
    static let maxAge = 3600
    /// A session holds the server's certificate: a few kilobytes.
    static let sizeLimit = 16 * 1024

    let runtimeDirectory: String
    /// SHA-256 of the credentials, each with its length.
    let credentials: [UInt8]

    /// Nil without a runtime directory.
    init?(runtimeDirectory: String?, credentials: TLSCredentials) {
        guard let runtimeDirectory, runtimeDirectory.hasPrefix("/") else { return nil }
        self.runtimeDirectory = runtimeDirectory
        var hasher = SHA256()
        for text in [credentials.trusted, credentials.certificate, credentials.key] {
            var length = UInt64(bigEndian: text.map { UInt64($0.count) } ?? UInt64.max)
            withUnsafeBytes(of: &length) { hasher.update($0) }
            text?.withUnsafeBytes { hasher.update($0) }
        }
        self.credentials = hasher.finish()
    }

    /// The file of `endpoint`'s session.
    func file(for endpoint: NetworkEndpoint) -> RuntimeFile {
        let name = SHA256.hash(credentials + Array(endpoint.description.utf8))
        return RuntimeFile(directory: runtimeDirectory, name: "tls-" + Hex.encode(Array(name.prefix(16))))
    }

    /// Seconds since the epoch.
    static func now() -> Int { Int(time(nil)) }

    /// The session kept in `file` and the time of its full handshake, if that was less than
    /// `maxAge` ago.
    static func load(_ file: RuntimeFile) -> (session: [UInt8], since: Int)? {
        guard let bytes = file.read(limit: sizeLimit), bytes.count > 8 else { return nil }
        let since = Int(truncatingIfNeeded: bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let now = now()
        guard since <= now, since > now - maxAge else { return nil }
        return (Array(bytes.dropFirst(8)), since)
    }

    /// Replaces `file` with `session`, made by a full handshake now (or at `since`).
    static func save(_ session: [UInt8], since: Int = now(), to file: RuntimeFile) {
        let time = UInt64(truncatingIfNeeded: since)
        file.replace(with: (0..<8).map { UInt8(truncatingIfNeeded: time >> (56 - 8 * $0)) } + session)
    }
}
