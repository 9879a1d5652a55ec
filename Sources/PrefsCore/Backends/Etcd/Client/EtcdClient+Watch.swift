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
        let targets = WatchTargets([(key, rangeEnd)], from: fromRevision)
        return try watch(targets, deadline: deadline, stop: stopWhenReadable) { _, events in
            guard let last = events.last?.keyValue.modRevision else { return true }
            return try onEvents(events, last)
        }
    }

    /// Watches every range of `targets` on one stream, each from its `next` revision (0: from now),
    /// calling `onEvents` with the index of the range and its events (none: etcd said that every
    /// event of the range up to a revision has come, and `next` moved past it). Connects again as
    /// the one-range `watch` says, each range resuming from its own `next`.
    func watch(_ targets: WatchTargets, deadline: Double?, stop: Int32?, _ onEvents: (Int, [EtcdWatchEvent]) throws -> Bool) throws -> WatchStop {
        while true {
            let stream: WatchStream
            do {
                stream = try openWatch(targets, deadline: deadline, stop: stop)
            } catch NetworkFailure.stopped {
                return .descriptorClosed
            } catch PrefsError.unavailable(let endpoints, let reason) {
                if let deadline, MonotonicClock.now() >= deadline { return .timedOut }
                throw PrefsError.unavailable(endpoints: endpoints, reason: reason)
            }
            for i in targets.next.indices where targets.next[i] == 0 { targets.next[i] = stream.createdRevision + 1 }
            if let stop = try follow(stream, targets, deadline: deadline, onEvents) { return stop }
            moveOn(from: stream.endpoint)
        }
    }

    /// Delivers the stream's events, moving each range's `next` past them, until the watch stops
    /// (the reason is returned) or the stream ends or breaks (nil: connect again, from `next`).
    func follow(_ stream: WatchStream, _ targets: WatchTargets, deadline: Double?, _ onEvents: (Int, [EtcdWatchEvent]) throws -> Bool) throws -> WatchStop? {
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
            guard let result, !(try result.bool("created")), let index = stream.ids.firstIndex(of: try result.int64("watch_id")) else { continue }
            let events = try result.objects("events").map(EtcdClient.event).filter { $0.keyValue.modRevision >= targets.next[index] }
            if let last = events.last?.keyValue.modRevision {
                targets.next[index] = last + 1
            } else if try result.objects("events").isEmpty {
                // A progress notification: every change of the range up to the header's revision has come.
                targets.next[index] = max(targets.next[index], try result.headerRevision() + 1)
            } else {
                continue  // events already delivered before the stream was opened again
            }
            guard try onEvents(index, events) else { return .handlerStopped }
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

    /// A watch stream on some endpoint with one watch per range of `targets` (etcd said each was
    /// created), each from its `next` (0: now). Connecting goes over the endpoints as
    /// `withEndpoints` does, for at most `timeout`.
    func openWatch(_ targets: WatchTargets, deadline: Double?, stop: Int32?) throws -> WatchStream {
        // One request per range, one after the other in the body: the gateway hands each to etcd.
        var body: [UInt8] = []
        for (range, next) in zip(targets.ranges, targets.next) {
            body += try EtcdRequestBody.encode(EtcdRequestBody.watch(range.key, rangeEnd: range.end, startRevision: next)) + [0x0A]
        }
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
            let stream = WatchStream(connection: connection, endpoint: endpoint, source: source, key: targets.ranges[0].key)
            // etcd (3.4, through its gateway) now and then leaves one of several watches asked for
            // in one body unanswered, neither created nor refused: a stream not whole within 2 s
            // is opened again.
            try stream.awaitCreation(of: targets.ranges.count, deadline: min(attemptDeadline, MonotonicClock.now() + 2))
            return stream
        }
    }
}

/// The ranges one call to `watch` follows, and for each the revision it resumes from: every event
/// of the range before it has been delivered.
final class WatchTargets {
    let ranges: [(key: [UInt8], end: [UInt8]?)]
    var next: [Int64]

    init(_ ranges: [(key: [UInt8], end: [UInt8]?)], from revision: Int64) {
        self.ranges = ranges
        next = ranges.map { _ in revision }
    }
}

/// The messages of one watch stream: the gateway writes each as a line of JSON, in chunks that
/// need not match the lines.
final class WatchStream {
    let connection: HTTPConnection
    let endpoint: EtcdEndpoint
    let source: String
    /// The watched key (the start of the first watched range): what asking the member whether it
    /// still answers reads.
    let key: [UInt8]
    /// The store's revision when the first watch was created.
    var createdRevision: Int64 = 0
    /// etcd's ID of each watch, in the order of the ranges.
    var ids: [Int64] = []
    /// Messages read while waiting for the watches' creation, delivered first.
    private var held: [EtcdMessage] = []
    private var pending: [UInt8] = []

    init(connection: HTTPConnection, endpoint: EtcdEndpoint, source: String, key: [UInt8] = []) {
        self.connection = connection
        self.endpoint = endpoint
        self.source = source
        self.key = key
    }

    /// Reads until etcd has said that each of `count` watches was created (in the order asked:
    /// etcd creates them one after the other), keeping the events of the first ones that come
    /// meanwhile. A refused watch (permission denied) is thrown.
    func awaitCreation(of count: Int, deadline: Double) throws {
        while ids.count < count {
            guard let message = try readMessage(deadline: deadline) else { throw NetworkFailure.closed }
            if let refusal = message.refusal() { throw refusal }
            guard let result = try message.object("result") else { throw message.failure("result", "the watch's creation") }
            guard try result.bool("created") else {
                held.append(message)
                continue
            }
            if let refusal = try cancellation(result) { throw refusal }
            if ids.isEmpty { createdRevision = try result.headerRevision() }
            ids.append(try result.int64("watch_id"))
        }
    }

    /// The next message, those held while the watches were created first; nil when the stream ended.
    func nextMessage(deadline: Double?) throws -> EtcdMessage? {
        if !held.isEmpty { return held.removeFirst() }
        return try readMessage(deadline: deadline)
    }

    /// The next message read from the connection; nil when the stream ended.
    private func readMessage(deadline: Double?) throws -> EtcdMessage? {
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
