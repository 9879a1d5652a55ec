import Glibc
import Testing
@testable import PrefsCore

/// A TLS context parses its CA file, certificate and key once, in the first handshake, between
/// sending the ClientHello and reading what the server answers (the parse overlaps the server's
/// work): nothing the server sends is read before they are there, credentials that cannot be used
/// fail the first handshake at once without waiting for an answer, and a call that reaches no
/// member still says which file is at fault.
@Suite struct TLSCredentialLoadingTests {
    /// A loopback listener; `accept` gives the server's end of a connection.
    final class Listener {
        let fd: Int32
        let port: UInt16

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard ok, listen(fd, 4) == 0 else { throw TestFailure("cannot listen: errno \(errno)") }
            port = UInt16(bigEndian: address.sin_port)
        }

        func accept() throws -> Int32 {
            let connection = Glibc.accept(fd, nil, nil)
            guard connection >= 0 else { throw TestFailure("accept: errno \(errno)") }
            return connection
        }

        deinit { close(fd) }
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
        let listener = try Listener()
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: MonotonicClock.now() + 10)
        let server = try listener.accept()
        defer { close(server) }
        let answer = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
        #expect(write(server, answer, answer.count) == answer.count)
        try socket.wait(for: Int16(POLLIN), until: MonotonicClock.now() + 10, stop: nil, doing: "waiting for the answer to arrive")
        let session = try socket.beginTLS(try TLSContext(credentials), host: "127.0.0.1")
        #expect(try socket.handshake(session) == Int16(POLLIN))
        #expect(throws: NetworkFailure.tlsBroken("the server does not speak TLS (wrong version number); a plain-text endpoint is etcd://")) {
            _ = try socket.handshake(session)
        }
    }

    /// A key that cannot be used ends the first step, though the server has not answered (it never
    /// will): the reason names the key, as `load` gives it.
    @Test func aKeyThatCannotBeUsedFailsTheFirstStepWithoutAnAnswer() throws {
        let (credentials, _) = try Self.credentials(key: Array("not a key\n".utf8))
        let listener = try Listener()
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: listener.port, deadline: MonotonicClock.now() + 10)
        let context = try TLSContext(credentials)
        let session = try socket.beginTLS(context, host: "127.0.0.1")
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
