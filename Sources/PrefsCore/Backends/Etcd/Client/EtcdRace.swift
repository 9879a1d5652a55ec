import Glibc

/// The connections of one `EtcdClient.exchange`, made and awaited together on one thread: each
/// `Leg` is an endpoint's connection being made, or its request sent and its answer awaited. One
/// `poll` waits on them all, and on the time the next endpoint is due to start.
struct EtcdRace {
    let client: EtcdClient
    let attempt: EtcdAttempt
    let idempotent: Bool

    struct Leg {
        let endpoint: EtcdEndpoint
        let started: Double
        var pending: PendingConnection?
        /// The connection the request went over, once it has.
        var connection: HTTPConnection?
        /// The connection was an idle one from the pool.
        var reused = false
    }

    var legs: [Leg] = []
    /// A change was sent: no endpoint is started beside it any more.
    var sentChange = false
    var lastFailure = NetworkFailure.timedOut("connecting")
    var lastFailed: EtcdEndpoint
    var nextStart = 0.0

    init(client: EtcdClient, attempt: EtcdAttempt, idempotent: Bool) {
        self.client = client
        self.attempt = attempt
        self.idempotent = idempotent
        lastFailed = attempt.endpoint
    }

    /// Races until an answer has come whole, which it returns; throws the failure of the attempt's
    /// endpoint (a change's, once sent) or, when every leg failed, the last one. `send` sends the
    /// request over a connection.
    mutating func run(_ send: (HTTPConnection, Double) throws(NetworkFailure) -> Void) throws(NetworkFailure) -> (status: Int, body: [UInt8]) {
        try start(attempt.endpoint, reusing: true, send)
        while true {
            if legs.isEmpty {
                guard mayStartAnother, let next = attempt.next(alongside: false) else {
                    attempt.endpoint = lastFailed
                    throw lastFailure
                }
                attempt.alternatives.removeFirst()
                try start(next, reusing: true, send)
                continue
            }
            let now = MonotonicClock.now()
            if now >= attempt.deadline { try giveUp() }
            let hedge = mayStartAnother ? attempt.next(alongside: true) : nil
            if let hedge, now >= nextStart {
                attempt.alternatives.removeFirst()
                try start(hedge, reusing: true, send)
                continue
            }
            let wake = hedge != nil ? min(nextStart, attempt.deadline) : attempt.deadline
            // One leg at a time: moving one on may drop the others.
            if let index = try ready(until: wake).first, let answer = try advance(index, send) { return answer }
        }
    }

    /// Another endpoint may be started: a request that changes nothing, or a change not sent yet.
    var mayStartAnother: Bool { idempotent || !sentChange }

    /// A leg for `endpoint`: its idle connection with the request sent (`reusing`), or a new one.
    mutating func start(_ endpoint: EtcdEndpoint, reusing: Bool, _ send: (HTTPConnection, Double) throws(NetworkFailure) -> Void) throws(NetworkFailure) {
        let now = MonotonicClock.now()
        nextStart = now + EtcdClient.hedgeDelay
        if reusing, let idle = client.checkOutIdle(endpoint) {
            legs.append(Leg(endpoint: endpoint, started: now, reused: true))
            return try sendRequest(on: idle, at: legs.count - 1, send)
        }
        client.state.withLock { $0.connectAttempts[endpoint, default: 0] += 1 }
        do {
            let pending = try PendingConnection(to: endpoint, tls: client.tls, limits: client.limits, deadline: attempt.deadline)
            legs.append(Leg(endpoint: endpoint, started: now, pending: pending))
        } catch {
            try record(error, at: endpoint)
        }
    }

    /// The indexes of the legs whose sockets are ready, after waiting until `wake` at most.
    func ready(until wake: Double) throws(NetworkFailure) -> [Int] {
        var fds = legs.map { leg in
            leg.pending.map { pollfd(fd: $0.socket.raw, events: $0.events, revents: 0) }
                ?? pollfd(fd: leg.connection!.socket.raw, events: Int16(POLLIN), revents: 0)
        }
        let count = poll(&fds, nfds_t(fds.count), MonotonicClock.pollTimeout(until: wake))
        if count < 0 && errno != EINTR { throw .system("waiting on the sockets", errno: errno) }
        return fds.indices.filter { fds[$0].revents != 0 }
    }

    /// Moves leg `index` on: its connection made (the request then sent over it), or its answer
    /// begun (then read whole and returned).
    mutating func advance(_ index: Int, _ send: (HTTPConnection, Double) throws(NetworkFailure) -> Void) throws(NetworkFailure) -> (status: Int, body: [UInt8])? {
        let leg = legs[index]
        do {
            if let pending = leg.pending {
                guard let connection = try pending.step() else { return nil }
                client.state.withLock { $0.connectionsOpened += 1 }
                legs[index].pending = nil
                try sendRequest(on: connection, at: index, send)
                return nil
            }
            let connection = leg.connection!
            guard try connection.receivedWithoutWaiting() else { return nil }
            let answer = try connection.receiveResponse(deadline: attempt.deadline)
            if connection.reusable { client.checkIn(connection, leg.endpoint) }
            win(index)
            return answer
        } catch {
            try fail(index, error, send)
            return nil
        }
    }

    /// Sends the request over `connection`, leg `index`'s. A change, once sent, is the only leg:
    /// the others are dropped, and its answer is awaited here.
    mutating func sendRequest(on connection: HTTPConnection, at index: Int, _ send: (HTTPConnection, Double) throws(NetworkFailure) -> Void) throws(NetworkFailure) {
        legs[index].connection = connection
        do {
            try send(connection, attempt.deadline)
        } catch {
            return try fail(index, error, send)
        }
        guard !idempotent else { return }
        sentChange = true
        let sentAt = legs[index]
        for other in legs.indices.reversed() where other != index { drop(other, before: sentAt.started) }
        legs = [sentAt]
    }
}

extension EtcdRace {
    /// Leg `index` answered first: the attempt's endpoint from now on; the others are dropped.
    mutating func win(_ index: Int) {
        let winner = legs[index]
        attempt.endpoint = winner.endpoint
        legs.remove(at: index)
        for other in legs.indices.reversed() { drop(other, before: winner.started) }
    }

    /// Drops leg `index`: a failure (too slow) when it started before `time`, when another that
    /// started later answered first, or has gone on for `hedgeDelay` without an answer; else unjudged.
    mutating func drop(_ index: Int, before time: Double) {
        let leg = legs.remove(at: index)
        guard leg.started < time || MonotonicClock.now() - leg.started >= EtcdClient.hedgeDelay else { return }
        let doing = leg.pending?.doing ?? "waiting for the response"
        attempt.failures.append((leg.endpoint, .timedOut("\(doing) (another endpoint answered first)")))
    }

    /// Leg `index` failed. A connection from the pool that the server had closed while idle is made
    /// again; a new plain-text one closed without an answer may be a TLS port. A failure no other
    /// endpoint mends (a certificate refused, an answer over the limits), and a change's once sent,
    /// end the race; any other is recorded, and the others go on.
    mutating func fail(_ index: Int, _ error: NetworkFailure, _ send: (HTTPConnection, Double) throws(NetworkFailure) -> Void) throws(NetworkFailure) {
        let leg = legs.remove(at: index)
        let receivedAny = leg.connection?.receivedAny ?? false
        if leg.reused && !receivedAny && error.isConnectionLoss {
            sentChange = false
            return try start(leg.endpoint, reusing: false, send)
        }
        var failure = error
        if leg.connection != nil && !leg.reused && !receivedAny && client.tls == nil && error.isConnectionLoss
            && TLSProbe.answersHandshake(leg.endpoint, deadline: attempt.deadline) {
            failure = .speaksTLS
        }
        let sentChangeHere = !idempotent && leg.connection != nil
        if sentChangeHere { attempt.endpoint = leg.endpoint }
        try record(failure, at: leg.endpoint)
        if sentChangeHere { throw failure }
    }

    /// Records a failure at `endpoint`: the attempt's, and the one thrown when no leg is left. One
    /// that ends the call (a certificate refused, credentials that cannot be used, an answer over the limits, a stop) is no failure of
    /// the endpoint: it is thrown at once, as the attempt's.
    mutating func record(_ failure: NetworkFailure, at endpoint: EtcdEndpoint) throws(NetworkFailure) {
        switch failure {
        case .tls, .credentials, .tooLarge, .stopped:
            attempt.endpoint = endpoint
            throw failure
        default:
            attempt.failures.append((endpoint, failure))
            (lastFailure, lastFailed) = (failure, endpoint)
        }
    }

    /// The deadline passed: every leg has failed; the attempt's endpoint's failure is thrown (that
    /// of the first leg left when it has failed before).
    mutating func giveUp() throws(NetworkFailure) {
        let thrown = legs.first { $0.endpoint == attempt.endpoint } ?? legs[0]
        for leg in legs {
            attempt.failures.append((leg.endpoint, .timedOut(leg.pending?.doing ?? "waiting for the response")))
        }
        attempt.endpoint = thrown.endpoint
        legs = []
        throw .timedOut(thrown.pending?.doing ?? "waiting for the response")
    }
}
