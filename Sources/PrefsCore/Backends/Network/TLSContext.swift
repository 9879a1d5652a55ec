import CPrefsTLS
import Glibc
import Synchronization

/// What an `etcds://` client trusts and presents, as PEM text: the certificates that may sign the
/// servers' (nil: the system's trust store), and the client's certificate chain and private key,
/// sent when a server asks for them (etcd's `--client-cert-auth`). The files are etcdctl's
/// `--cacert`, `--cert` and `--key`.
package struct TLSCredentials: Sendable {
    package var trusted: [UInt8]?
    package var certificate: [UInt8]?
    package var key: [UInt8]?
    /// Where each text came from, as an error names the file it cannot use ("PREFS_ETCD_KEY
    /// /etc/prefs/client.key"); nil: the error names none.
    package var origins: (trusted: String?, certificate: String?, key: String?) = (nil, nil, nil)

    package init(trusted: [UInt8]? = nil, certificate: [UInt8]? = nil, key: [UInt8]? = nil) {
        self.trusted = trusted
        self.certificate = certificate
        self.key = key
    }
}

/// An OpenSSL client context made from `TLSCredentials`: TLS 1.2 or later, every server's
/// certificate verified against the trusted certificates and the endpoint's name or address.
/// Made once per client; sessions are made from it for each connection. The credentials are parsed
/// by the first handshake, while the server answers its ClientHello (or by `load`): a file that
/// cannot be used fails the first connection (`NetworkFailure.credentials`), not the context.
/// With a runtime directory, each server's session is kept for the next command to resume
/// (`TLSSessionFiles`).
final class TLSContext: @unchecked Sendable {
    let raw: OpaquePointer
    let origins: (trusted: String?, certificate: String?, key: String?)
    /// Where sessions are kept for resumption; nil: nowhere, every handshake is a full one.
    let sessions: TLSSessionFiles?

    /// Throws when OpenSSL cannot make a context. With `runtimeDirectory` (`$XDG_RUNTIME_DIR`), the
    /// sessions servers give are kept there.
    init(_ credentials: TLSCredentials, runtimeDirectory: String? = nil) throws(TLSFailure) {
        var error = [CChar](repeating: 0, count: 256)
        func bytes<T>(_ value: [UInt8]?, _ body: (UnsafeRawPointer?, Int) -> T) -> T {
            guard let value else { return body(nil, 0) }
            return value.withUnsafeBytes { body($0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), $0.count) }
        }
        let made = bytes(credentials.trusted) { ca, caSize in
            bytes(credentials.certificate) { cert, certSize in
                bytes(credentials.key) { key, keySize in
                    prefs_tls_context_new(TLSLibrary.ownsProcess.load(ordering: .relaxed) ? 1 : 0, ca, caSize, cert, certSize, key, keySize,
                                          &error, error.count)
                }
            }
        }
        guard let made else { throw TLSFailure(reason: TLSFailure.text(error)) }
        raw = made
        origins = credentials.origins
        sessions = TLSSessionFiles(runtimeDirectory: runtimeDirectory, credentials: credentials)
    }

    deinit { prefs_tls_context_free(raw) }

    /// Parses the credentials, unless a handshake has: throws the reason, naming which of the three
    /// texts is at fault ("key file: the key does not match the certificate"), when one cannot be used.
    func load() throws(TLSFailure) {
        var error = [CChar](repeating: 0, count: 256)
        guard prefs_tls_context_load(raw, &error, error.count) == 1 else { throw TLSFailure(reason: TLSFailure.text(error)) }
    }

    /// The error of a command whose credentials cannot be used, for `load`'s reason: bad data (65)
    /// in the file it names, or the credentials refused (77) at `endpoints`.
    func refusal(_ reason: String, endpoints: String) -> PrefsError {
        for (lead, origin) in [("CA file: ", origins.trusted), ("certificate file: ", origins.certificate), ("key file: ", origins.key)]
        where reason.hasPrefix(lead) {
            guard let origin else { break }
            return .malformed(source: origin, format: nil, reason: String(reason.dropFirst(lead.count)))
        }
        return .tlsRefused(endpoint: endpoints, reason: reason)
    }

}

/// The TLS library `etcds://` stores use.
package enum TLSLibrary {
    /// Its name and version as it gives them ("OpenSSL 3.0.17 1 Jul 2025").
    package static var version: String { String(cString: prefs_tls_library_version()) }

    /// Set, before the first TLS store, by a program that has OpenSSL to itself (the prefs command
    /// does): OpenSSL is then set up for the whole process without what other code sharing it may
    /// rely on — openssl.cnf, error texts before the first error, the legacy table of cipher names,
    /// the clean-up at exit — which was a third of the instructions of a TLS one-key read
    /// (Sources/CPrefsTLS/setup.c). Unset, OpenSSL keeps its defaults.
    package static let ownsProcess = Atomic<Bool>(false)
}

/// Why TLS with one endpoint failed: the server's certificate was refused (unknown issuer, another
/// name, expired), the server refused ours or asked for one we do not have, it does not speak TLS,
/// or it closed the connection.
struct TLSFailure: Error, Equatable {
    let reason: String

    static func text(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { pointer in
            let bytes = UnsafeRawBufferPointer(pointer).prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// OpenSSL's reason, said so that the fix shows: the alerts of a server that refused the
    /// client's certificate or wanted one, the record-layer complaints about a server that answers
    /// in plain text, and a connection closed in the handshake (`handshake`).
    func explained(handshake: Bool) -> String {
        let refusedOurs = ["alert bad certificate", "alert certificate required", "alert handshake failure", "alert unknown ca",
                           "alert certificate expired", "alert certificate unknown", "alert access denied"]
        if refusedOurs.contains(where: reason.contains) {
            return "\(reason): the server refused the client certificate, or wants one (PREFS_ETCD_CERT and PREFS_ETCD_KEY)"
        }
        if ["wrong version number", "packet length too long", "record layer failure", "http request"].contains(where: reason.contains) {
            return "the server does not speak TLS (\(reason)); a plain-text endpoint is etcd://"
        }
        if handshake && reason.contains("unexpected eof") {
            return "the server closed the connection in the handshake (a member going away, or a server that does not speak TLS: "
                + "a plain-text endpoint is etcd://)"
        }
        return reason
    }
}

/// One TLS session over a connected non-blocking socket, driven by `TCPSocket`'s waits.
final class TLSSession {
    let raw: OpaquePointer
    /// Kept for as long as the session: its first handshake step parses the context's credentials.
    private let context: TLSContext
    private var error = [CChar](repeating: 0, count: 256)
    /// Where the endpoint's session is kept for resumption (nil: nowhere).
    private let sessionFile: RuntimeFile?
    /// When the full handshake behind the kept session offered for resumption was made (seconds
    /// since the epoch); nil: none was offered.
    private var offeredSince: Int?

    /// A session with `endpoint`, whose certificate must be for its host as written; it offers the
    /// session kept for the endpoint, if there is one.
    init(context: TLSContext, socket: Int32, endpoint: NetworkEndpoint) throws(TLSFailure) {
        guard let made = prefs_tls_session_new(context.raw, socket, endpoint.host, &error, error.count) else {
            throw TLSFailure(reason: TLSFailure.text(error))
        }
        raw = made
        self.context = context
        sessionFile = context.sessions?.file(for: endpoint)
        if let sessionFile, let kept = TLSSessionFiles.load(sessionFile),
            kept.session.withUnsafeBytes({ prefs_tls_session_resume(raw, $0.baseAddress, $0.count) }) == 1 {
            offeredSince = kept.since
        }
    }

    deinit { prefs_tls_session_free(raw) }

    /// What a step of the session asks for, or how it ended.
    enum Step {
        case done(Int)
        case wantRead
        case wantWrite
        case failed(NetworkFailure)
    }

    private func step(_ result: Int, systemError: Int32, doing: String) -> Step {
        switch result {
        case Int(PREFS_TLS_WANT_READ): return .wantRead
        case Int(PREFS_TLS_WANT_WRITE): return .wantWrite
        case Int(PREFS_TLS_CREDENTIALS): return .failed(.credentials(TLSFailure.text(error)))
        case Int(PREFS_TLS_ERROR), Int(PREFS_TLS_BROKEN):
            if systemError != 0 { return .failed(.system(doing, errno: systemError)) }
            let reason = TLSFailure(reason: TLSFailure.text(error)).explained(handshake: doing == TLSSession.handshaking)
            return .failed(result == Int(PREFS_TLS_BROKEN) ? .tlsBroken(reason) : .tls(reason))
        default: return .done(result)
        }
    }

    static let handshaking = "making the TLS handshake"

    func handshake() -> Step {
        var systemError: Int32 = 0
        let result = step(Int(prefs_tls_handshake(raw, &systemError, &error, error.count)), systemError: systemError,
                          doing: TLSSession.handshaking)
        // A kept session that ends in a failed handshake is not offered again.
        if case .failed = result, offeredSince != nil { sessionFile?.remove() }
        return result
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Step {
        var systemError: Int32 = 0
        let result = prefs_tls_read(raw, buffer.baseAddress, buffer.count, &systemError, &error, error.count)
        if prefs_tls_session_has_ticket(raw) != 0 { keepTicket() }
        return step(result, systemError: systemError, doing: "receiving the response")
    }

    /// Keeps the session the server has just given for the next command to resume, each ticket
    /// being used once (RFC 8446 advises it, and a server may refuse a ticket used before). It is
    /// dated from the full handshake behind it, this one's or the resumed session's: a session is
    /// resumed until `TLSSessionFiles.maxAge` after the handshake that checked both certificates.
    private func keepTicket() {
        guard let sessionFile else { return }
        var ticket = [UInt8](repeating: 0, count: TLSSessionFiles.sizeLimit)
        let size = ticket.withUnsafeMutableBytes { prefs_tls_session_ticket(raw, $0.baseAddress, $0.count) }
        guard size > 0 else { return }
        let since = (resumed ? offeredSince : nil) ?? TLSSessionFiles.now()
        TLSSessionFiles.save(Array(ticket.prefix(size)), since: since, to: sessionFile)
    }

    /// Whether the handshake resumed a kept session.
    var resumed: Bool { prefs_tls_session_resumed(raw) == 1 }

    func write(_ buffer: UnsafeRawBufferPointer) -> Step {
        var systemError: Int32 = 0
        let result = prefs_tls_write(raw, buffer.baseAddress, buffer.count, &systemError, &error, error.count)
        return step(result, systemError: systemError, doing: "sending the request")
    }

    var pending: Int { Int(prefs_tls_pending(raw)) }

    var version: String { String(cString: prefs_tls_session_version(raw)) }
}
