/// Telling a quiet watch stream from a frozen member. A member that is stopped (SIGSTOP, a process
/// stuck) or whose machine is cut off keeps the stream's TCP connection open and silent: the
/// kernel still acknowledges TCP keep-alives for a stopped process, and etcd's progress
/// notifications come every 10 minutes. The gateway reads a watch's requests only once its body is
/// complete, so no `progress_request` can be sent on the stream either; the member is asked on a
/// second connection instead.
extension EtcdClient {
    /// How long a stream may be quiet before its member is asked whether it still answers, and how
    /// long it has to answer: half of `timeout` each, so a frozen member is given up within `timeout`.
    var quietInterval: Double { max(0.05, timeout / 2) }

    /// The stream's next message (nil: the stream ended). Each time it has been quiet for
    /// `quietInterval`, its member is asked a cheap question on another connection (a serializable
    /// count of the watched key: the member answers it from its own store, without consensus); one
    /// that does not answer within `quietInterval` is `NetworkFailure.timedOut`, and the watch moves
    /// to another endpoint. Any answer, even a refusal, shows the member alive.
    func nextLiveMessage(_ stream: WatchStream, deadline: Double?) throws -> EtcdMessage? {
        while true {
            let check = MonotonicClock.now() + quietInterval
            if let deadline, deadline <= check { return try stream.nextMessage(deadline: deadline) }
            do {
                // A wait that times out consumes nothing: the stream goes on where it was.
                return try stream.nextMessage(deadline: check)
            } catch NetworkFailure.timedOut {
                try askIsAlive(stream, deadline: min(deadline ?? .infinity, MonotonicClock.now() + quietInterval))
            }
        }
    }

    /// Whether the stream's member answers before `deadline`; throws `.timedOut` when it does not
    /// (or the connection's failure).
    func askIsAlive(_ stream: WatchStream, deadline: Double) throws {
        let fields = EtcdRequestBody.range(stream.key, rangeEnd: nil, countOnly: true) + [("serializable", .bool(true))]
        let body = try EtcdRequestBody.encode(fields)
        do {
            let headers = try authorization(for: stream.endpoint, deadline: deadline)
            _ = try roundTrip(stream.endpoint, "/v3/kv/range", body, headers: headers, deadline: deadline)
        } catch NetworkFailure.timedOut {
            throw NetworkFailure.timedOut("for \(stream.endpoint) to answer while its watch stream was quiet")
        } catch is EtcdRefusal, is PrefsError {
            return  // it answered (a refused or unreadable login)
        }
    }

    /// After a stream on `endpoint` broke, the next one tries the other endpoints first: a member
    /// that froze may still take connections, and would hold each attempt until its deadline.
    func moveOn(from endpoint: EtcdEndpoint) {
        guard endpoints.count > 1, let index = endpoints.firstIndex(of: endpoint) else { return }
        EtcdClient.lastAnswered.withLock { remembered in
            if remembered[endpoints] == nil || remembered[endpoints] == endpoint {
                remembered[endpoints] = endpoints[(index + 1) % endpoints.count]
            }
        }
    }
}
