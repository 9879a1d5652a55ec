import Glibc
import Synchronization

/// A client of etcd's v3 JSON gateway (etcd 3.4 and later), over plain HTTP/1.1 on the members'
/// client ports: range, put, delete, transactions, leases and watches, with failover.
///
/// Endpoints are tried in turn, starting with the one that last answered a client of the same
/// endpoint list, and leaving those that failed lately for last (`EtcdEndpointHealth`: in this
/// process, and through `healthFile` in the commands before it). A member that refuses the
/// connection, resets it, or does not answer within its share of the time left (divided evenly
/// among the endpoints still to try) is skipped for the next; so is one that answers "no leader",
/// "leader changed" or "request timed out", and one that is no etcd gateway (an HTTP status other
/// than 200 without etcd's error body: a redirect, a grpc-proxy's or web server's 404, an HTML
/// 500). One that has not connected, or begun to answer a read, within `hedgeDelay` has the next
/// endpoint started beside it, and the first to answer wins (`exchange`). Rounds over the endpoints go on,
/// with short pauses, until `timeout` seconds after the call began; then the call throws
/// `PrefsError.unavailable` naming every endpoint and the last failure. When every endpoint of two
/// rounds in a row refused the connection or was no gateway — nothing is listening, not a member
/// slow to answer — a unary call throws it at once (the second round, a quarter second later, lets
/// a restarting member come back); a watch reconnecting keeps trying until its timeout.
///
/// What etcd's errors mean is `EtcdRefusal.verdict`'s table: a member shutting down (HTTP 408,
/// gRPC CANCELED), an internal error or a method a member lacks moves on to the next endpoint;
/// the cluster's answer (a refused login, a full quota, a request too large…) is
/// `PrefsError.storeRefused` with its gRPC code, message and exit status. An answer that has not
/// the shape etcd gives (a missing field, fewer responses than operations, a key outside the
/// range asked for) is `PrefsError.malformed` naming the endpoint, never taken for an absence and
/// never retried; so is a response over the limits (64 KiB of head, 64 MiB of body), never an
/// allocation. A plain-text endpoint that speaks TLS only, or a TLS handshake cut short, is a
/// failure of that endpoint: the next one is tried.
///
/// With credentials, the client logs in before its first request and sends the token with every
/// request; a token the member does not know (it expired, auth was turned off and on, the member
/// has not applied the login yet) is replaced by logging in again, once per call.
///
/// Connections are kept alive and reused (a few per endpoint); calls may come from any thread.
package final class EtcdClient: Sendable {
    package let endpoints: [EtcdEndpoint]
    /// Seconds each call may take before it is `.unavailable`.
    package let timeout: Double
    let credentials: Credentials?
    /// The TLS context of an `etcds://` client: every connection makes its handshake; nil: plain text.
    let tls: TLSContext?
    let limits: HTTPLimits
    /// Where what the client learns of its endpoints is kept for the next commands; nil: nowhere.
    let healthFile: EtcdHealthFile?
    let state = Mutex(State())

    struct Credentials: Sendable {
        let user: String
        let password: String
    }

    struct State {
        /// Open connections no request is using, each with its endpoint, oldest first (a list, not
        /// a dictionary by endpoint: the first one kept would set up such a table's generic
        /// metadata, about 0.15 M instructions, in every command).
        var idle: [(endpoint: EtcdEndpoint, connection: HTTPConnection)] = []
        /// The token of the last login; "" when auth is not enabled; nil before the first login.
        var token: String?
        /// Connections attempted and opened, per endpoint (for tests and diagnostics).
        var connectAttempts: [EtcdEndpoint: Int] = [:]
        var connectionsOpened = 0
        /// What `healthFile` held when it was read or last written; nil before it was read.
        var savedHealth: EtcdEndpointHealth?
    }

    /// Idle connections kept per endpoint.
    static let idleLimit = 4

    /// The endpoint that last answered, per endpoint list, for every client in the process.
    static let lastAnswered = Mutex(AnsweredEndpoints())

    /// The endpoint that last answered, per endpoint list: a short list of pairs (a process knows
    /// one or two lists), read and written as a dictionary. A dictionary keyed by an array of
    /// endpoints would set up its generic metadata and look up the conformances of its key at
    /// the first answer, about 0.15 M instructions in every command.
    struct AnsweredEndpoints: Sendable {
        private var entries: [(list: [EtcdEndpoint], answered: EtcdEndpoint)] = []

        subscript(list: [EtcdEndpoint]) -> EtcdEndpoint? {
            get { entries.first { $0.list == list }?.answered }
            set {
                let index = entries.firstIndex { $0.list == list }
                switch (index, newValue) {
                case (let index?, let answered?): entries[index].answered = answered
                case (let index?, nil): entries.remove(at: index)
                case (nil, let answered?): entries.append((list, answered))
                case (nil, nil): break
                }
            }
        }
    }

    /// A client of `endpoints`. With `runtimeDirectory` (`$XDG_RUNTIME_DIR`), what it learns of
    /// them is kept there for the commands after it (`EtcdHealthFile`).
    package convenience init(endpoints: [EtcdEndpoint], timeout: Double, credentials: (user: String, password: String)? = nil,
                             runtimeDirectory: String? = nil) {
        self.init(endpoints: endpoints, timeout: timeout, credentials: credentials, limits: .standard, runtimeDirectory: runtimeDirectory)
    }

    /// A client of `endpoints` whose every connection speaks TLS with `tls`, never plain text.
    /// Throws `PrefsError.tlsRefused` when OpenSSL cannot make a context. The credentials are parsed
    /// by the first connection: a file that cannot be used ends the first call (`TLSContext.refusal`).
    package convenience init(endpoints: [EtcdEndpoint], timeout: Double, credentials: (user: String, password: String)? = nil,
                            tls: TLSCredentials, runtimeDirectory: String? = nil) throws {
        let context: TLSContext
        do {
            context = try TLSContext(tls, runtimeDirectory: runtimeDirectory)
        } catch {
            throw PrefsError.tlsRefused(endpoint: endpoints.map(\.description).joined(separator: ","), reason: error.reason)
        }
        self.init(endpoints: endpoints, timeout: timeout, credentials: credentials, limits: .standard, tls: context,
                  runtimeDirectory: runtimeDirectory)
    }

    init(endpoints: [EtcdEndpoint], timeout: Double, credentials: (user: String, password: String)?, limits: HTTPLimits,
         tls: TLSContext? = nil, runtimeDirectory: String? = nil) {
        self.endpoints = endpoints
        self.timeout = timeout
        self.credentials = credentials.map { Credentials(user: $0.user, password: $0.password) }
        self.tls = tls
        self.limits = limits
        healthFile = EtcdHealthFile(runtimeDirectory: runtimeDirectory, endpoints: endpoints)
    }

    /// The deadline of one attempt at one endpoint: an even share of the time left among the
    /// endpoints still to try in this round (at least 100 ms), so a member that swallows
    /// connections or never answers (stopped, cut off from its cluster) leaves time for the others.
    static func attemptDeadline(_ deadline: Double, endpointsLeft: Int) -> Double {
        let now = MonotonicClock.now()
        return min(deadline, now + max(0.1, (deadline - now) / Double(max(endpointsLeft, 1))))
    }

    /// Runs `exchange` against one endpoint after another until one succeeds or `deadline` passes.
    /// `exchange` gets the endpoint and the deadline of this attempt; it throws `NetworkFailure` for
    /// the endpoint's failures, `EtcdRefusal` for etcd's errors, anything else to end the call.
    /// Between rounds over every endpoint it pauses (25 ms, doubling up to 250 ms), watching `stop`.
    func withEndpoints<T>(deadline: Double, stop: Int32? = nil, failFast: Bool = false, _ exchange: (EtcdEndpoint, Double) throws -> T) throws -> T {
        try withEndpoints(deadline: deadline, stop: stop, failFast: failFast) { attempt in try exchange(attempt.endpoint, attempt.deadline) }
    }

    /// `withEndpoints`, each try an `EtcdAttempt`: at its endpoint, and at the endpoints of the round
    /// after it when its requests race (`exchange`). The endpoints are taken in the order of
    /// `rotation`: the last one that answered first, those that failed lately last.
    ///
    /// A request the server may have received before its connection failed is sent again to the
    /// next endpoint, as etcd's own clients do: a put or delete then applies twice (to the same
    /// effect), and a transaction may find its own earlier effect (`EtcdTxnResult.resent` says it
    /// was sent more than once; the suite store then checks whether an earlier send committed).
    ///
    /// `failFast` (unary calls): when every endpoint of two rounds in a row refused the connection
    /// or was no gateway, the call ends then, not at `deadline`. A watch reconnecting keeps trying
    /// until its deadline: it outlives a member's restart.
    func withEndpoints<T>(deadline: Double, stop: Int32? = nil, failFast: Bool = false, attempts exchange: (EtcdAttempt) throws -> T) throws -> T {
        guard !endpoints.isEmpty else { throw PrefsError.unavailable(endpoints: [], reason: "no endpoint given") }
        defer { saveHealth() }
        var lastFailure = "no endpoint answered within \(timeout) s"
        var loggedInAgain = false
        var pause = 0.025
        var refusedRounds = 0
        while true {
            let (order, failing) = plan()
            var untried = order[...]
            // The endpoints that failed in this round, and whether each refused.
            var refused: [EtcdEndpoint: Bool] = [:]
            while let endpoint = untried.first, MonotonicClock.now() < deadline {
                let attempt = EtcdAttempt(endpoint, alternatives: Array(untried.dropFirst()), failing: failing,
                                          deadline: EtcdClient.attemptDeadline(deadline, endpointsLeft: untried.count))
                var outcome: Result<T, Error>
                do { outcome = .success(try exchange(attempt)) } catch { outcome = .failure(error) }
                for (failed, failure) in attempt.failures {
                    refused[failed] = EtcdClient.isRefusal(failure)
                    noteFailure(failed, failure)
                }
                untried.removeAll { $0 == attempt.endpoint || refused[$0] != nil }
                switch outcome {
                case .success(let result):
                    remember(attempt.endpoint)
                    return result
                case .failure(let error):
                    if try recover(from: error, at: attempt.endpoint, loggedInAgain: &loggedInAgain, lastFailure: &lastFailure) {
                        untried.insert(attempt.endpoint, at: untried.startIndex)
                    } else {
                        refused[attempt.endpoint] = EtcdClient.isRefusal(error)
                        noteFailure(attempt.endpoint, error)
                    }
                }
            }
            refusedRounds = failFast && order.allSatisfy({ refused[$0] == true }) ? refusedRounds + 1 : 0
            let now = MonotonicClock.now()
            guard now < deadline, refusedRounds < 2 else {
                try checkCredentials()
                throw PrefsError.unavailable(endpoints: endpoints.map(\.description), reason: lastFailure)
            }
            if MonotonicClock.sleep(until: min(deadline, now + (refusedRounds > 0 ? 0.25 : pause)), watching: stop) { throw NetworkFailure.stopped }
            pause = min(pause * 2, 0.25)
        }
    }

    /// Says that the TLS credentials cannot be used (bad data in the file, 65), when no handshake
    /// has parsed them: before a call ends without reaching any member, as the first handshake would.
    private func checkCredentials() throws {
        guard let tls else { return }
        do {
            try tls.load()
        } catch {
            throw tls.refusal(error.reason, endpoints: endpointList)
        }
    }

    /// The endpoints, as an error names them ("127.0.0.1:2379,127.0.0.1:22379").
    var endpointList: String { endpoints.map(\.description).joined(separator: ",") }

    /// A failure that says the endpoint cannot serve at all, at once: nothing listens on its port
    /// (ECONNREFUSED), what answers is no etcd gateway or a member that cannot serve the request
    /// (`EtcdRefusal.Verdict.memberFault`), or it speaks TLS to plain text, or the other way round.
    /// Not a timeout, a reset or "no leader", which a member slow or between leaders gives.
    static func isRefusal(_ error: Error) -> Bool {
        switch error {
        case NetworkFailure.system(let doing, let code): return code == ECONNREFUSED && doing == "connecting"
        case NetworkFailure.speaksTLS, NetworkFailure.tlsBroken: return true
        case let refusal as EtcdRefusal: return refusal.verdict == .memberFault
        default: return false
        }
    }

    /// What follows `error` at `endpoint`: trying it again at once after logging in again (true,
    /// once per call), or moving on to the next endpoint (false, `lastFailure` updated). Throws when
    /// the call ends here: etcd's answer, a response over the limits, a stop, any other error.
    private func recover(from error: Error, at endpoint: EtcdEndpoint, loggedInAgain: inout Bool, lastFailure: inout String) throws -> Bool {
        switch error {
        case let failure as NetworkFailure:
            if failure == .stopped { throw failure }
            if case .tooLarge = failure {
                throw PrefsError.malformed(source: "etcd \(endpoint)", format: nil, reason: failure.description)
            }
            // A certificate refused is refused on every round: the call ends here.
            if case .tls(let reason) = failure { throw PrefsError.tlsRefused(endpoint: endpoint.description, reason: reason) }
            if case .credentials(let reason) = failure, let tls { throw tls.refusal(reason, endpoints: endpointList) }
            lastFailure = "\(endpoint): \(failure)"
            return false
        case let refusal as EtcdRefusal:
            if refusal.asksToLogIn && credentials != nil && !loggedInAgain {
                forgetToken()
                loggedInAgain = true
                return true
            }
            if case .answer = refusal.verdict {
                remember(endpoint)
                throw refusal.error(at: endpoint.description)
            }
            lastFailure = "\(endpoint)\(refusal.fromGateway ? ":" : "") \(refusal.message)"
            return false
        default:
            throw error
        }
    }

    /// A unary call: POSTs `fields` to `path` and decodes the answer, failing over as
    /// `withEndpoints` does. `streamed`: the answer is a stream (`{"result": …}` lines) of which the
    /// first message is the answer. `idempotent`: the request changes nothing (a range), so it may
    /// be sent to more than one member at once (`exchange`).
    func call<T>(_ path: String, _ fields: EtcdRequestBody.Fields, streamed: Bool = false, idempotent: Bool = false,
                 _ decode: (EtcdMessage) throws -> T) throws -> T {
        try call(path, fields, streamed: streamed, idempotent: idempotent) { message, _ in try decode(message) }
    }

    /// `call`, telling `decode` whether the request was sent more than once (to any endpoint, or
    /// again on a new connection): an earlier send may have been applied. `deadline`: when to give
    /// up (nil: `timeout` from now).
    func call<T>(_ path: String, _ fields: EtcdRequestBody.Fields, streamed: Bool = false, idempotent: Bool = false, deadline: Double? = nil,
                 _ decode: (EtcdMessage, _ resent: Bool) throws -> T) throws -> T {
        try call(path, body: try EtcdRequestBody.encode(fields), streamed: streamed, idempotent: idempotent, deadline: deadline, decode)
    }

    /// `call` with the request's JSON already written. `quick`, tried first on a unary answer's
    /// bytes, may read it without the general parser; nil hands it to `decode`.
    func call<T>(_ path: String, body: [UInt8], streamed: Bool = false, idempotent: Bool = false, deadline: Double? = nil,
                 quick: (([UInt8], _ resent: Bool) -> T?)? = nil, _ decode: (EtcdMessage, _ resent: Bool) throws -> T) throws -> T {
        let deadline = deadline ?? MonotonicClock.now() + timeout
        var sends = 0
        return try withEndpoints(deadline: deadline, failFast: true, attempts: { attempt in
            let headers = try authorization(for: attempt)
            let (status, response) = try exchange(attempt, path, body, headers: headers, idempotent: idempotent) { sends += 1 }
            let source = "etcd \(attempt.endpoint) \(path)"
            guard status == 200 else { throw EtcdRefusal.from(status: status, body: response, source: source) }
            guard streamed else {
                if let quick, let answer = quick(response, sends > 1) { return answer }
                return try decode(EtcdMessage(json: response, source: source), sends > 1)
            }
            let first = response.split(separator: 0x0A).first { !$0.allSatisfy { $0 == 0x20 || $0 == 0x0D } } ?? []
            let message = try EtcdMessage(json: Array(first), source: source)
            if let refusal = message.refusal() { throw refusal }
            guard let result = try message.object("result") else { throw message.failure("result", "an object") }
            return try decode(result, sends > 1)
        })
    }

    func open(_ endpoint: EtcdEndpoint, deadline: Double) throws(NetworkFailure) -> HTTPConnection {
        state.withLock { $0.connectAttempts[endpoint, default: 0] += 1 }
        let connection = try HTTPConnection.connect(to: endpoint, deadline: deadline, limits: limits, tls: tls)
        state.withLock { $0.connectionsOpened += 1 }
        return connection
    }

    /// The idle connection to `endpoint` kept last that is still open, taken from the pool.
    func checkOutIdle(_ endpoint: EtcdEndpoint) -> HTTPConnection? {
        while let connection = state.withLock({ state -> HTTPConnection? in
            guard let index = state.idle.lastIndex(where: { $0.endpoint == endpoint }) else { return nil }
            return state.idle.remove(at: index).connection
        }) {
            if connection.socket.isIdleAndOpen { return connection }
        }
        return nil
    }

    /// Keeps `connection` for the next request to `endpoint`, unless `idleLimit` are kept already.
    func checkIn(_ connection: HTTPConnection, _ endpoint: EtcdEndpoint) {
        connection.stop = nil
        state.withLock { state in
            if state.idle.count(where: { $0.endpoint == endpoint }) < EtcdClient.idleLimit { state.idle.append((endpoint, connection)) }
        }
    }
}
