import Glibc

/// A connection to one endpoint being made without blocking, so that connections to several
/// endpoints can be made at once: the TCP connection to each of the endpoint's addresses in turn
/// until one accepts, then (with `tls`) the TLS handshake. The caller polls `socket` for `events`
/// and calls `step` when it is ready.
final class PendingConnection {
    let endpoint: NetworkEndpoint
    private let tls: TLSContext?
    private let limits: HTTPLimits
    private var addresses: ArraySlice<SocketAddress>
    private(set) var socket: TCPSocket
    private var session: TLSSession?
    /// What `socket` is waited on for: POLLOUT while connecting, then what the handshake asks.
    private(set) var events = Int16(POLLOUT)
    /// What is being done, as a failure at the deadline says it.
    var doing: String { session == nil ? "connecting" : TLSSession.handshaking }

    /// Resolves the endpoint's host (waiting for the resolver until `deadline` at most) and starts
    /// connecting; a connection made at once (loopback often is) goes on to its handshake.
    init(to endpoint: NetworkEndpoint, tls: TLSContext?, limits: HTTPLimits, deadline: Double) throws(NetworkFailure) {
        self.endpoint = endpoint
        self.tls = tls
        self.limits = limits
        addresses = try HostResolver.addresses(host: endpoint.host, port: endpoint.port, deadline: deadline)[...]
        guard let first = addresses.popFirst() else { throw .resolve("no address") }
        (socket, _) = try PendingConnection.start(first, then: &addresses)
    }

    /// Connects to `address`, or to the next of `rest` when it fails at once.
    private static func start(_ address: SocketAddress, then rest: inout ArraySlice<SocketAddress>) throws(NetworkFailure) -> (TCPSocket, Bool) {
        var address = address
        while true {
            do {
                return try TCPSocket.startConnecting(to: address)
            } catch {
                guard let next = rest.popFirst() else { throw error }
                address = next
            }
        }
    }

    /// Moves on now that `socket` is ready for `events`: the connection once it is made (and its
    /// handshake, with TLS), nil while there is more to wait for. Throws how it failed.
    func step() throws(NetworkFailure) -> HTTPConnection? {
        if session == nil {
            do {
                try socket.finishConnecting()
            } catch {
                guard let next = addresses.popFirst() else { throw error }
                (socket, _) = try PendingConnection.start(next, then: &addresses)
                events = Int16(POLLOUT)
                return nil
            }
            guard let tls else { return HTTPConnection(socket: socket, authority: endpoint.description, limits: limits) }
            session = try socket.beginTLS(tls, endpoint: endpoint)
        }
        guard let session, let wanted = try socket.handshake(session) else {
            return HTTPConnection(socket: socket, authority: endpoint.description, limits: limits)
        }
        events = wanted
        return nil
    }
}
