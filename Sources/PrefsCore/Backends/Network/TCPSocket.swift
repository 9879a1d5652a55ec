import Glibc

/// A connected, non-blocking TCP socket this process owns, closed when the value goes away, that
/// carries bytes as they are or, after `startTLS`, inside a TLS session. Every wait is a `poll`
/// bounded by a deadline (CLOCK_MONOTONIC seconds; nil: none) that may also watch a second
/// descriptor for a hang-up (`stop`). Writes pass MSG_NOSIGNAL: a peer that went away is an EPIPE
/// error, never a SIGPIPE.
///
/// Used by one thread at a time: a connection is taken out of the client's pool for a request.
final class TCPSocket: @unchecked Sendable {
    let raw: Int32
    /// The TLS session the bytes go through; nil: plain text.
    private(set) var tls: TLSSession?

    /// Takes ownership of a connected, non-blocking stream socket.
    init(raw: Int32) { self.raw = raw }

    deinit {
        tls = nil
        close(raw)
    }

    /// Makes the TLS handshake with `endpoint` (its host as written, name or address, which the
    /// server's certificate must match) before `deadline`.
    func startTLS(_ context: TLSContext, endpoint: NetworkEndpoint, deadline: Double) throws(NetworkFailure) {
        let session = try beginTLS(context, endpoint: endpoint)
        while let events = try handshake(session) {
            try wait(for: events, until: deadline, stop: nil, doing: TLSSession.handshaking)
        }
    }

    /// A TLS session with `endpoint` over this socket, its handshake not begun (`handshake`).
    func beginTLS(_ context: TLSContext, endpoint: NetworkEndpoint) throws(NetworkFailure) -> TLSSession {
        do {
            return try TLSSession(context: context, socket: raw, endpoint: endpoint)
        } catch {
            throw .tls(error.reason)
        }
    }

    /// One step of `session`'s handshake: what to wait for before the next (POLLIN or POLLOUT), or
    /// nil when it is complete and the bytes go through the session from now on.
    func handshake(_ session: TLSSession) throws(NetworkFailure) -> Int16? {
        switch session.handshake() {
        case .done:
            tls = session
            return nil
        case .wantRead: return Int16(POLLIN)
        case .wantWrite: return Int16(POLLOUT)
        case .failed(let failure): throw failure
        }
    }

    /// Connects to the first address of `host` that accepts before `deadline`.
    static func connect(host: String, port: UInt16, deadline: Double) throws(NetworkFailure) -> TCPSocket {
        let addresses = try HostResolver.addresses(host: host, port: port, deadline: deadline)
        var failure = NetworkFailure.resolve("no address")
        for address in addresses {
            do {
                let (socket, connected) = try startConnecting(to: address)
                if !connected {
                    try socket.wait(for: Int16(POLLOUT), until: deadline, stop: nil, doing: "connecting")
                    try socket.finishConnecting()
                }
                return socket
            } catch {
                failure = error
                if case .timedOut = error { break }
            }
        }
        throw failure
    }

    /// A non-blocking socket connecting to `address`, and whether it is connected already; else it
    /// is once it is writable (`finishConnecting` says how it ended).
    static func startConnecting(to address: SocketAddress) throws(NetworkFailure) -> (TCPSocket, connected: Bool) {
        let raw = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard raw >= 0 else { throw .system("creating a socket", errno: errno) }
        let socket = TCPSocket(raw: raw)
        socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        var storage = address.storage
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(raw, $0, address.length) }
        }
        if result == 0 { return (socket, true) }
        guard errno == EINPROGRESS || errno == EINTR else { throw .system("connecting", errno: errno) }
        return (socket, false)
    }

    /// Throws how a connection `startConnecting` began failed, once the socket is writable.
    func finishConnecting() throws(NetworkFailure) {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(raw, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { throw .system("connecting", errno: errno) }
        guard error == 0 else { throw .system("connecting", errno: error) }
    }

    func setOption(_ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(raw, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// TCP keep-alive probes, so a long-lived stream notices a peer that vanished without a word
    /// (a machine switched off, a cable pulled) within about `idle + 3 × interval` seconds.
    func enableKeepAlive(idle: Int32 = 10, interval: Int32 = 5) {
        setOption(SOL_SOCKET, SO_KEEPALIVE, 1)
        setOption(Int32(IPPROTO_TCP), TCP_KEEPIDLE, idle)
        setOption(Int32(IPPROTO_TCP), TCP_KEEPINTVL, interval)
        setOption(Int32(IPPROTO_TCP), TCP_KEEPCNT, 3)
    }

    /// Waits until the socket is ready for `events`. Throws `.timedOut` at the deadline and
    /// `.stopped` when `stop` hangs up first.
    func wait(for events: Int16, until deadline: Double?, stop: Int32?, doing: String) throws(NetworkFailure) {
        while true {
            var fds = [pollfd(fd: raw, events: events, revents: 0), pollfd(fd: stop ?? -1, events: 0, revents: 0)]
            let timeout = MonotonicClock.pollTimeout(until: deadline)
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system("waiting on the socket", errno: errno)
            }
            if fds[1].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { throw .stopped }
            if fds[0].revents != 0 { return }
            if timeout == 0 || (deadline.map { MonotonicClock.now() >= $0 } ?? false) { throw .timedOut(doing) }
        }
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8], until deadline: Double?, stop: Int32? = nil) throws(NetworkFailure) {
        if let tls { return try send(bytes, through: tls, until: deadline, stop: stop) }
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(raw, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n >= 0 {
                sent += n
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                try wait(for: Int16(POLLOUT), until: deadline, stop: stop, doing: "sending the request")
            } else if errno != EINTR {
                throw .system("sending the request", errno: errno)
            }
        }
    }

    /// Receives what has come (at most `buffer.count` bytes), waiting for something if nothing has;
    /// 0 means the peer closed the connection.
    func receive(into buffer: UnsafeMutableRawBufferPointer, until deadline: Double?, stop: Int32?) throws(NetworkFailure) -> Int {
        if let tls { return try receive(into: buffer, through: tls, until: deadline, stop: stop) }
        while true {
            let n = recv(raw, buffer.baseAddress, buffer.count, 0)
            if n >= 0 { return n }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                try wait(for: Int16(POLLIN), until: deadline, stop: stop, doing: "waiting for the response")
            } else if errno != EINTR {
                throw .system("receiving the response", errno: errno)
            }
        }
    }

    /// Nothing has come and the peer has not closed: an idle kept-alive connection still usable.
    /// Over TLS, what came may be the session's own messages (TLS 1.3 servers send session tickets
    /// after the handshake): they are read, and the connection is idle if nothing else came.
    var isIdleAndOpen: Bool {
        var fds = [pollfd(fd: raw, events: Int16(POLLIN), revents: 0)]
        guard poll(&fds, 1, 0) != 0 else { return true }
        guard let tls, tls.pending == 0, fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) == 0 else { return false }
        var byte: UInt8 = 0
        if case .wantRead = withUnsafeMutableBytes(of: &byte, { tls.read(into: $0) }) { return true }
        return false
    }

    // MARK: Through TLS

    private func send(_ bytes: [UInt8], through tls: TLSSession, until deadline: Double?, stop: Int32?) throws(NetworkFailure) {
        var sent = 0
        while sent < bytes.count {
            switch bytes.withUnsafeBytes({ tls.write(UnsafeRawBufferPointer(rebasing: $0[sent...])) }) {
            case .done(let count): sent += count
            case .wantRead: try wait(for: Int16(POLLIN), until: deadline, stop: stop, doing: "sending the request")
            case .wantWrite: try wait(for: Int16(POLLOUT), until: deadline, stop: stop, doing: "sending the request")
            case .failed(let failure): throw failure
            }
        }
    }

    private func receive(into buffer: UnsafeMutableRawBufferPointer, through tls: TLSSession, until deadline: Double?,
                         stop: Int32?) throws(NetworkFailure) -> Int {
        while true {
            switch tls.read(into: buffer) {
            case .done(let count): return count
            case .wantRead: try wait(for: Int16(POLLIN), until: deadline, stop: stop, doing: "waiting for the response")
            case .wantWrite: try wait(for: Int16(POLLOUT), until: deadline, stop: stop, doing: "waiting for the response")
            case .failed(let failure): throw failure
            }
        }
    }
}
