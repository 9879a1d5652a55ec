import Glibc
import Testing
@testable import PrefsCore

/// Range, put, delete, transactions and leases against a real etcd member.
@Suite(.blocking) struct EtcdKVTests {
    /// Keys and values that are not text: NUL, 0xFF, high bytes, an empty value.
    static let binaryPairs: [([UInt8], [UInt8])] = [
        ([0x00], [0x00, 0x00]),
        ([0xFF, 0xFE, 0x00, 0x01], [0xFF]),
        (Array("plain".utf8), []),
        (Array("é/ü".utf8), Array(0...255)),
        ([0x0A, 0x0D, 0x22, 0x5C], [0x22, 0x5C, 0x0A]),
    ]

    @Test(arguments: binaryPairs)
    func putAndRangeRoundTripBytes(key: [UInt8], value: [UInt8]) throws {
        let client = try SharedEtcd.client()
        let prefix = uniquePrefix()
        let full = prefix + key
        let revision = try client.put(full, value)
        let range = try client.range(full)
        #expect(range.kvs.count == 1)
        #expect(range.count == 1)
        #expect(range.kvs.first?.key == full)
        #expect(range.kvs.first?.value == value)
        #expect(range.kvs.first?.modRevision == revision)
        #expect(range.kvs.first?.createRevision == revision)
        #expect(range.kvs.first?.version == 1)
        #expect(range.revision >= revision)
        // etcdctl, an independent client, reads the same bytes (its JSON has them in base64).
        let json = try SharedEtcd.cluster().etcdctl("get", "--prefix", String(decoding: prefix, as: UTF8.self), "-w", "json")
        #expect(json.contains("\"key\":\"\(Base64.encode(full))\""))
        #expect(value.isEmpty ? !json.contains("\"value\"") : json.contains("\"value\":\"\(Base64.encode(value))\""))
    }

    @Test func aMissingKeyIsAnEmptyRange() throws {
        let range = try SharedEtcd.client().range(uniquePrefix() + bytes("absent"))
        #expect(range.kvs.isEmpty)
        #expect(range.count == 0)
        #expect(!range.more)
        #expect(range.revision > 0)
    }

    @Test func rangeOverAPrefixWithLimitKeysOnlyAndCountOnly() throws {
        let client = try SharedEtcd.client()
        let prefix = uniquePrefix()
        for name in ["c", "a", "b"] { try client.put(prefix + bytes(name), bytes("value-" + name)) }
        let end = EtcdClient.prefixEnd(prefix)
        let all = try client.range(prefix, rangeEnd: end)
        #expect(all.kvs.map(\.key) == ["a", "b", "c"].map { prefix + bytes($0) })
        #expect(all.kvs.map(\.value) == ["a", "b", "c"].map { bytes("value-" + $0) })
        let limited = try client.range(prefix, rangeEnd: end, limit: 2)
        #expect(limited.kvs.count == 2)
        #expect(limited.count == 3)
        #expect(limited.more)
        let keys = try client.range(prefix, rangeEnd: end, keysOnly: true)
        #expect(keys.kvs.map(\.key) == all.kvs.map(\.key))
        #expect(keys.kvs.allSatisfy { $0.value.isEmpty })
        let counted = try client.range(prefix, rangeEnd: end, countOnly: true)
        #expect(counted.kvs.isEmpty)
        #expect(counted.count == 3)
    }

    @Test func rangeAtAnEarlierRevisionAndVersions() throws {
        let client = try SharedEtcd.client()
        let key = uniquePrefix() + bytes("k")
        let first = try client.put(key, bytes("one"))
        let second = try client.put(key, bytes("two"))
        #expect(second > first)
        #expect(try client.range(key, revision: first).kvs.first?.value == bytes("one"))
        let now = try client.range(key).kvs.first
        #expect(now?.value == bytes("two"))
        #expect(now?.version == 2)
        #expect(now?.createRevision == first)
        #expect(now?.modRevision == second)
    }

    @Test func deleteOneKeyAndARange() throws {
        let client = try SharedEtcd.client()
        let prefix = uniquePrefix()
        for name in ["a", "b", "c"] { try client.put(prefix + bytes(name), [0]) }
        let one = try client.delete(prefix + bytes("a"))
        #expect(one.deleted == 1)
        #expect(try client.delete(prefix + bytes("a")).deleted == 0)
        let rest = try client.delete(prefix, rangeEnd: EtcdClient.prefixEnd(prefix))
        #expect(rest.deleted == 2)
        #expect(rest.revision > one.revision)
        #expect(try client.range(prefix, rangeEnd: EtcdClient.prefixEnd(prefix)).count == 0)
    }

    @Test func txnSucceedsWhenTheComparisonsHold() throws {
        let client = try SharedEtcd.client()
        let prefix = uniquePrefix()
        let key = prefix + [0x00, 0xFF]
        let created = try client.put(key, bytes("v1"))
        let result = try client.txn(
            compare: [.modRevision(key: key, op: .equal, created), .version(key: key, op: .equal, 1),
                      .createRevision(key: prefix + bytes("new"), op: .equal, 0)],
            success: [.range(key: key), .put(key: key, value: []), .put(key: prefix + bytes("new"), value: [0xFF]),
                      .range(key: prefix, rangeEnd: EtcdClient.prefixEnd(prefix), keysOnly: true), .delete(key: prefix + bytes("nothing"))],
            failure: [.range(key: key)])
        #expect(result.succeeded)
        #expect(result.revision > created)
        #expect(result.ranges.count == 2)
        #expect(result.ranges.first?.kvs.first?.value == bytes("v1"))
        // Operations see the ones before them in the transaction.
        #expect(result.ranges.last?.kvs.map(\.key) == [key, prefix + bytes("new")])
        let after = try client.range(key).kvs.first
        #expect(after?.value == [])
        #expect(after?.modRevision == result.revision)
        #expect(try client.range(prefix + bytes("new")).kvs.first?.value == [0xFF])
    }

    @Test func txnRunsTheFailureBranchWhenAComparisonFails() throws {
        let client = try SharedEtcd.client()
        let key = uniquePrefix() + bytes("k")
        let revision = try client.put(key, bytes("v"))
        let result = try client.txn(
            compare: [.modRevision(key: key, op: .equal, revision - 1)],
            success: [.put(key: key, value: bytes("overwritten"))],
            failure: [.range(key: key), .range(key: key, keysOnly: true)])
        #expect(!result.succeeded)
        #expect(result.revision >= revision)
        #expect(result.ranges.map { $0.kvs.first?.value } == [bytes("v"), []])
        #expect(try client.range(key).kvs.first?.value == bytes("v"))
        let greater = try client.txn(compare: [.version(key: key, op: .greater, 1)], success: [.delete(key: key)])
        #expect(!greater.succeeded)
        #expect(greater.ranges.isEmpty)
    }

    @Test func txnModRevisionOverARange() throws {
        let client = try SharedEtcd.client()
        let prefix = uniquePrefix()
        let end = EtcdClient.prefixEnd(prefix)
        let revision = try client.put(prefix + bytes("a"), [1])
        try client.put(prefix + bytes("b"), [2])
        // Every key in the range must satisfy the comparison: b was modified after `revision`.
        let all = try client.txn(compare: [.modRevision(key: prefix, rangeEnd: end, op: .less, revision + 1)], success: [])
        #expect(!all.succeeded)
        let later = try client.txn(compare: [.modRevision(key: prefix, rangeEnd: end, op: .greater, revision - 1)], success: [])
        #expect(later.succeeded)
    }

    @Test func leasesGrantKeepAliveAndRevoke() throws {
        let client = try SharedEtcd.client()
        let key = uniquePrefix() + bytes("leased")
        let lease = try client.grantLease(ttl: 30)
        #expect(lease != 0)
        try client.put(key, bytes("v"), lease: lease)
        #expect(try client.range(key).kvs.first?.lease == lease)
        #expect(try client.keepAlive(lease) == 30)
        try client.revokeLease(lease)
        #expect(try client.range(key).count == 0)
        let gone = prefsError { try client.keepAlive(lease) }
        #expect(gone == .storeRefused(endpoint: try SharedEtcd.cluster().clientEndpoints[0], code: 5, message: "etcdserver: requested lease not found", status: .dataError))
        let revoked = prefsError { try client.revokeLease(lease) }
        if case .storeRefused(_, let code, let message, _)? = revoked {
            #expect(code == 5)
            #expect(message.contains("lease not found"))
        } else {
            Issue.record("revoking twice: \(String(describing: revoked))")
        }
    }

    @Test func etcdErrorsAreStoreRefusedWithTheirCode() throws {
        let client = try SharedEtcd.client()
        let endpoint = try SharedEtcd.cluster().clientEndpoints[0]
        // An empty key is refused by etcd with INVALID_ARGUMENT.
        let empty = prefsError { try client.put([], [1]) }
        #expect(empty == .storeRefused(endpoint: endpoint, code: 3, message: "etcdserver: key is not provided", status: .dataError))
        #expect(empty?.exitStatus == .dataError)
        // More operations than --max-txn-ops (128).
        let many = (0..<129).map { EtcdOperation.put(key: uniquePrefix() + [UInt8($0)], value: []) }
        let tooMany = prefsError { _ = try client.txn(compare: [], success: many) }
        if case .storeRefused(_, 3, let message, .dataError)? = tooMany { #expect(message.contains("too many operations")) } else {
            Issue.record("129 operations: \(String(describing: tooMany))")
        }
        // A lease that does not exist.
        let noLease = prefsError { try client.put(uniquePrefix(), [1], lease: 12345) }
        #expect(noLease == .storeRefused(endpoint: endpoint, code: 5, message: "etcdserver: requested lease not found", status: .dataError))
    }

    @Test func aLargeValueRoundTripsAndATooLargeRequestIsRefused() throws {
        let client = try SharedEtcd.client()
        let key = uniquePrefix()
        // 1 MiB goes through (etcd takes requests up to 1.5 MiB by default) in several reads.
        let large = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        try client.put(key, large)
        #expect(try client.range(key).kvs.first?.value == large)
        let error = prefsError { try client.put(key, large + large) }
        guard case .storeRefused(_, let code, let message, .dataError)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(code == 8 || code == 3, "\(code): \(message)")
        #expect(message.contains("too large") || message.contains("larger than max"), "\(message)")
        #expect(error?.exitStatus == .dataError)
    }

    @Test func keptAliveConnectionsAreReused() throws {
        let client = try SharedEtcd.client()
        let key = uniquePrefix()
        for i in 0..<20 { try client.put(key, [UInt8(i)]) }
        for _ in 0..<20 { _ = try client.range(key) }
        #expect(client.state.withLock { $0.connectionsOpened } == 1)
        // A server that closed the idle connection meanwhile costs one new connection, no error.
        let idle = try #require(client.state.withLock { $0.idle.first?.connection })
        shutdown(idle.socket.raw, Int32(SHUT_RDWR))
        #expect(try client.range(key).kvs.first?.value == [19])
        #expect(client.state.withLock { $0.connectionsOpened } == 2)
    }

    @Test func callsFromManyThreadsAtOnce() async throws {
        let client = try SharedEtcd.client()
        let prefix = uniquePrefix()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<16 {
                group.addTask {
                    for j in 0..<10 { try client.put(prefix + [UInt8(i), UInt8(j)], [UInt8(j)]) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try client.range(prefix, rangeEnd: EtcdClient.prefixEnd(prefix), countOnly: true).count == 160)
        #expect(client.state.withLock { state in client.endpoints.map { endpoint in state.idle.count { $0.endpoint == endpoint } }.max() ?? 0 } <= EtcdClient.idleLimit)
    }
}
