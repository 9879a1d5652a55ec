import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// The etcd store for the contract suite: on its in-memory fake (with the fixture's files in memory)
/// or on a prefix of its own in the real cluster the whole test process shares (`SharedEtcd`, files
/// in a temporary directory), so scenarios run in parallel.
final class EtcdContractBackend: ContractBackend, @unchecked Sendable {
    private let files: ContractFiles
    var fileSystem: any FileSystem { files.fileSystem }
    var root: String { files.root }
    /// The key-value store under the façade, and the store's prefix in it.
    let etcd: any EtcdKV
    let prefix = "contract/" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    /// The real cluster's URL (nil: the in-memory fake, opened directly).
    private let url: String?

    init(real: Bool) throws {
        files = try ContractFiles(onDisk: real)
        if real {
            let cluster = try SharedEtcd.cluster()
            etcd = EtcdClient(endpoints: cluster.endpoints, timeout: 5)
            url = cluster.url(prefix: prefix)
        } else {
            etcd = InMemoryEtcd()
            url = nil
        }
    }

    /// As the command does: the store its URL selects (each call its own client and connections).
    func store(environment: Environment) throws -> SuiteStore {
        guard let url else {
            return store(over: EtcdSuiteStorage(etcd: etcd, prefix: prefix, name: "etcd://memory/" + prefix, environment: environment), environment: environment)
        }
        return try SuiteStore.selected(url: url, fileSystem: fileSystem, environment: environment)
    }

    func anotherWriter(of store: SuiteStore, environment: Environment) throws -> SuiteStore {
        try self.store(environment: environment)
    }

    /// The store at `PREFIX/.managed`, opened by its URL as the command opens it.
    func administrator(environment: Environment) throws -> SuiteStore? {
        guard let url else {
            let storage = EtcdSuiteStorage(etcd: etcd, managedValuesOf: prefix, name: "etcd://memory/\(prefix)/.managed", environment: environment)
            return store(over: storage, environment: environment)
        }
        return try SuiteStore.selected(url: url + "/.managed", fileSystem: fileSystem, environment: environment)
    }

    /// Every key under the prefix, with its revisions: any put moves them.
    func entries() throws -> [String: String] {
        var entries: [String: String] = [:]
        let start = Array((prefix + "/").utf8)
        for kv in try etcd.range(start, rangeEnd: EtcdClient.prefixEnd(start), keysOnly: true).kvs {
            guard kv.modRevision > 0 else { throw TestFailure("a keys-only range came without revisions") }
            entries[String(decoding: kv.key, as: UTF8.self)] = "key rev \(kv.createRevision)-\(kv.modRevision) v\(kv.version)"
        }
        return entries
    }

    func storedName(of entry: String) -> String? {
        entry.hasPrefix(prefix + "/") ? String(entry.dropFirst(prefix.count + 1)) : nil
    }

    /// A value that is no binary plist, or a key in the suite's place that no key name spells (`%zz`).
    func damage(suite name: String, key: String, _ damage: ContractStore.Damage, in store: SuiteStore) throws {
        let layout = EtcdLayout(prefix: prefix)
        let place = try #require(EtcdLayout.place(of: .suite(name)))
        let operation: EtcdOperation = switch damage {
        case .unparsable: .put(key: layout.value(key, of: place), value: Array("bplist00 cut short".utf8), lease: 0)
        case .foreign: .put(key: layout.values(of: place) + Array("%zz".utf8), value: try PropertyList.encode(1, as: .binary), lease: 0)
        }
        _ = try etcd.txn(success: [operation])
    }

    func damageBlob(_ entries: [String]) throws {
        let values = try entries.map { key in (key, try etcd.range(Array(key.utf8)).kvs[0].value) }
        var (key, value) = try #require(values.max { $0.1.count < $1.1.count })
        value[value.count / 2] ^= 0xFF
        _ = try etcd.txn(success: [.put(key: Array(key.utf8), value: value, lease: 0)])
    }

    /// By etcd's watch, where this etcd has one (`EtcdKV.canWatch`: not the in-memory fake).
    var canBeWatched: Bool { etcd.canWatch }
    /// One key per value: a one-key read or change reads that key alone.
    var oneKeyChangesReadTheWholeSuite: Bool { false }
}
