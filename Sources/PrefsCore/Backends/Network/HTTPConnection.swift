/// The most an HTTP response may hold before it is an error: a server (or something that is not
/// one) can never make the client allocate more.
struct HTTPLimits: Sendable {
    /// The status line and headers (and a chunked body's trailers).
    var head = 64 * 1024
    /// A whole body, or one message of a stream.
    var body = 64 << 20

    static let standard = HTTPLimits()
}

/// What the status line and headers say.
struct HTTPResponseHead: Equatable {
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
        /// No length given: the body is everything until the server closes the connection.
        case untilClose
    }

    var status: Int
    var framing: Framing
    /// The server keeps the connection open after this response.
    var keepAlive: Bool
}

/// One HTTP/1.1 client connection: writes requests, reads responses (a `Content-Length` body, a
/// chunked one piece by piece, or one that ends at close), within deadlines and `limits`, and
/// stays open for the next request when the server keeps it alive.
final class HTTPConnection: @unchecked Sendable {
    let socket: TCPSocket
    /// What the `Host` header names.
    let authority: String
    let limits: HTTPLimits
    /// A descriptor whose hang-up interrupts every wait (`NetworkFailure.stopped`).
    var stop: Int32?
    /// Bytes received and not yet consumed: `buffer[position...]`.
    var buffer: [UInt8] = []
    var position = 0
    /// Some byte of the current response has come (a failure before that, on a kept-alive
    /// connection, means the server had closed it while idle).
    private(set) var receivedAny = false
    /// Where the current body stands.
    var body = BodyState.done
    /// The last response ended cleanly and the server keeps the connection: it may be reused.
    private(set) var reusable = false

    enum BodyState: Equatable {
        case length(remaining: Int)
        /// At a chunk-size line.
        case chunkStart
        case inChunk(remaining: Int)
        /// After a chunk's data, at its CRLF.
        case chunkEnd
        case untilClose
        case done
    }

    /// What one `recv` reads into.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    init(socket: TCPSocket, authority: String, limits: HTTPLimits = .standard) {
        self.socket = socket
        self.authority = authority
        self.limits = limits
    }

    deinit { scratch.deallocate() }

    /// A connection to `endpoint`; with `tls`, its handshake made (the certificate checked against
    /// the endpoint's host as written).
    static func connect(to endpoint: NetworkEndpoint, deadline: Double, limits: HTTPLimits = .standard,
                        tls: TLSContext? = nil) throws(NetworkFailure) -> HTTPConnection {
        let socket = try TCPSocket.connect(host: endpoint.host, port: endpoint.port, deadline: deadline)
        if let tls { try socket.startTLS(tls, endpoint: endpoint, deadline: deadline) }
        return HTTPConnection(socket: socket, authority: endpoint.description, limits: limits)
    }

    /// Sends a POST of `body` (JSON) to `path`, with extra `headers` (names and values already
    /// checked to hold no line breaks).
    func sendPost(_ path: String, body: [UInt8], headers: [(String, String)], deadline: Double?) throws(NetworkFailure) {
        reusable = false
        receivedAny = false
        var request = "POST \(path) HTTP/1.1\r\nHost: \(authority)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        try socket.send(Array(request.utf8) + body, until: deadline, stop: stop)
    }

    /// A POST and its whole response.
    func post(_ path: String, body: [UInt8], headers: [(String, String)], deadline: Double?) throws(NetworkFailure) -> (status: Int, body: [UInt8]) {
        try sendPost(path, body: body, headers: headers, deadline: deadline)
        return try receiveResponse(deadline: deadline)
    }

    /// The whole response to the request sent.
    func receiveResponse(deadline: Double?) throws(NetworkFailure) -> (status: Int, body: [UInt8]) {
        let head = try readHead(deadline: deadline)
        return (head.status, try readBody(head, deadline: deadline))
    }

    /// Receives what has come of the response without waiting: whether any of it has (over TLS, a
    /// message of the session alone, such as a TLS 1.3 session ticket, is not). Throws `.closed` when
    /// the server has closed the connection, and how receiving failed.
    func receivedWithoutWaiting() throws(NetworkFailure) -> Bool {
        guard position == buffer.count else { return true }
        let received: Int
        do {
            received = try fill(deadline: 0)
        } catch .timedOut {
            return false
        }
        guard received > 0 else { throw .closed }
        return true
    }

    /// The response's status line and headers (any 1xx interim response skipped); the body is then
    /// read with `readBody` or `nextBodyPiece`. A response that starts as a TLS record (a TLS server
    /// alerting a plain-text request) is `.speaksTLS`.
    func readHead(deadline: Double?) throws(NetworkFailure) -> HTTPResponseHead {
        while true {
            let lines: [ArraySlice<UInt8>]
            do {
                lines = try readHeadLines(deadline: deadline)
            } catch {
                throw TLSProbe.looksLikeTLS(buffer[position...]) ? .speaksTLS : error
            }
            let head = try HTTPResponseHead.parse(lines)
            if head.status >= 100 && head.status < 200 { continue }
            body = switch head.framing {
            case .none: .done
            case .length(let count): count == 0 ? .done : .length(remaining: count)
            case .chunked: .chunkStart
            case .untilClose: .untilClose
            }
            pendingKeepAlive = head.keepAlive && head.framing != .untilClose
            return head
        }
    }

    private var pendingKeepAlive = false

    /// The whole body (at most `limits.body` bytes).
    func readBody(_ head: HTTPResponseHead, deadline: Double?) throws(NetworkFailure) -> [UInt8] {
        var result: [UInt8] = []
        if case .length(let count) = head.framing {
            guard count <= limits.body else { throw .tooLarge(what: "the response's body", limit: limits.body) }
            result.reserveCapacity(min(count, 1 << 20))
        }
        while let piece = try nextBodyPiece(deadline: deadline) {
            guard result.count + piece.count <= limits.body else { throw .tooLarge(what: "the response's body", limit: limits.body) }
            result += piece
        }
        return result
    }

    /// The next bytes of the body as they come (never empty), or nil at its end. A body may be
    /// larger than `limits.body` when read this way: the caller bounds what it keeps.
    func nextBodyPiece(deadline: Double?) throws(NetworkFailure) -> ArraySlice<UInt8>? {
        while true {
            switch body {
            case .done:
                return nil
            case .length(let remaining):
                let piece = try take(upTo: remaining, deadline: deadline)
                body = remaining == piece.count ? .done : .length(remaining: remaining - piece.count)
                if body == .done { finishResponse() }
                return piece
            case .untilClose:
                if position == buffer.count, try fill(deadline: deadline) == 0 {
                    body = .done
                    return nil
                }
                return try take(upTo: Int.max, deadline: deadline)
            case .chunkStart:
                let size = try HTTPResponseHead.chunkSize(try readLine(deadline: deadline, limit: 1024, what: "a chunk-size line"))
                guard size <= limits.body else { throw .tooLarge(what: "a chunk of the response", limit: limits.body) }
                if size > 0 {
                    body = .inChunk(remaining: size)
                } else {
                    try readTrailers(deadline: deadline)
                    body = .done
                    finishResponse()
                    return nil
                }
            case .inChunk(let remaining):
                let piece = try take(upTo: remaining, deadline: deadline)
                body = remaining == piece.count ? .chunkEnd : .inChunk(remaining: remaining - piece.count)
                return piece
            case .chunkEnd:
                while buffer.count - position < 2 {
                    if try fill(deadline: deadline) == 0 { throw .closed }
                }
                guard buffer[position] == 0x0D && buffer[position + 1] == 0x0A else {
                    throw .malformed("a chunk is longer than its size")
                }
                position += 2
                body = .chunkStart
            }
        }
    }

    /// The response is complete: the connection may serve another request if the server keeps it
    /// and sent nothing more.
    private func finishResponse() {
        reusable = pendingKeepAlive && position == buffer.count
        buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
        position = 0
    }

    // MARK: Reading bytes

    /// Up to `count` buffered bytes (waiting for one when none is buffered); the connection closing
    /// first is `.closed`.
    private func take(upTo count: Int, deadline: Double?) throws(NetworkFailure) -> ArraySlice<UInt8> {
        if position == buffer.count, try fill(deadline: deadline) == 0 { throw .closed }
        let end = position + min(count, buffer.count - position)
        defer { position = end }
        return buffer[position..<end]
    }

    /// Receives more bytes into the buffer; returns how many (0: the peer closed).
    @discardableResult
    func fill(deadline: Double?) throws(NetworkFailure) -> Int {
        if position > 0 && position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            position = 0
        } else if position > 64 * 1024 && position * 2 > buffer.count {
            buffer.removeFirst(position)
            position = 0
        }
        let received = try socket.receive(into: scratch, until: deadline, stop: stop)
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<received]))
        if received > 0 { receivedAny = true }
        return received
    }

    /// One line without its CRLF, at most `limit` bytes long (else `.tooLarge` naming `what` and
    /// `reported`, the limit of the whole it is part of).
    private func readLine(deadline: Double?, limit: Int, what: String, reported: Int? = nil) throws(NetworkFailure) -> ArraySlice<UInt8> {
        // Bytes after `position` known to hold no CRLF (relative: `fill` may move the buffer).
        var scanned = 0
        while true {
            if let end = HTTPConnection.crlf(in: buffer, from: position + scanned) {
                guard end - position <= limit else { throw .tooLarge(what: what, limit: reported ?? limit) }
                defer { position = end + 2 }
                return buffer[position..<end]
            }
            guard buffer.count - position <= limit + 1 else { throw .tooLarge(what: what, limit: reported ?? limit) }
            scanned = max(0, buffer.count - position - 1)
            if try fill(deadline: deadline) == 0 { throw .closed }
        }
    }

    /// The status line and header lines, up to the empty line.
    private func readHeadLines(deadline: Double?) throws(NetworkFailure) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var used = 0
        while true {
            let line = try readLine(deadline: deadline, limit: limits.head - used, what: "the response's head", reported: limits.head)
            used += line.count + 2
            if line.isEmpty {
                if lines.isEmpty { continue }
                return lines
            }
            lines.append(line)
        }
    }

    private func readTrailers(deadline: Double?) throws(NetworkFailure) {
        var total = 0
        while true {
            let line = try readLine(deadline: deadline, limit: limits.head - total, what: "the response's trailers", reported: limits.head)
            if line.isEmpty { return }
            total += line.count + 2
        }
    }

    static func crlf(in bytes: [UInt8], from start: Int) -> Int? {
        var i = start
        while i + 1 < bytes.count {
            if bytes[i] == 0x0D && bytes[i + 1] == 0x0A { return i }
            i += 1
        }
        return nil
    }
}
