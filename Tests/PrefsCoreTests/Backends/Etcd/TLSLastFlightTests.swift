import Glibc
import Testing
@testable import PrefsCore

/// Under TLS 1.3 the client's last handshake flight (its Finished) is held until the first request
/// and leaves with it, in one segment, so that the server wakes once for both; under TLS 1.2, whose
/// server answers the client's Finished before the client may send anything, it leaves at once.
/// Against `openssl s_server`, the first through a relay of the test's that sees each read.
@Suite(.blocking) struct TLSLastFlightTests {
    static let certificates = Result { try TestCertificates() }

    static func context() throws -> TLSContext {
        try TLSContext(TLSCredentials(trusted: try Fixtures.bytes(try certificates.get().ca)))
    }

    /// What `fd` holds now, in one read, without waiting; nil when nothing.
    static func available(_ fd: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count > 0 ? Array(buffer[..<count]) : nil
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if errno == EAGAIN {
                var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
                _ = poll(&fds, 1, 100)
            } else {
                throw TestFailure("send: errno \(errno)")
            }
        }
    }

    /// The content types of the TLS records `bytes` holds whole (20 ChangeCipherSpec, 22 handshake,
    /// 23 application data: under TLS 1.3, everything encrypted).
    static func recordTypes(_ bytes: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        var at = 0
        while at + 5 <= bytes.count {
            types.append(bytes[at])
            at += 5 + Int(bytes[at + 3]) << 8 + Int(bytes[at + 4])
        }
        return at == bytes.count ? types : types + [0]
    }

    /// A client's socket, its TLS 1.3 handshake with `server` complete through a relay of the
    /// test's (`relay`, the relay's end facing the client; `upstream`, its end facing the server),
    /// each side's bytes relayed as they come; what the client sent meanwhile.
    struct Relayed {
        let socket: TCPSocket, session: TLSSession, relay: Int32, upstream: TCPSocket
        let sentInHandshake: [UInt8]
    }

    /// `smallBuffers`: the client's socket sends, and the relay's receives, at most about 4 KB at a
    /// time (the relay's from the start, so that the window it offers stays small).
    static func relayedHandshake(with server: TLSServer, until deadline: Double, smallBuffers: Bool = false) throws -> Relayed {
        let listener = try EtcdFailoverTests.SilentListener()
        var small: Int32 = 4096
        if smallBuffers { setsockopt(listener.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size)) }
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: listener.endpoint.port, deadline: deadline)
        if smallBuffers { socket.setOption(SOL_SOCKET, SO_SNDBUF, small) }
        let relay = Glibc.accept(listener.fd, nil, nil)
        guard relay >= 0 else { throw TestFailure("accept: errno \(errno)") }
        let upstream = try TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: deadline)
        let session = try socket.beginTLS(try Self.context(), endpoint: NetworkEndpoint(host: "127.0.0.1", port: server.port))
        var sent: [UInt8] = []
        while let events = try socket.handshake(session) {
            while true {
                if let bytes = Self.available(relay) {
                    sent += bytes
                    try Self.sendAll(upstream.raw, bytes)
                }
                if let bytes = Self.available(upstream.raw) { try Self.sendAll(relay, bytes) }
                var fds = [pollfd(fd: socket.raw, events: events, revents: 0)]
                if poll(&fds, 1, 5) > 0 { break }
                guard MonotonicClock.now() < deadline else { throw TestFailure("the handshake did not end") }
            }
        }
        return Relayed(socket: socket, session: session, relay: relay, upstream: upstream, sentInHandshake: sent)
    }

    @Test func underTLS13TheFinishedLeavesWithTheRequest() async throws {
        let certificates = try Self.certificates.get()
        let server = try await TLSServer(certificate: certificates.server.certificate, key: certificates.server.key)
        let deadline = MonotonicClock.now() + 30
        let relayed = try Self.relayedHandshake(with: server, until: deadline)
        let (socket, session, relay, upstream) = (relayed.socket, relayed.session, relayed.relay, relayed.upstream)
        defer { close(relay) }
        #expect(session.version == "TLSv1.3")
        // Complete, and all the client has sent is its ClientHello: the Finished waits.
        #expect(Self.recordTypes(relayed.sentInHandshake) == [22])
        #expect(Self.available(relay) == nil)

        // The request: one read takes the ChangeCipherSpec, the Finished and the request.
        try socket.send(Array("GET / HTTP/1.0\r\n\r\n".utf8), until: deadline)
        var fds = [pollfd(fd: relay, events: Int16(POLLIN), revents: 0)]
        #expect(poll(&fds, 1, 10_000) == 1)
        let flight = try #require(Self.available(relay))
        #expect(Self.recordTypes(flight) == [20, 23, 23])
        try Self.sendAll(upstream.raw, flight)

        // The server took them: its page comes back.
        var page: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 14)
        reading: while !String(decoding: page, as: UTF8.self).contains("HTTP/1.0 200 ok") {
            guard MonotonicClock.now() < deadline else { throw TestFailure("no page: \(String(decoding: page, as: UTF8.self))") }
            if let bytes = Self.available(upstream.raw) { try Self.sendAll(relay, bytes) } else { usleep(1000) }
            switch buffer.withUnsafeMutableBytes({ session.read(into: $0) }) {
            case .done(let count):
                if count == 0 { break reading }
                page += buffer[..<count]
            case .wantRead, .wantWrite: continue
            case .failed(let failure): throw failure
            }
        }
        #expect(String(decoding: page, as: UTF8.self).hasPrefix("HTTP/1.0 200 ok"))
    }

    /// Held under TLS 1.2, the Finished would never reach the server, which waits for it before its
    /// own: the handshake would not end.
    @Test func underTLS12TheFinishedLeavesAtOnce() async throws {
        let certificates = try Self.certificates.get()
        let server = try await TLSServer(certificate: certificates.server.certificate, key: certificates.server.key, options: ["-tls1_2"])
        let deadline = MonotonicClock.now() + 30
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: server.port, deadline: deadline)
        try socket.startTLS(try Self.context(), endpoint: NetworkEndpoint(host: "127.0.0.1", port: server.port), deadline: MonotonicClock.now() + 10)
        #expect(socket.tls?.version == "TLSv1.2")
        try socket.send(Array("GET / HTTP/1.0\r\n\r\n".utf8), until: deadline)
        var page: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 14)
        while !String(decoding: page, as: UTF8.self).contains("HTTP/1.0 200 ok") {
            let count = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0, until: deadline, stop: nil) }
            if count == 0 { break }
            page += buffer[..<count]
        }
        #expect(String(decoding: page, as: UTF8.self).hasPrefix("HTTP/1.0 200 ok"))
    }

    /// A server that takes nothing after the handshake: what is written then waits for the socket
    /// (the write times out), never piling up in memory behind the held Finished.
    @Test func aStalledServerHoldsBackWhatIsWritten() async throws {
        let certificates = try Self.certificates.get()
        let server = try await TLSServer(certificate: certificates.server.certificate, key: certificates.server.key)
        let relayed = try Self.relayedHandshake(with: server, until: MonotonicClock.now() + 30, smallBuffers: true)
        defer { close(relayed.relay) }
        let upload = [UInt8](repeating: 0x61, count: 64 << 20)
        #expect(throws: NetworkFailure.timedOut("sending the request")) { try relayed.socket.send(upload, until: MonotonicClock.now() + 1) }
    }
}
