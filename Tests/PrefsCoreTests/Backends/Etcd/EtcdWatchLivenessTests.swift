import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// A quiet watch checks that its member still answers (on a second connection, every half of the
/// client's timeout): a healthy member keeps the stream, a frozen one is left for another member.
@Suite(.blocking) struct EtcdWatchLivenessTests {
    /// Four checks and more pass on a quiet stream: it stays on its one connection, and the checks
    /// share one more.
    @Test func aQuietWatchOnAHealthyMemberKeepsItsStream() throws {
        let client = try SharedEtcd.client(timeout: 0.5)
        let key = uniquePrefix() + bytes("k")
        var calls = 0
        let stop = try client.watch(key, fromRevision: 0, deadline: MonotonicClock.now() + 1.5) { _, _ in
            calls += 1
            return true
        }
        #expect(stop == .timedOut)
        #expect(calls == 0)
        #expect(client.state.withLock { $0.connectionsOpened } == 2, "the stream's and the checks' connections")
    }

    /// The member the stream is on is stopped (SIGSTOP): the watch leaves it and delivers a change
    /// written through another member, then, with the member running again, the next, each once.
    @Test func aWatchLeavesAStoppedMemberAndLosesNothing() throws {
        let cluster = try EtcdCluster(members: 3)
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 1)
        let key = bytes("frozen/k")
        let start = try client.put(key, bytes("0"))
        // The watch connects to the member that last answered this client.
        let watched = try #require(EtcdClient.lastAnswered.withLock { $0[cluster.endpoints] })
        let member = try #require(cluster.endpoints.firstIndex(of: watched))
        // Generous: its first member may forward to the stopped leader and wait out its share.
        let writer = EtcdClient(endpoints: cluster.endpoints.filter { $0 != watched }, timeout: 30)
        let values = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        let changes = Thread {
            while values.withLock({ $0.isEmpty }) { usleep(10_000) }
            do {
                // Returns once the member has stopped: the change can only come from another one.
                try cluster.pause(member: member)
                _ = try writer.put(key, bytes("1"))
                while values.withLock({ $0.count }) < 2 { usleep(10_000) }
                try cluster.resume(member: member)
                _ = try writer.put(key, bytes("2"))
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        changes.start()
        defer { try? cluster.resume(member: member) }
        // A generous bound on waiting for the events, not a clock on how fast they come.
        var revisions: [Int64] = []
        let stop = try client.watch(key, fromRevision: start, deadline: MonotonicClock.now() + 30) { batch, _ in
            revisions += batch.map(\.keyValue.modRevision)
            values.withLock { $0 += batch.map { String(decoding: $0.keyValue.value, as: UTF8.self) } }
            return values.withLock { $0.last } != "2"
        }
        #expect(stop == .handlerStopped)
        #expect(failures.withLock { $0 }.isEmpty)
        // The writer's client sends a put again when its member did not answer (the stopped one
        // may have been the leader): etcd may then apply it twice, at two revisions.
        let seen = values.withLock { $0 }
        #expect(seen.enumerated().filter { $0.offset == 0 || seen[$0.offset - 1] != $0.element }.map(\.element) == ["0", "1", "2"])
        #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count, "no event twice")
        // It left the stopped member for another (where it ends depends on the load: a check that a
        // busy machine delays past the timeout moves it on again, maybe back to the first). Under
        // load this failed while the member, signalled but not yet stopped, sent "1" itself.
        let attempts = client.state.withLock { $0.connectAttempts }
        #expect(attempts.contains { $0.key != watched && $0.value > 0 }, "\(attempts)")
    }
}
