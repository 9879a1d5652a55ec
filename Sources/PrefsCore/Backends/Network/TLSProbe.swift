/// Whether an endpoint that closed a plain-text connection without a word speaks TLS: etcd's TLS
/// port closes a connection whose first bytes are no TLS handshake (an HTTP request) without an
/// answer, as a member going away does. A TLS ClientHello on a new connection tells them apart:
/// a TLS server answers it with a handshake record or an alert, anything else not.
enum TLSProbe {
    /// Sends a TLS 1.2 ClientHello to `endpoint` and reads what comes before `deadline`: true when
    /// it starts as a TLS record does (a handshake, 0x16, or an alert, 0x15, then version 3.x).
    static func answersHandshake(_ endpoint: NetworkEndpoint, deadline: Double) -> Bool {
        guard let socket = try? TCPSocket.connect(host: endpoint.host, port: endpoint.port, deadline: deadline),
            (try? socket.send(clientHello(), until: deadline)) != nil
        else { return false }
        var received: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        while received.count < 2 {
            guard let count = try? socket.receive(into: buffer, until: deadline, stop: nil), count > 0 else { return false }
            received += buffer[..<count]
        }
        return looksLikeTLS(received[...])
    }

    /// Whether bytes received start as a TLS record of a handshake or an alert.
    static func looksLikeTLS(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count >= 2 && (bytes.first == 0x15 || bytes.first == 0x16) && bytes[bytes.startIndex + 1] == 0x03
    }

    /// A ClientHello any TLS 1.2 server answers: ECDHE with AES-GCM, X25519 or P-256, RSA-PSS,
    /// ECDSA or RSA signatures.
    static func clientHello() -> [UInt8] {
        func length16(_ count: Int) -> [UInt8] { [UInt8(count >> 8), UInt8(count & 0xFF)] }
        func extensionOf(_ type: UInt16, _ data: [UInt8]) -> [UInt8] { length16(Int(type)) + length16(data.count) + data }
        let extensions = extensionOf(0x000A, length16(4) + [0x00, 0x1D, 0x00, 0x17])  // supported groups
            + extensionOf(0x000B, [0x01, 0x00])  // EC point formats: uncompressed
            + extensionOf(0x000D, length16(6) + [0x08, 0x04, 0x04, 0x03, 0x04, 0x01])  // signature algorithms
        let suites: [UInt8] = [0xC0, 0x2F, 0xC0, 0x2B, 0xC0, 0x30, 0xC0, 0x2C]
        let random = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let body = [0x03, 0x03] + random + [0x00] + length16(suites.count) + suites + [0x01, 0x00] + length16(extensions.count) + extensions
        let handshake = [0x01, 0x00] + length16(body.count) + body
        return [0x16, 0x03, 0x01] + length16(handshake.count) + handshake
    }
}
