import Glibc
import Testing
@testable import PrefsCore

/// A TLS context parses its CA file, certificate and key once, in the first handshake, between
/// sending the ClientHello and reading what the server answers (the parse overlaps the server's
/// work): nothing the server sends is read before they are there, credentials that cannot be used
/// fail the first handshake at once without waiting for an answer, and a call that reaches no
/// member still says which file is at fault.
@Suite struct TLSCredentialLoadingTests {
    /// A loopback port that takes connections and says nothing unless told (`accept` gives the
    /// server's end of one).
    typealias SilentListener = EtcdFailoverTests.SilentListener

    static func accept(_ listener: SilentListener) throws -> Int32 {
        let connection = Glibc.accept(listener.fd, nil, nil)
        guard connection >= 0 else { throw TestFailure("accept: errno \(errno)") }
        return connection
    }

    static func credentials(key: [UInt8]? = nil) throws -> (TLSCredentials, TestCertificates) {
        let certificates = try TestCertificates()
        let client = certificates.client("root")
        let credentials = TLSCredentials(trusted: try Fixtures.bytes(certificates.ca), certificate: try Fixtures.bytes(client.certificate),
                                         key: try key ?? Fixtures.bytes(client.key))
        return (credentials, certificates)
    }

    /// The server's bytes are already in the socket when the handshake starts (a plain-text answer,
    /// which TLS refuses): the first step only sends the ClientHello and parses the credentials;
    /// the second reads, and fails.
    @Test func nothingTheServerSendsIsReadBeforeTheCredentials() throws {
        let (credentials, _) = try Self.credentials()
        let listener = try SilentListener()
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: listener.endpoint.port, deadline: MonotonicClock.now() + 10)
        let server = try Self.accept(listener)
        defer { close(server) }
        let answer = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
        #expect(write(server, answer, answer.count) == answer.count)
        try socket.wait(for: Int16(POLLIN), until: MonotonicClock.now() + 10, stop: nil, doing: "waiting for the answer to arrive")
        let session = try socket.beginTLS(try TLSContext(credentials), endpoint: NetworkEndpoint(host: "127.0.0.1", port: listener.endpoint.port))
        #expect(try socket.handshake(session) == Int16(POLLIN))
        #expect(throws: NetworkFailure.tlsBroken("the server does not speak TLS (wrong version number); a plain-text endpoint is etcd://")) {
            _ = try socket.handshake(session)
        }
    }

    /// A key that cannot be used ends the first step, though the server has not answered (it never
    /// will): the reason names the key, as `load` gives it.
    @Test func aKeyThatCannotBeUsedFailsTheFirstStepWithoutAnAnswer() throws {
        let (credentials, _) = try Self.credentials(key: Array("not a key\n".utf8))
        let listener = try SilentListener()
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: listener.endpoint.port, deadline: MonotonicClock.now() + 10)
        let context = try TLSContext(credentials)
        let session = try socket.beginTLS(context, endpoint: NetworkEndpoint(host: "127.0.0.1", port: listener.endpoint.port))
        #expect(throws: NetworkFailure.credentials("key file: no PEM private key in it")) { _ = try socket.handshake(session) }
        #expect(throws: TLSFailure(reason: "key file: no PEM private key in it")) { try context.load() }
    }

    /// A call that reaches no member (nothing listens) parses the credentials before it gives up:
    /// bad data in the file it names (65), not "unavailable".
    @Test func aCallThatReachesNoMemberStillNamesTheBadFile() throws {
        var (credentials, _) = try Self.credentials(key: Array("not a key\n".utf8))
        credentials.origins = (nil, nil, "PREFS_ETCD_KEY /etc/prefs/client.key")
        let client = try EtcdClient(endpoints: [try deadEndpoint()], timeout: 5, tls: credentials)
        #expect(prefsError { _ = try client.range(bytes("k")) }
                == .malformed(source: "PREFS_ETCD_KEY /etc/prefs/client.key", format: nil, reason: "no PEM private key in it"))
        credentials.origins = (nil, nil, nil)
        let unnamed = try EtcdClient(endpoints: [try deadEndpoint()], timeout: 5, tls: credentials)
        #expect(prefsError { _ = try unnamed.range(bytes("k")) }
                == .tlsRefused(endpoint: unnamed.endpointList, reason: "key file: no PEM private key in it"))
    }
}
