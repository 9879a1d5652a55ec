extension EtcdClient {
    package enum WatchStop: Sendable, Equatable {
        /// `onEvents` returned false.
        case handlerStopped
        /// The deadline passed.
        case timedOut
        /// The `stopWhenReadable` descriptor hung up (the reader of a pipe went away).
        case descriptorClosed
    }

    /// Watches [key, rangeEnd) (just `key` without `rangeEnd`) from `fromRevision` (0: from now),
    /// calling `onEvents` with each batch of changes and the revision it brings (the last event's:
    /// the watch goes on after it). Returns when `onEvents` returns false, at `deadline`
    /// (CLOCK_MONOTONIC seconds; nil: never), or when `stopWhenReadable` hangs up (POLLHUP or
    /// POLLERR: the reading end of a pipe it writes to was closed).
    ///
    /// The stream lives on one connection. When it breaks (the member stopped or lost its leader:
    /// the watch asks etcd to end it then), or its member stops answering while it is quiet (see
    /// `nextLiveMessage`), the watch connects again, to another endpoint first, and resumes after
    /// the last revision delivered, so no event is lost and none comes twice; when no member
    /// answers within `timeout`, it throws `.unavailable`. A start revision etcd has compacted away
    /// is `storeRefused` with code 11 (OUT_OF_RANGE) and the compaction revision in the message.
    package func watch(_ key: [UInt8], rangeEnd: [UInt8]? = nil, fromRevision: Int64, deadline: Double?, stopWhenReadable: Int32? = nil,
                      _ onEvents: ([EtcdWatchEvent], Int64) throws -> Bool) throws -> WatchStop {
        var next = fromRevision
        while true {
            let stream: WatchStream
            do {
                stream = try openWatch(key, rangeEnd: rangeEnd, from: next, deadline: deadline, stop: stopWhenReadable)
            } catch NetworkFailure.stopped {
                return .descriptorClosed
            } catch PrefsError.unavailable(let endpoints, let reason) {
                if let deadline, MonotonicClock.now() >= deadline { return .timedOut }
                throw PrefsError.unavailable(endpoints: endpoints, reason: reason)
            }
            if next == 0 { next = stream.createdRevision + 1 }
            if let stop = try follow(stream, next: &next, deadline: deadline, onEvents) { return stop }
            moveOn(from: stream.endpoint)
        }
    }

    /// Delivers the stream's events, moving `next` past each batch, until the watch stops (the
    /// reason is returned) or the stream ends or breaks (nil: connect again, from `next`).
    func follow(_ stream: WatchStream, next: inout Int64, deadline: Double?, _ onEvents: ([EtcdWatchEvent], Int64) throws -> Bool) throws -> WatchStop? {
        while true {
            let message: EtcdMessage
            do {
                guard let received = try nextLiveMessage(stream, deadline: deadline) else { return nil }
                message = received
            } catch NetworkFailure.stopped {
                return .descriptorClosed
            } catch let failure as NetworkFailure {
                if let deadline, MonotonicClock.now() >= deadline { return .timedOut }
                if case .tooLarge = failure {
                    throw PrefsError.storeRefused(endpoint: stream.endpoint.description, code: 8, message: failure.description, status: .dataError)
                }
                return nil
            }
            let result = try message.object("result")
            if let refusal = try message.refusal() ?? result.flatMap(stream.cancellation) {
                // No leader, a member stopping or failing: connect again. The cluster's answer ends the watch.
                if case .answer = refusal.verdict { throw refusal.error(at: stream.endpoint.description) }
                return nil
            }
            guard let result else { continue }
            let events = try result.objects("events").map(EtcdClient.event).filter { $0.keyValue.modRevision >= next }
            if let last = events.last?.keyValue.modRevision {
                next = last + 1
                guard try onEvents(events, last) else { return .handlerStopped }
            } else if !(try result.bool("created")) {
                // A progress notification: every change up to the header's revision has come.
                next = max(next, try result.headerRevision() + 1)
            }
        }
    }

    static func event(_ message: EtcdMessage) throws -> EtcdWatchEvent {
        let kv = try message.object("kv")?.keyValue() ?? EtcdKeyValue(key: [], value: [], createRevision: 0, modRevision: 0, version: 0, lease: 0)
        switch try message.string("type") {
        case "", "PUT": return .put(kv)
        case "DELETE": return .delete(kv)
        default: throw message.failure("type", "PUT or DELETE")
        }
    }

    /// A watch stream on some endpoint, created (etcd said so) from `start` (0: now). Connecting
    /// goes over the endpoints as `withEndpoints` does, for at most `timeout`.
    func openWatch(_ key: [UInt8], rangeEnd: [UInt8]?, from start: Int64, deadline: Double?, stop: Int32?) throws -> WatchStream {
        let body = try EtcdRequestBody.encode(EtcdRequestBody.watch(key, rangeEnd: rangeEnd, startRevision: start))
        let openDeadline = min(deadline ?? .infinity, MonotonicClock.now() + timeout)
        return try withEndpoints(deadline: openDeadline, stop: stop) { endpoint, attemptDeadline in
            let headers = try authorization(for: endpoint, deadline: attemptDeadline)
            let connection = try open(endpoint, deadline: attemptDeadline)
            connection.stop = stop
            connection.socket.enableKeepAlive()
            // Ask etcd to end the stream when this member loses its leader, so the watch moves on.
            try connection.sendPost("/v3/watch", body: body, headers: headers + [("Grpc-Metadata-hasleader", "true")], deadline: attemptDeadline)
            let head = try connection.readHead(deadline: attemptDeadline)
            let source = "etcd \(endpoint) /v3/watch"
            guard head.status == 200 else {
                throw EtcdRefusal.from(status: head.status, body: try connection.readBody(head, deadline: attemptDeadline), source: source)
            }
            let stream = WatchStream(connection: connection, endpoint: endpoint, source: source, key: key)
            guard let first = try stream.nextMessage(deadline: attemptDeadline) else { throw NetworkFailure.closed }
            if let refusal = first.refusal() { throw refusal }
            guard let result = try first.object("result"), try result.bool("created") else {
                throw first.failure("result", "the watch's creation")
            }
            if let refusal = try stream.cancellation(result) { throw refusal }
            stream.createdRevision = try result.headerRevision()
            return stream
        }
    }
}

/// The messages of one watch stream: the gateway writes each as a line of JSON, in chunks that
/// need not match the lines.
final class WatchStream {
    let connection: HTTPConnection
    let endpoint: EtcdEndpoint
    let source: String
    /// The watched key (the start of the watched range): what asking the member whether it still
    /// answers reads.
    let key: [UInt8]
    /// The store's revision when the watch was created.
    var createdRevision: Int64 = 0
    private var pending: [UInt8] = []

    init(connection: HTTPConnection, endpoint: EtcdEndpoint, source: String, key: [UInt8] = []) {
        self.connection = connection
        self.endpoint = endpoint
        self.source = source
        self.key = key
    }

    /// The next message; nil when the stream ended.
    func nextMessage(deadline: Double?) throws -> EtcdMessage? {
        var searched = 0
        while true {
            if let newline = pending[searched...].firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeFirst(newline + 1)
                searched = 0
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
                return try EtcdMessage(json: line, source: source)
            }
            searched = pending.count
            guard let piece = try connection.nextBodyPiece(deadline: deadline) else {
                guard !pending.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) else { return nil }
                defer { pending = [] }
                return try EtcdMessage(json: pending, source: source)
            }
            guard pending.count + piece.count <= connection.limits.body else {
                throw NetworkFailure.tooLarge(what: "a message of the watch stream", limit: connection.limits.body)
            }
            pending += piece
        }
    }

    /// Why etcd canceled the watch, as a refusal: a compacted start revision (code 11), permission
    /// denied (7), or another reason; nil when `result` does not cancel it.
    func cancellation(_ result: EtcdMessage) throws -> EtcdRefusal? {
        guard try result.bool("canceled") else { return nil }
        let compacted = try result.int64("compact_revision")
        if compacted > 0 {
            return EtcdRefusal(code: 11, message: "etcdserver: mvcc: required revision has been compacted (compacted to \(compacted))")
        }
        let reason = try result.string("cancel_reason")
        return EtcdRefusal(code: reason.contains("permission denied") ? 7 : 2, message: reason.isEmpty ? "the watch was canceled" : reason)
    }
}
