import Glibc

/// One try of a call in a round over the endpoints: at `endpoint` first, and at the endpoints after
/// it when a race starts them beside it (`EtcdClient.exchange`).
final class EtcdAttempt {
    /// Where the call's requests go: the first endpoint, then the one that answered a race first.
    var endpoint: EtcdEndpoint
    /// The endpoints of the round not tried yet, in order; a race takes them from the front.
    var alternatives: [EtcdEndpoint]
    /// Those of them that failed lately (they come last): started only when no other connection is
    /// left, never beside one that is merely slow.
    let failing: Set<EtcdEndpoint>
    let deadline: Double
    /// The endpoints that failed in this try, and how: those of a race too, including the ones that
    /// had not answered when one started later did.
    var failures: [(endpoint: EtcdEndpoint, error: NetworkFailure)] = []

    init(_ endpoint: EtcdEndpoint, alternatives: [EtcdEndpoint] = [], failing: Set<EtcdEndpoint> = [], deadline: Double) {
        self.endpoint = endpoint
        self.alternatives = alternatives
        self.failing = failing
        self.deadline = deadline
    }

    /// The next endpoint a race may start beside the connections it has (`alongside`), or once it
    /// has none left.
    func next(alongside: Bool) -> EtcdEndpoint? {
        guard let next = alternatives.first, !(alongside && failing.contains(next)) else { return nil }
        return next
    }
}

extension EtcdClient {
    /// How long an endpoint may take to connect (with its TLS handshake) — and to start answering a
    /// request that may go to more than one member — before the next endpoint is started beside it:
    /// the first to answer wins. A member on a network answers in a few milliseconds and connects in
    /// one round trip; 150 ms is over ten times what a loaded local member took to answer a read
    /// (bench-etcd-endpoints.sh), so a healthy cluster almost never sees a second connection, while
    /// a stopped member costs a command 150 ms instead of its share of `PREFS_ETCD_TIMEOUT`.
    static let hedgeDelay = 0.15

    /// A request and its response, at `attempt.endpoint` first: over an idle connection when there
    /// is one (tried again on a new one if the server had closed it meanwhile), else a new one. When
    /// the connection (and its TLS handshake) is not made within `hedgeDelay`, the next of
    /// `attempt.alternatives` is started beside it, and so on (not one that failed lately: that one
    /// only when every other connection has failed); the request goes over the first
    /// connection made. A request that changes nothing (`idempotent`: a range, a login) is also
    /// sent over each later connection while no answer has begun, and the first answer wins;
    /// a change is sent once, and only then awaited (a member may apply what it received:
    /// failing over after that is the caller's, which knows to settle it).
    ///
    /// `attempt.endpoint` is then the endpoint that answered; `attempt.failures` has the others
    /// tried. A new plain-text connection closed without a byte of answer is a member going away,
    /// or a TLS port (`TLSProbe`): that one is `.speaksTLS`.
    func exchange(_ attempt: EtcdAttempt, _ path: String, _ body: [UInt8], headers: [(String, String)], idempotent: Bool,
                  sending: () -> Void = {}) throws(NetworkFailure) -> (status: Int, body: [UInt8]) {
        var race = EtcdRace(client: self, attempt: attempt, idempotent: idempotent)
        return try race.run { connection, deadline throws(NetworkFailure) in
            sending()
            try connection.sendPost(path, body: body, headers: headers, deadline: deadline)
        }
    }

    /// `exchange` at `endpoint` alone.
    func roundTrip(_ endpoint: EtcdEndpoint, _ path: String, _ body: [UInt8], headers: [(String, String)],
                   deadline: Double, sending: () -> Void = {}) throws(NetworkFailure) -> (status: Int, body: [UInt8]) {
        try exchange(EtcdAttempt(endpoint, deadline: deadline), path, body, headers: headers, idempotent: false, sending: sending)
    }
}
