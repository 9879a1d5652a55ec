import Foundation
import Glibc
import Testing
@testable import PrefsCore

/// With a runtime directory, the session a server gives after a full handshake is kept in
/// `$XDG_RUNTIME_DIR/prefs/tls-HASH` (0600), and the connections of later commands resume it
/// instead of verifying both certificates again; other credentials or another endpoint resume
/// nothing, a session is offered for an hour at most, and one the server refuses ends in a full
/// handshake that checks the server's certificate and parses the client's credentials as it needs
/// them; each ticket is used once, the new one dated from the full handshake. Against `openssl s_server` (TLS 1.3 but in one test, requiring a client certificate), each connection
/// made with a new context, as a new command makes it.
@Suite(.blocking) struct TLSSessionResumptionTests {
    static let certificates = Result { try TestCertificates() }

    /// The test CA's credentials, the client's certificate and key among them unless `key` is given.
    static func credentials(key: [UInt8]? = nil, extraTrust: String = "") throws -> TLSCredentials {
        let certificates = try certificates.get()
        let client = certificates.client("root")
        return TLSCredentials(trusted: try Fixtures.bytes(certificates.ca) + Array(extraTrust.utf8), certificate: try Fixtures.bytes(client.certificate),
                              key: try key ?? Fixtures.bytes(client.key))
    }

    /// A server that requires a client certificate from the test CA; `other`: one whose own
    /// certificate is from a CA the client does not trust.
    static func server(other: Bool = false, options: [String] = []) async throws -> TLSServer {
        let certificates = try certificates.get()
        let own = other ? certificates.otherCAServer : certificates.server
        return try await TLSServer(certificate: own.certificate, key: own.key, options: ["-Verify", "1", "-CAfile", certificates.ca] + options)
    }

    /// A private runtime directory (0700).
    static func runtime() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let runtime = directory.file("run")
        try #require(mkdir(runtime, 0o700) == 0)
        return (directory, runtime)
    }

    /// Connects to `port` with a new context, makes the handshake, and reads the server's page
    /// (the session tickets come before it): whether the handshake resumed a kept session.
    static func fetch(_ port: UInt16, runtime: String?, credentials: TLSCredentials? = nil) throws -> Bool {
        let deadline = MonotonicClock.now() + 30
        let context = try TLSContext(try credentials ?? Self.credentials(), runtimeDirectory: runtime)
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: port, deadline: deadline)
        try socket.startTLS(context, endpoint: NetworkEndpoint(host: "127.0.0.1", port: port), deadline: deadline)
        let session = try #require(socket.tls)
        try socket.send(Array("GET / HTTP/1.0\r\n\r\n".utf8), until: deadline)
        var page: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 14)
        while !String(decoding: page, as: UTF8.self).contains("HTTP/1.0 200 ok") {
            let count = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0, until: deadline, stop: nil) }
            guard count > 0 else { throw TestFailure("the server closed before its page") }
            page += buffer[..<count]
        }
        return session.resumed
    }

    /// The file that keeps the session for `port` and `credentials`.
    static func file(_ runtime: String, _ port: UInt16, _ credentials: TLSCredentials) throws -> RuntimeFile {
        try #require(TLSSessionFiles(runtimeDirectory: runtime, credentials: credentials)).file(for: NetworkEndpoint(host: "127.0.0.1", port: port))
    }

    @Test func aFullHandshakeKeepsItsSessionAndTheNextCommandResumesIt() async throws {
        let (directory, runtime) = try Self.runtime()
        defer { withExtendedLifetime(directory) {} }
        let server = try await Self.server()
        #expect(try !Self.fetch(server.port, runtime: runtime))
        let file = try Self.file(runtime, server.port, try Self.credentials())
        let path = runtime + "/prefs/" + file.name
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime + "/prefs") == [file.name], "one file, no temporary one left")
        let kept = try #require(file.read(limit: TLSSessionFiles.sizeLimit))

        #expect(try Self.fetch(server.port, runtime: runtime), "resumed")
        let next = try #require(file.read(limit: TLSSessionFiles.sizeLimit))
        #expect(next.dropFirst(8) != kept.dropFirst(8), "the new ticket is kept: each is used once")
        #expect(next.prefix(8) == kept.prefix(8), "dated from the full handshake")
        #expect(try Self.fetch(server.port, runtime: runtime), "resumed again")
        // Without a runtime directory nothing is kept or resumed.
        #expect(try !Self.fetch(server.port, runtime: nil))
        #expect(try !Self.fetch(server.port, runtime: nil))
    }

    /// Under TLS 1.2 the server gives its session (a ticket) in the handshake itself; it is kept
    /// and resumed the same way.
    @Test func underTLS12TheSessionIsKeptAndResumedToo() async throws {
        let (directory, runtime) = try Self.runtime()
        defer { withExtendedLifetime(directory) {} }
        let server = try await Self.server(options: ["-tls1_2"])
        #expect(try !Self.fetch(server.port, runtime: runtime))
        #expect(try Self.file(runtime, server.port, try Self.credentials()).read(limit: TLSSessionFiles.sizeLimit) != nil)
        #expect(try Self.fetch(server.port, runtime: runtime))
    }

    @Test func otherCredentialsOrAnotherEndpointResumeNothing() async throws {
        let (directory, runtime) = try Self.runtime()
        defer { withExtendedLifetime(directory) {} }
        let server = try await Self.server()
        #expect(try !Self.fetch(server.port, runtime: runtime))
        #expect(try Self.fetch(server.port, runtime: runtime))
        // The same CA file with a line more: other credentials, another file.
        let other = try Self.credentials(extraTrust: "\n")
        #expect(try Self.file(runtime, server.port, other).name != Self.file(runtime, server.port, try Self.credentials()).name)
        #expect(try !Self.fetch(server.port, runtime: runtime, credentials: other))
        #expect(try Self.fetch(server.port, runtime: runtime, credentials: other))
        #expect(try Self.file(runtime, server.port &+ 1, try Self.credentials()).name != Self.file(runtime, server.port, try Self.credentials()).name)
    }

    /// An hour after its full handshake a session is no longer offered: the handshake is full, and
    /// its session replaces the old one. A file that holds no session is passed over the same way.
    @Test func aSessionPastItsHourOrNotASessionIsNotOffered() async throws {
        let (directory, runtime) = try Self.runtime()
        defer { withExtendedLifetime(directory) {} }
        let server = try await Self.server()
        #expect(try !Self.fetch(server.port, runtime: runtime))
        let file = try Self.file(runtime, server.port, try Self.credentials())
        let session = try #require(file.read(limit: TLSSessionFiles.sizeLimit)).dropFirst(8)
        let old = TLSSessionFiles.now() - TLSSessionFiles.maxAge + 60
        TLSSessionFiles.save(Array(session), since: old, to: file)
        #expect(try Self.fetch(server.port, runtime: runtime), "within the hour")
        #expect(TLSSessionFiles.load(file)?.since == old, "a resumed session's ticket keeps the time of its full handshake")
        TLSSessionFiles.save(Array(session), since: TLSSessionFiles.now() - TLSSessionFiles.maxAge, to: file)
        #expect(try !Self.fetch(server.port, runtime: runtime), "past the hour")
        #expect(try Self.fetch(server.port, runtime: runtime), "the new session")
        file.replace(with: [UInt8](repeating: 0, count: 8) + Array("not a session".utf8))
        #expect(try !Self.fetch(server.port, runtime: runtime))
        file.replace(with: Array(TLSSessionFiles.now().description.utf8))
        #expect(try !Self.fetch(server.port, runtime: runtime))
        // Times from before the epoch or far ahead: never offered, and no arithmetic overflows.
        for header: [UInt8] in [[0x80, 0, 0, 0, 0, 0, 0, 1], [0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]] {
            file.replace(with: header + session)
            #expect(try !Self.fetch(server.port, runtime: runtime))
        }
        #expect(try Self.fetch(server.port, runtime: runtime))
    }

    /// A kept session offered to a server that does not know it (another process: other ticket
    /// keys, as a restarted etcd member has) ends in a full handshake in the same connection: the
    /// server's certificate is verified (one from an unknown CA is refused, and the session is
    /// no longer kept), and the client's credentials are parsed when the server asks for them.
    @Test func aSessionTheServerRefusesEndsInAFullHandshakeThatChecksBothSides() async throws {
        let (directory, runtime) = try Self.runtime()
        defer { withExtendedLifetime(directory) {} }
        let first = try await Self.server()
        #expect(try !Self.fetch(first.port, runtime: runtime))
        let kept = try #require(try Self.file(runtime, first.port, try Self.credentials()).read(limit: TLSSessionFiles.sizeLimit))

        let second = try await Self.server()
        let planted = try Self.file(runtime, second.port, try Self.credentials())
        planted.replace(with: kept)
        #expect(try !Self.fetch(second.port, runtime: runtime), "refused, then a full handshake")
        #expect(planted.read(limit: TLSSessionFiles.sizeLimit) != kept, "the new session replaced it")
        #expect(try Self.fetch(second.port, runtime: runtime))

        let untrusted = try await Self.server(other: true)
        let offered = try Self.file(runtime, untrusted.port, try Self.credentials())
        offered.replace(with: kept)
        #expect {
            _ = try Self.fetch(untrusted.port, runtime: runtime)
        } throws: { error in
            guard case .tls(let reason) = error as? NetworkFailure else { return false }
            return reason.hasPrefix("the server's certificate was refused")
        }
        #expect(offered.read(limit: TLSSessionFiles.sizeLimit) == nil, "a session that ended in a failed handshake is not kept")

        let unusable = try Self.credentials(key: Array("not a key\n".utf8))
        let third = try await Self.server()
        try Self.file(runtime, third.port, unusable).replace(with: kept)
        #expect(throws: NetworkFailure.credentials("key file: no PEM private key in it")) {
            _ = try Self.fetch(third.port, runtime: runtime, credentials: unusable)
        }
    }
}
