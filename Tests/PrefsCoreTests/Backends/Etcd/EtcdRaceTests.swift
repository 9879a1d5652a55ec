import Foundation
import Testing
@testable import PrefsCore

/// `EtcdClient.exchange` against a port that takes connections and never answers (a stopped member)
/// before a live one: a read is answered by the next endpoint, started beside it; a change is sent
/// to one member only, and awaited there; over TLS, a handshake that does not complete lets a change
/// go over the next endpoint's connection instead. And what the client learns is used by the next
/// client of the same endpoints, in the process and, through the health file, in the next one.
@Suite(.blocking) struct EtcdRaceTests {
    typealias SilentListener = EtcdFailoverTests.SilentListener

    func rangeBody(_ key: [UInt8]) throws -> [UInt8] { try EtcdRequestBody.encode(EtcdRequestBody.range(key, rangeEnd: nil)) }

    /// The requests the listener's first connection received (the kernel kept them: nothing read them).
    func received(_ listener: SilentListener) -> String {
        let connection = accept(listener.fd, nil, nil)
        guard connection >= 0 else { return "" }
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(connection, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
    }

    @Test func aReadIsAnsweredByTheNextEndpointStartedBesideOneThatDoesNotAnswer() throws {
        let silent = try SilentListener()
        let live = try SharedEtcd.cluster().endpoints[0]
        let client = EtcdClient(endpoints: [silent.endpoint, live], timeout: 30)
        let attempt = EtcdAttempt(silent.endpoint, alternatives: [live], deadline: MonotonicClock.now() + 30)
        let answer = try client.exchange(attempt, "/v3/kv/range", try rangeBody(uniquePrefix()), headers: [], idempotent: true)
        #expect(answer.status == 200)
        #expect(attempt.endpoint == live)
        #expect(attempt.failures.map(\.endpoint) == [silent.endpoint])
        #expect(attempt.failures.first?.error == .timedOut("waiting for the response (another endpoint answered first)"))
        #expect(received(silent).hasPrefix("POST /v3/kv/range HTTP/1.1\r\n"), "the read went to both")
    }

    @Test func aChangeIsSentToOneMemberAndAwaitedThere() throws {
        let silent = try SilentListener()
        let live = try SharedEtcd.cluster().endpoints[0]
        let client = EtcdClient(endpoints: [silent.endpoint, live], timeout: 30)
        let key = uniquePrefix()
        let attempt = EtcdAttempt(silent.endpoint, alternatives: [live], deadline: MonotonicClock.now() + 1)
        var sends = 0
        #expect(throws: NetworkFailure.timedOut("waiting for the response")) {
            _ = try client.exchange(attempt, "/v3/kv/put", try EtcdRequestBody.encode(EtcdRequestBody.put(key, [1], lease: 0)), headers: [],
                                    idempotent: false) { sends += 1 }
        }
        #expect(sends == 1)
        #expect(attempt.alternatives == [live], "the next endpoint was never started")
        #expect(client.state.withLock { $0.connectAttempts } == [silent.endpoint: 1])
        #expect(received(silent).hasPrefix("POST /v3/kv/put HTTP/1.1\r\n"))
        #expect(try client.range(key).count == 0)
    }

    @Test func overTLSAChangeGoesOverTheFirstConnectionMade() async throws {
        let certificates = try TestCertificates()
        let cluster = try await EtcdCluster.start(members: 1, tls: EtcdCluster.TLS(certificates))
        let client = certificates.client("root")
        let credentials = TLSCredentials(trusted: try Fixtures.bytes(certificates.ca), certificate: try Fixtures.bytes(client.certificate),
                                         key: try Fixtures.bytes(client.key))
        let silent = try SilentListener()
        let live = cluster.endpoints[0]
        let etcd = try EtcdClient(endpoints: [silent.endpoint, live], timeout: 30, tls: credentials)
        let key = uniquePrefix()
        let attempt = EtcdAttempt(silent.endpoint, alternatives: [live], deadline: MonotonicClock.now() + 30)
        let answer = try etcd.exchange(attempt, "/v3/kv/put", try EtcdRequestBody.encode(EtcdRequestBody.put(key, [2], lease: 0)), headers: [],
                                       idempotent: false)
        #expect(answer.status == 200)
        #expect(attempt.endpoint == live)
        #expect(attempt.failures.first?.error == .timedOut("making the TLS handshake (another endpoint answered first)"))
        #expect(try etcd.range(key).kvs.first?.value == [2])
        // What reached the silent port is a ClientHello, no request.
        #expect(received(silent).utf8.first == 0x16)
    }

    /// One that failed lately is never started beside one that is only slow (a loaded member):
    /// only once every other connection has failed.
    @Test func anEndpointThatFailedLatelyIsStartedOnlyWhenNoOtherIsLeft() throws {
        let silent = try SilentListener()
        let live = try SharedEtcd.cluster().endpoints[0]
        let client = EtcdClient(endpoints: [silent.endpoint, live], timeout: 30)
        let slow = EtcdAttempt(silent.endpoint, alternatives: [live], failing: [live], deadline: MonotonicClock.now() + 1)
        #expect(throws: NetworkFailure.timedOut("waiting for the response")) {
            _ = try client.exchange(slow, "/v3/kv/range", try rangeBody(uniquePrefix()), headers: [], idempotent: true)
        }
        #expect(slow.alternatives == [live])
        #expect(client.state.withLock { $0.connectAttempts } == [silent.endpoint: 1])
        let dead = try deadEndpoint()
        let refused = EtcdAttempt(dead, alternatives: [live], failing: [live], deadline: MonotonicClock.now() + 30)
        #expect(try client.exchange(refused, "/v3/kv/range", try rangeBody(uniquePrefix()), headers: [], idempotent: true).status == 200)
        #expect(refused.endpoint == live)
    }

    @Test func theNextClientTriesTheEndpointThatFailedLast() throws {
        let silent = try SilentListener()
        let live = try SharedEtcd.cluster().endpoints[0]
        let list = [silent.endpoint, live]
        #expect(try EtcdClient(endpoints: list, timeout: 30).range(uniquePrefix()).count == 0)
        #expect(EtcdClient.failures.withLock { $0[list]?[silent.endpoint]?.kind } == "timeout")
        let next = EtcdClient(endpoints: list, timeout: 30)
        #expect(next.rotation() == [live, silent.endpoint])
        #expect(try next.range(uniquePrefix()).count == 0)
        #expect(next.state.withLock { $0.connectAttempts } == [live: 1])
    }

    /// The next process: the process's own memory is gone, the health file is read.
    @Test func theNextProcessReadsWhatThisOneLearnt() throws {
        let silent = try SilentListener()
        let live = try SharedEtcd.cluster().endpoints[0]
        let list = [silent.endpoint, live]
        let directory = try TemporaryDirectory()
        let runtime = directory.file("run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        #expect(try EtcdClient(endpoints: list, timeout: 30, runtimeDirectory: runtime).range(uniquePrefix()).count == 0)
        EtcdClient.lastAnswered.withLock { $0[list] = nil }
        EtcdClient.failures.withLock { $0[list] = nil }
        let next = EtcdClient(endpoints: list, timeout: 30, runtimeDirectory: runtime)
        #expect(try next.range(uniquePrefix()).count == 0)
        #expect(next.state.withLock { $0.connectAttempts } == [live: 1])
        let saved = try #require(EtcdHealthFile(runtimeDirectory: runtime, endpoints: list)).load(list)
        #expect(saved.answered == live && saved.failed[silent.endpoint]?.kind == "timeout")
    }
}
