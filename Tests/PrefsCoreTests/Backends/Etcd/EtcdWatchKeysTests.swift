import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// A watch of several keys on one stream (`EtcdClient.watch(keys:…)`): only those keys' events,
/// in revision order across the keys, though etcd sends the backlog of each of its watches whole.
@Suite(.blocking) struct EtcdWatchKeysTests {
    typealias Recorder = EtcdWatchTests.Recorder

    /// Writes that interleave two watched keys, `a` and `b`, and one that is not, `rounds` times
    /// (with no client: none); what the watch of the two must describe (`EtcdWatchTests.describe`).
    @discardableResult
    static func interleave(_ client: EtcdClient?, prefix: [UInt8], rounds: Range<Int>) throws -> [String] {
        var expected: [String] = []
        for i in rounds {
            let key = i % 3 == 0 ? "b" : "a"
            try client?.put(prefix + bytes(key), bytes(String(i)))
            try client?.put(prefix + bytes("other"), bytes(String(i)))
            expected.append("put \(key)=\(i)")
            if i % 5 == 4 {
                try client?.delete(prefix + bytes("a"))
                expected.append("delete a")
            }
        }
        return expected
    }

    /// The watch starts from a revision before every write: etcd sends each key's backlog in one
    /// piece, one key after the other (before, the watch handed them over so: every "b" after
    /// every "a"). They come in revision order, with no event of the key not watched, then the
    /// writes made while it watches.
    @Test func theEventsOfTwoKeysComeInRevisionOrderFromHistoryAndAfter() throws {
        let client = try SharedEtcd.client()
        let prefix = uniquePrefix()
        let start = try client.put(prefix + bytes("other"), [])
        var expected = try Self.interleave(client, prefix: prefix, rounds: 0..<30)
        let writes = Thread {
            // Once the backlog has come, more of the same while it watches.
            usleep(300_000)
            _ = try? Self.interleave(client, prefix: prefix, rounds: 30..<45)
        }
        expected += try Self.interleave(nil, prefix: prefix, rounds: 30..<45)
        let recorder = Recorder()
        writes.start()
        let stop = try client.watch(keys: [prefix + bytes("a"), prefix + bytes("b")], fromRevision: start + 1, deadline: MonotonicClock.now() + 60) {
            recorder.record($0, $1)
            return recorder.count < expected.count
        }
        #expect(stop == .handlerStopped)
        #expect(EtcdWatchTests.describe(recorder.snapshot, prefix: prefix) == expected)
        let revisions = recorder.snapshot.map(\.keyValue.modRevision)
        #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count)
        // Each batch's revision is its last event's.
        #expect(recorder.revisions.last == revisions.last)
    }

    /// From now, a key that does not exist yet: its creation and a change of the other key in one
    /// transaction come as one batch of one revision, in the order of the keys watched (etcd sends
    /// each watch's event on its own, in either order).
    @Test func aKeyCreatedLaterAndATransactionOfBothComeTogether() throws {
        let client = try SharedEtcd.client()
        let prefix = uniquePrefix()
        let (a, b) = (prefix + bytes("a"), prefix + bytes("b"))
        try client.put(a, bytes("0"))
        let writes = Thread {
            usleep(300_000)
            _ = try? client.put(prefix + bytes("other"), [])
            _ = try? client.txn(success: [.put(key: a, value: bytes("1")), .put(key: b, value: bytes("1"))])
        }
        let recorder = Recorder()
        writes.start()
        let stop = try client.watch(keys: [a, b], fromRevision: 0, deadline: MonotonicClock.now() + 30) {
            recorder.record($0, $1)
            return recorder.count < 2
        }
        #expect(stop == .handlerStopped)
        #expect(EtcdWatchTests.describe(recorder.snapshot, prefix: prefix) == ["put a=1", "put b=1"])
        #expect(recorder.revisions.count == 1)
    }

    /// The member the stream is on is killed and restarted while both keys change: each watch
    /// resumes from its own revision on another member, and every change comes once, in order.
    @Test func twoKeysSurviveTheirMemberBeingKilledAndRestarted() throws {
        let cluster = try EtcdCluster(members: 3)
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 5)
        let writer = EtcdClient(endpoints: cluster.endpoints.reversed(), timeout: 5)
        let prefix = bytes("two/")
        let start = try client.put(prefix + bytes("other"), [])
        let connected = Mutex<EtcdEndpoint?>(nil)
        let expected = Mutex<[String]>([])
        let killed = Mutex(false)
        let written = DispatchSemaphore(value: 0)
        let writes = Thread {
            defer { written.signal() }
            while connected.withLock({ $0 }) == nil { usleep(10_000) }
            for round in 0..<4 {
                if round == 2, let endpoint = connected.withLock({ $0 }), let member = cluster.endpoints.firstIndex(of: endpoint) {
                    cluster.kill(member: member)
                    killed.withLock { $0 = true }
                    try? cluster.restart(member: member)
                }
                if let done = try? Self.interleave(writer, prefix: prefix, rounds: round * 10..<round * 10 + 10) {
                    expected.withLock { $0 += done }
                }
            }
        }
        // A first change that the watch sees, so the writes start once it is connected.
        try client.put(prefix + bytes("a"), bytes("first"))
        let recorder = Recorder()
        writes.start()
        let stop = try client.watch(keys: [prefix + bytes("a"), prefix + bytes("b")], fromRevision: start, deadline: MonotonicClock.now() + 60) {
            recorder.record($0, $1)
            connected.withLock { $0 = EtcdClient.lastAnswered.withLock { $0[cluster.endpoints] } }
            return recorder.count < 1 + 4 * 10 + 8
        }
        #expect(stop == .handlerStopped)
        // The watch can see a round's last change before the writer has noted that round.
        #expect(written.wait(timeout: .now() + 120) == .success)
        #expect(killed.withLock { $0 })
        #expect(EtcdWatchTests.describe(recorder.snapshot, prefix: prefix) == ["put a=first"] + expected.withLock { $0 })
        let revisions = recorder.snapshot.map(\.keyValue.modRevision)
        #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count)
    }
}
