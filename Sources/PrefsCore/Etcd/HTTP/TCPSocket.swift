import Glibc

/// A connected, non-blocking TCP socket this process owns, closed when the value goes away. Every
/// wait is a `poll` bounded by a deadline (CLOCK_MONOTONIC seconds; nil: none) that may also watch
/// a second descriptor for a hang-up (`stop`). Writes pass MSG_NOSIGNAL: a peer that went away is
/// an EPIPE error, never a SIGPIPE.
///
/// Used by one thread at a time: a connection is taken out of the client's pool for a request.
final class TCPSocket: @unchecked Sendable {
    let raw: Int32

    /// Takes ownership of a connected, non-blocking stream socket.
    init(raw: Int32) { self.raw = raw }

    deinit { close(raw) }

    /// Connects to the first address of `host` that accepts before `deadline`.
    static func connect(host: String, port: UInt16, deadline: Double) throws(NetworkFailure) -> TCPSocket {
        let addresses = try HostResolver.addresses(host: host, port: port, deadline: deadline)
        var failure = NetworkFailure.resolve("no address")
        for address in addresses {
            do {
                return try connect(to: address, deadline: deadline)
            } catch {
                failure = error
                if case .timedOut = error { break }
            }
        }
        throw failure
    }

    private static func connect(to address: SocketAddress, deadline: Double) throws(NetworkFailure) -> TCPSocket {
        let raw = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard raw >= 0 else { throw .system("creating a socket", errno: errno) }
        let socket = TCPSocket(raw: raw)
        socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        var storage = address.storage
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(raw, $0, address.length) }
        }
        if result == 0 { return socket }
        guard errno == EINPROGRESS || errno == EINTR else { throw .system("connecting", errno: errno) }
        try socket.wait(for: Int16(POLLOUT), until: deadline, stop: nil, doing: "connecting")
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(raw, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { throw .system("connecting", errno: errno) }
        guard error == 0 else { throw .system("connecting", errno: error) }
        return socket
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
    var isIdleAndOpen: Bool {
        var fds = [pollfd(fd: raw, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, 0) == 0
    }
}
