import Foundation
import Testing
@testable import PrefsCore

/// The HTTP/1.1 response reader, fed canned responses over a socket pair: framing, keep-alive,
/// limits, malformed input, deadlines and the stop descriptor.
@Suite(.blocking) struct HTTPConnectionTests {
    /// A connection reading from one end of a socket pair; the test writes the other end.
    final class Pair: @unchecked Sendable {
        let connection: HTTPConnection
        let peer: Int32

        init(limits: HTTPLimits = .standard) throws {
            var ends: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
                throw TestFailure("socketpair")
            }
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
            connection = HTTPConnection(socket: TCPSocket(raw: ends[0]), authority: "test", limits: limits)
            peer = ends[1]
        }

        deinit { close(peer) }

        func write(_ text: String) { write(Array(text.utf8)) }

        func write(_ bytes: [UInt8]) {
            var sent = 0
            while sent < bytes.count {
                let n = bytes.withUnsafeBytes { Foundation.send(peer, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { return }
                sent += n
            }
        }

        /// Writes `text` from another thread, `piece` bytes at a time with a pause between, so the
        /// reader sees it arrive in fragments.
        func trickle(_ text: String, piece: Int) {
            let bytes = Array(text.utf8)
            let peer = peer
            Thread.detachNewThread {
                for start in stride(from: 0, to: bytes.count, by: piece) {
                    let slice = Array(bytes[start..<min(start + piece, bytes.count)])
                    _ = Foundation.send(peer, slice, slice.count, Int32(MSG_NOSIGNAL))
                    usleep(300)
                }
            }
        }

        func response(deadline: Double? = MonotonicClock.now() + 5) throws(NetworkFailure) -> (HTTPResponseHead, [UInt8]) {
            let head = try connection.readHead(deadline: deadline)
            return (head, try connection.readBody(head, deadline: deadline))
        }
    }

    /// The NetworkFailure `body` threw (nil when it threw none; a failed test when it threw another).
    func failure(_ body: () throws -> Void) -> NetworkFailure? {
        do {
            try body()
            return nil
        } catch let failure as NetworkFailure {
            return failure
        } catch {
            Issue.record("not a NetworkFailure: \(error)")
            return nil
        }
    }

    @Test func contentLengthBodyAndKeepAlive() throws {
        let pair = try Pair()
        pair.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length:  5 \r\n\r\nhello")
        let (head, body) = try pair.response()
        #expect(head == HTTPResponseHead(status: 200, framing: .length(5), keepAlive: true))
        #expect(body == Array("hello".utf8))
        #expect(pair.connection.reusable)
        // The same connection reads the next response.
        pair.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        let (second, empty) = try pair.response()
        #expect(second.status == 404)
        #expect(empty.isEmpty)
        #expect(pair.connection.reusable)
    }

    @Test(arguments: [1, 3, 7, 1000])
    func chunkedBodyWithExtensionsAndTrailersInFragments(piece: Int) throws {
        let pair = try Pair()
        pair.trickle("HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\nTrailer: Grpc-Trailer-Content-Type\r\n\r\n"
                     + "5;name=value\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nGrpc-Trailer-Content-Type: application/grpc\r\n\r\n",
                     piece: piece)
        let (head, body) = try pair.response()
        #expect(head == HTTPResponseHead(status: 400, framing: .chunked, keepAlive: true))
        #expect(String(decoding: body, as: UTF8.self) == "hello 0123456789")
        #expect(pair.connection.reusable)
    }

    /// A stream's next chunk arriving after everything received so far was consumed (the watch's
    /// case: each message comes when etcd has one).
    @Test func aChunkArrivingAfterTheBufferWasConsumed() throws {
        let pair = try Pair()
        pair.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\none\r\n")
        let deadline = MonotonicClock.now() + 2
        _ = try pair.connection.readHead(deadline: deadline)
        #expect(try pair.connection.nextBodyPiece(deadline: deadline).map(Array.init) == Array("one".utf8))
        for word in ["two", "three"] {
            Thread.detachNewThread {
                usleep(50_000)
                pair.write(String(word.utf8.count, radix: 16) + "\r\n" + word + "\r\n")
            }
            #expect(try pair.connection.nextBodyPiece(deadline: deadline).map(Array.init) == Array(word.utf8))
        }
        pair.write("0\r\n\r\n")
        #expect(try pair.connection.nextBodyPiece(deadline: deadline) == nil)
    }

    @Test func interimResponsesAreSkipped() throws {
        let pair = try Pair()
        pair.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let (head, body) = try pair.response()
        #expect(head.status == 200)
        #expect(body == Array("ok".utf8))
    }

    @Test func connectionCloseHTTP10AndBodiesThatEndAtClose() throws {
        let closing = try Pair()
        closing.write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx")
        #expect(try closing.response().1 == [UInt8(ascii: "x")])
        #expect(!closing.connection.reusable)

        let old = try Pair()
        old.write("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\ny")
        #expect(try old.response().1 == [UInt8(ascii: "y")])
        #expect(!old.connection.reusable)

        let untilClose = try Pair()
        untilClose.write("HTTP/1.1 200 OK\r\n\r\nall of it")
        shutdown(untilClose.peer, Int32(SHUT_WR))
        let (head, body) = try untilClose.response()
        #expect(head.framing == .untilClose)
        #expect(body == Array("all of it".utf8))
        #expect(!untilClose.connection.reusable)

        // Extra bytes after a response: the connection is not trusted again.
        let extra = try Pair()
        extra.write("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nzHTTP/1.1")
        usleep(10_000)
        _ = try extra.response()
        #expect(!extra.connection.reusable)
    }

    @Test func limitsAreErrorsNotAllocations() throws {
        var small = HTTPLimits()
        small.head = 100
        small.body = 10
        let longHead = try Pair(limits: small)
        longHead.write("HTTP/1.1 200 OK\r\nX-Filler: " + String(repeating: "a", count: 200) + "\r\n\r\n")
        #expect(failure { _ = try longHead.response() } == .tooLarge(what: "the response's head", limit: 100))

        // A head that never ends is refused at the limit, not read forever.
        let endless = try Pair(limits: small)
        endless.trickle("HTTP/1.1 200 OK\r\n" + String(repeating: "X-A: b\r\n", count: 100), piece: 50)
        #expect(failure { _ = try endless.response() } == .tooLarge(what: "the response's head", limit: 100))

        let declared = try Pair(limits: small)
        declared.write("HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n")
        #expect(failure { _ = try declared.response() } == .tooLarge(what: "the response's body", limit: 10))

        let bigChunk = try Pair(limits: small)
        bigChunk.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFF\r\n")
        #expect(failure { _ = try bigChunk.response() } == .tooLarge(what: "a chunk of the response", limit: 10))

        let manyChunks = try Pair(limits: small)
        manyChunks.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "4\r\nabcd\r\n", count: 4) + "0\r\n\r\n")
        #expect(failure { _ = try manyChunks.response() } == .tooLarge(what: "the response's body", limit: 10))

        let endlessSize = try Pair(limits: small)
        endlessSize.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "0", count: 2000))
        #expect(failure { _ = try endlessSize.response() } == .tooLarge(what: "a chunk-size line", limit: 1024))
    }

    @Test(arguments: [
        ("HTTP/2 200 OK\r\n\r\n", "not HTTP/1.x"),
        ("HTTP/1.1 20 OK\r\n\r\n", "bad status code"),
        ("HTTP/1.1 abc OK\r\n\r\n", "bad status code"),
        ("garbage\r\n\r\n", "bad status line"),
        ("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "a header line is not \"name: value\""),
        ("HTTP/1.1 200 OK\r\n folded: header\r\n\r\n", "a header line is not \"name: value\""),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "bad or conflicting Content-Length"),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad or conflicting Content-Length"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "unsupported Transfer-Encoding"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", "bad chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", "a chunk is longer than its size"),
    ])
    func malformedResponses(response: String, reason: String) throws {
        let pair = try Pair()
        pair.write(response)
        #expect(failure { _ = try pair.response() } == .malformed(reason))
    }

    @Test func aConnectionClosedMidResponseIsClosed() throws {
        for partial in ["", "HTTP/1.1 200 OK\r\nContent-Len", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"] {
            let pair = try Pair()
            pair.write(partial)
            shutdown(pair.peer, Int32(SHUT_WR))
            #expect(failure { _ = try pair.response() } == .closed, "\(partial)")
        }
    }

    @Test func everyWaitEndsAtTheDeadline() throws {
        let silent = try Pair()
        var result: NetworkFailure?
        var start = MonotonicClock.now()
        result = failure { _ = try silent.response(deadline: start + 0.2) }
        let took = MonotonicClock.now() - start
        #expect(result == .timedOut("waiting for the response"))
        #expect(took >= 0.2 && took < 0.5)

        // A server that sends its head and then stalls in the body.
        let stalled = try Pair()
        stalled.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab")
        start = MonotonicClock.now()
        result = failure { _ = try stalled.response(deadline: start + 0.2) }
        let tookToo = MonotonicClock.now() - start
        #expect(result == .timedOut("waiting for the response"))
        #expect(tookToo >= 0.2 && tookToo < 0.5)
    }

    @Test func aStopDescriptorThatHangsUpEndsTheWait() throws {
        let pair = try Pair()
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        pair.connection.stop = ends[1]
        close(ends[0])  // the reader of "standard output" went away
        #expect(failure { _ = try pair.response(deadline: nil) } == .stopped)
        close(ends[1])
    }

    @Test func watchMessagesSplitAcrossChunksAndSharingChunks() throws {
        let pair = try Pair()
        let one = #"{"result":{"created":true}}"#
        let two = #"{"result":{"events":[{"kv":{"key":"YQ==","mod_revision":"5"}}]}}"#
        let three = #"{"error":{"grpc_code":14,"message":"etcdserver: no leader"}}"#
        let body = one + "\n" + two + "\n" + three + "\n"
        var chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        // Uneven chunks: a message split across three, two messages sharing one.
        var rest = Substring(body)
        for size in [10, 40, 100, 3] where !rest.isEmpty {
            let piece = rest.prefix(size)
            rest = rest.dropFirst(size)
            chunked += String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n"
        }
        if !rest.isEmpty { chunked += String(rest.utf8.count, radix: 16) + "\r\n" + rest + "\r\n" }
        chunked += "0\r\n\r\n"
        pair.trickle(chunked, piece: 17)
        let deadline = MonotonicClock.now() + 5
        _ = try pair.connection.readHead(deadline: deadline)
        let stream = WatchStream(connection: pair.connection, endpoint: EtcdEndpoint(host: "test", port: 1), source: "test")
        #expect(try stream.nextMessage(deadline: deadline)?.object("result")?.bool("created") == true)
        let events = try #require(try stream.nextMessage(deadline: deadline)?.object("result")?.objects("events"))
        #expect(try events.map(EtcdClient.event) == [.put(EtcdKeyValue(key: [0x61], value: [], createRevision: 0, modRevision: 5, version: 0, lease: 0))])
        #expect(try stream.nextMessage(deadline: deadline)?.refusal() == EtcdRefusal(code: 14, message: "etcdserver: no leader"))
        #expect(try stream.nextMessage(deadline: deadline) == nil)
    }
}
