import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// Watches against real members: order, history, stopping, and resuming across a member restart.
@Suite(.blocking) struct EtcdWatchTests {
    /// What a watch delivered: its events in order, and the revision given with each batch.
    final class Recorder: @unchecked Sendable {
        let lock = NSLock()
        var events: [EtcdWatchEvent] = []
        var revisions: [Int64] = []

        func record(_ batch: [EtcdWatchEvent], _ revision: Int64) {
            lock.withLock {
                events += batch
                revisions.append(revision)
            }
        }

        var count: Int { lock.withLock { events.count } }
        var snapshot: [EtcdWatchEvent] { lock.withLock { events } }
    }

    /// Describes events as "put KEY=VALUE@REV" / "delete KEY@REV" for readable comparisons.
    static func describe(_ events: [EtcdWatchEvent], prefix: [UInt8]) -> [String] {
        events.map { event in
            let kv = event.keyValue
            let key = String(decoding: kv.key.dropFirst(prefix.count), as: UTF8.self)
            switch event {
            case .put: return "put \(key)=\(String(decoding: kv.value, as: UTF8.self))"
            case .delete: return "delete \(key)"
            }
        }
    }

    @Test func putsAndDeletesFromHistoryInOrder() throws {
        let client = try SharedEtcd.client()
        let prefix = uniquePrefix()
        let start = try client.put(prefix + bytes("a"), bytes("1"))
        try client.put(prefix + bytes("b"), [])
        let deletion = try client.delete(prefix + bytes("a"))
        _ = try client.txn(compare: [], success: [.put(key: prefix + bytes("c"), value: bytes("3")), .delete(key: prefix + bytes("b"))])
        let last = try client.put(prefix + bytes("a"), bytes("4"))
        try client.put(uniquePrefix(), bytes("elsewhere"))
        let recorder = Recorder()
        let stop = try client.watch(prefix, rangeEnd: EtcdClient.prefixEnd(prefix), fromRevision: start, deadline: MonotonicClock.now() + 5) {
            recorder.record($0, $1)
            return recorder.count < 6
        }
        #expect(stop == .handlerStopped)
        #expect(EtcdWatchTests.describe(recorder.events, prefix: prefix) == ["put a=1", "put b=", "delete a", "put c=3", "delete b", "put a=4"])
        #expect(recorder.events.last?.keyValue.modRevision == last)
        #expect(recorder.revisions.last == last)
        // A deletion carries its key and revision.
        guard case .delete(let deleted) = recorder.events[2] else { Issue.record("not a deletion"); return }
        #expect(deleted.key == prefix + bytes("a"))
        // (Its own revision: other tests write to the same etcd meanwhile, so revisions need not be
        // consecutive.)
        #expect(deleted.modRevision == deletion.revision)
        // The two changes of one transaction share a revision.
        #expect(recorder.events[3].keyValue.modRevision == recorder.events[4].keyValue.modRevision)
    }

    @Test func fromNowSeesOnlyLaterChanges() throws {
        let client = try SharedEtcd.client()
        let key = uniquePrefix() + bytes("k")
        try client.put(key, bytes("old"))
        let recorder = Recorder()
        let writer = Thread {
            usleep(300_000)
            for i in 0..<5 { _ = try? client.put(key, Array(String(i).utf8)) }
        }
        writer.start()
        let stop = try client.watch(key, fromRevision: 0, deadline: MonotonicClock.now() + 5) {
            recorder.record($0, $1)
            return recorder.count < 5
        }
        #expect(stop == .handlerStopped)
        #expect(recorder.events.map(\.keyValue.value) == (0..<5).map { Array(String($0).utf8) })
    }

    @Test func theDeadlineEndsAQuietWatch() throws {
        let client = try SharedEtcd.client()
        var calls = 0
        let took = try seconds {
            let stop = try client.watch(uniquePrefix(), fromRevision: 0, deadline: MonotonicClock.now() + 0.5) { _, _ in
                calls += 1
                return true
            }
            #expect(stop == .timedOut)
        }
        #expect(calls == 0)
        #expect(took >= 0.5 && took < 0.8)
    }

    @Test func aClosedPipeEndsTheWatch() throws {
        let client = try SharedEtcd.client()
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[1]) }
        let reader = ends[0]
        Thread.detachNewThread {
            usleep(200_000)
            close(reader)  // whoever read our standard output went away
        }
        let took = try seconds {
            let stop = try client.watch(uniquePrefix(), fromRevision: 0, deadline: MonotonicClock.now() + 5, stopWhenReadable: ends[1]) { _, _ in true }
            #expect(stop == .descriptorClosed)
        }
        #expect(took < 1)
    }

    @Test func aCompactedStartRevisionIsAnError() throws {
        let cluster = try EtcdCluster(members: 1)
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 5)
        let first = try client.put(bytes("k"), [1])
        let latest = try client.put(bytes("k"), [2])
        try cluster.etcdctl("compaction", String(latest))
        let error = prefsError { _ = try client.watch(bytes("k"), fromRevision: first, deadline: MonotonicClock.now() + 5) { _, _ in true } }
        #expect(error == .storeRefused(endpoint: cluster.clientEndpoints[0], code: 11,
                                       message: "etcdserver: mvcc: required revision has been compacted (compacted to \(latest))", status: .dataError))
    }

    /// The member the watch is connected to is killed and restarted while changes go on: the watch
    /// moves to another member and resumes after the last revision it delivered, so every change
    /// comes exactly once, in order.
    @Test func aWatchSurvivesItsMemberBeingKilledAndRestarted() throws {
        let cluster = try EtcdCluster(members: 3)
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 5)
        // The writer's endpoint list is in another order, so what it remembers is its own: the
        // watch client's remembered endpoint is the one its stream is on.
        let writer = EtcdClient(endpoints: cluster.endpoints.reversed(), timeout: 5)
        let prefix = bytes("watched/")
        let total = 60
        let recorder = Recorder()
        let connected = Mutex<EtcdEndpoint?>(nil)
        let writes = Thread {
            // Wait for the watch, then write steadily; kill the watch's member a third of the way.
            while connected.withLock({ $0 }) == nil { usleep(10_000) }
            for i in 0..<total {
                if i == total / 3, let endpoint = connected.withLock({ $0 }), let member = cluster.endpoints.firstIndex(of: endpoint) {
                    cluster.kill(member: member)
                    usleep(100_000)
                    try? cluster.restart(member: member)
                }
                _ = try? writer.put(prefix + Array(String(format: "%03d", i).utf8), Array(String(i).utf8))
                if i % 7 == 0 { _ = try? writer.delete(prefix + Array(String(format: "%03d", i).utf8)) }
            }
        }
        let start = try client.put(prefix + bytes("start"), [])
        writes.start()
        var reconnections = 0
        var lastEndpoint: EtcdEndpoint?
        let stop = try client.watch(prefix, rangeEnd: EtcdClient.prefixEnd(prefix), fromRevision: start, deadline: MonotonicClock.now() + 20) { batch, revision in
            let endpoint = EtcdClient.lastAnswered.withLock { $0[cluster.endpoints] }
            if endpoint != lastEndpoint { reconnections += 1; lastEndpoint = endpoint }
            connected.withLock { $0 = endpoint }
            recorder.record(batch, revision)
            return recorder.count < 1 + total + (total + 6) / 7
        }
        #expect(stop == .handlerStopped)
        var expected = ["put start="]
        for i in 0..<total {
            expected.append("put \(String(format: "%03d", i))=\(i)")
            if i % 7 == 0 { expected.append("delete \(String(format: "%03d", i))") }
        }
        #expect(EtcdWatchTests.describe(recorder.events, prefix: prefix) == expected)
        let revisions = recorder.events.map(\.keyValue.modRevision)
        #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count)
        #expect(reconnections >= 2, "the watch did not move to another member")
    }

    /// The watch's member loses its leader (the two others are killed): etcd ends the stream (the
    /// watch asked it to), the watch waits for a member with a leader, and when the others come
    /// back it resumes with the changes made meanwhile, none twice.
    @Test func aWatchWhoseMemberLosesItsLeaderResumesWhenTheClusterComesBack() throws {
        let cluster = try EtcdCluster(members: 3)
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 8)
        let prefix = bytes("quorum/")
        let start = try client.put(prefix + bytes("0"), bytes("0"))
        let watched = try #require(EtcdClient.lastAnswered.withLock { $0[cluster.endpoints] })
        let others = cluster.endpoints.indices.filter { cluster.endpoints[$0] != watched }
        let events = Mutex<[String]>([])
        let changes = Thread {
            while events.withLock({ $0.count }) == 0 { usleep(10_000) }
            others.forEach { cluster.kill(member: $0) }
            usleep(1_500_000)
            for member in others { try? cluster.restart(member: member) }
            let writer = EtcdClient(endpoints: others.map { cluster.endpoints[$0] }, timeout: 5)
            for i in 1...3 { _ = try? writer.put(prefix + Array(String(i).utf8), Array(String(i).utf8)) }
        }
        changes.start()
        let stop = try client.watch(prefix, rangeEnd: EtcdClient.prefixEnd(prefix), fromRevision: start, deadline: MonotonicClock.now() + 15) { batch, _ in
            events.withLock { $0 += batch.map { String(decoding: $0.keyValue.value, as: UTF8.self) } }
            return events.withLock { $0.count } < 4
        }
        #expect(stop == .handlerStopped)
        #expect(events.withLock { $0 } == ["0", "1", "2", "3"])
        // One connection for the put, one for the stream, and more: etcd ended the stream.
        #expect(client.state.withLock { $0.connectionsOpened } >= 3)
    }

    /// A watch reads each change's state at its revision, external values included: the blob an
    /// older revision names is read at that revision, though the next overwrite removed it since.
    @Test func aPinnedRevisionReadsTheBlobsItNamed() throws {
        let client = try SharedEtcd.client()
        let prefix = String(decoding: uniquePrefix().dropLast(), as: UTF8.self)
        // No history, whose version would keep the first blob.
        let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "PREFS_EXTERNAL_THRESHOLD": "1K",
                                       "PREFS_HISTORY": "0"])
        let storage = EtcdSuiteStorage(etcd: client, prefix: prefix, name: "etcd://test/" + prefix, environment: environment)
        let files = FileSuiteStorage(fileSystem: InMemoryFileSystem(), environment: environment)
        let store = SuiteStore(storage: storage, files: files)
        let first = String(repeating: "a", count: 4000), second = String(repeating: "b", count: 4000)
        _ = try store.update(.suite("s")) { $0["big"] = .string(first) }
        let revision = try client.range(bytes(prefix)).revision
        _ = try store.update(.suite("s")) { $0["big"] = .string(second) }
        let blobs = bytes(prefix + "/.external/")
        #expect(try client.range(blobs, rangeEnd: EtcdClient.prefixEnd(blobs)).kvs.count == 1, "the first blob is gone")
        let then = SuiteStore(storage: storage.at(revision: revision), files: files)
        #expect(try then.loadMaterialized(.suite("s"))?.contents["big"] == .string(first))
        #expect(try store.loadMaterialized(.suite("s"))?.contents["big"] == .string(second))
    }
}
