import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// One backend made ready for a scenario: a `SuiteStore` over it, the directories the XDG variables
/// point to (registered defaults of packages and an administrator's files are files whatever the
/// store), and a way to look at and damage what the backend holds underneath the façade.
///
/// Every fixture is fresh: its own in-memory file system, temporary directory, `InMemoryEtcd`, or
/// prefix in the real cluster the whole test process shares (`SharedEtcd`), so scenarios run in
/// parallel.
final class ContractStore: @unchecked Sendable {
    let backend: Backend
    let fileSystem: any FileSystem
    /// Where `config/`, `data/`, `pkg/` (packages' registered defaults) and `xdg/` (an
    /// administrator's files) are.
    let root: String
    let environment: Environment
    let store: SuiteStore
    private let scratch: TemporaryDirectory?
    /// The etcd backends: the key-value store under the façade, and the store's prefix.
    let etcd: (any EtcdKV)?
    let prefix: String

    /// `variables` are set beside the fixture's own environment (`PREFS_HISTORY`, say).
    init(_ backend: Backend, variables: [String: String] = [:]) throws {
        self.backend = backend
        switch backend {
        case .fileMemory, .etcdFake:
            fileSystem = InMemoryFileSystem()
            root = "/home/test"
            scratch = nil
        case .fileDisk, .etcdReal:
            let directory = try TemporaryDirectory()
            fileSystem = LocalFileSystem()
            root = directory.path
            scratch = directory
        }
        try fileSystem.createDirectory(root, mode: 0o755)
        prefix = "contract/" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        var environment = Environment(["XDG_CONFIG_HOME": root + "/config", "XDG_DATA_HOME": root + "/data", "XDG_DATA_DIRS": root + "/pkg",
                                   "XDG_CONFIG_DIRS": root + "/xdg", "XDG_STATE_HOME": root + "/state", "PREFS_LOCK_TIMEOUT": "0.2", "PREFS_EXTERNAL_THRESHOLD": "1K",
                                   "PREFS_ETCD_TIMEOUT": "5"].merging(variables) { $1 })
        // No host of this machine: the host layers are there only where a scenario asks for a host.
        environment.machineIDFile = root + "/machine-id"
        self.environment = environment
        switch backend {
        case .fileMemory, .fileDisk:
            etcd = nil
            store = try SuiteStore.selected(url: nil, fileSystem: fileSystem, environment: environment)
        case .etcdFake:
            let memory = InMemoryEtcd()
            etcd = memory
            let storage = EtcdSuiteStorage(etcd: memory, prefix: prefix, name: "etcd://memory/" + prefix, environment: environment)
            store = SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: fileSystem, environment: environment))
        case .etcdReal:
            let cluster = try SharedEtcd.cluster()
            etcd = EtcdClient(endpoints: cluster.endpoints, timeout: 5)
            // As the command does: the store its URL selects.
            store = try SuiteStore.selected(url: cluster.url(prefix: prefix), fileSystem: fileSystem, environment: environment)
        }
    }

    /// Another writer of the same suites: a store of its own over the same backend (for the real
    /// cluster, its own client and connections), as another process would have.
    func anotherWriter() throws -> SuiteStore {
        switch backend {
        case .fileMemory, .fileDisk, .etcdFake:
            return SuiteStore(storage: store.storage, files: FileSuiteStorage(fileSystem: fileSystem, environment: environment))
        case .etcdReal:
            return try SuiteStore.selected(url: try SharedEtcd.cluster().url(prefix: prefix), fileSystem: fileSystem, environment: environment)
        }
    }

    /// The administrator's store of the fleet's managed values, where the store keeps some of its
    /// own (etcd: the store at `PREFIX/.managed`, opened by its URL as the command opens it); nil
    /// for files, whose managed values are only the machine's.
    func administrator() throws -> SuiteStore? {
        switch backend {
        case .fileMemory, .fileDisk:
            return nil
        case .etcdFake:
            let storage = EtcdSuiteStorage(etcd: try #require(etcd), managedValuesOf: prefix, name: "etcd://memory/\(prefix)/.managed", environment: environment)
            return SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: fileSystem, environment: environment))
        case .etcdReal:
            return try SuiteStore.selected(url: try SharedEtcd.cluster().url(prefix: prefix + "/.managed"), fileSystem: fileSystem, environment: environment)
        }
    }

    // MARK: Words, as the command types them

    @discardableResult
    func write(_ domain: Domain, _ words: String..., options: WriteOptions = WriteOptions()) throws -> ChangeOutcome {
        try store.write(try WriteRequest.parse(words[...], domain: domain.displayName), to: domain, options: options)
    }

    /// The value at a key path as `read` finds it (every layer), and the layer that gave it.
    func read(_ domain: Domain, _ key: String, scope: ReadScope = ReadScope()) throws -> (value: PrefValue, origin: Origin) {
        try store.value(at: try PrefKeyPath(argument: key), in: domain, scope: scope)
    }

    /// The suite's stored contents, external values as their references (empty when there is none).
    func stored(_ domain: Domain) throws -> PrefDictionary { try store.load(domain)?.contents ?? PrefDictionary() }

    // MARK: Underneath the façade

    /// Everything the backend holds, each entry with what tells whether it was rewritten: for the
    /// file store every directory and file under `root` (mode, inode and time, the bytes' SHA-256);
    /// for etcd every key under the prefix (its revisions: any put moves them). Equal footprints:
    /// nothing was written. With `contents` false, files are not read (names and kinds only).
    func footprint(contents: Bool = true) throws -> [String: String] {
        var entries: [String: String] = [:]
        if let etcd {
            let start = Array((prefix + "/").utf8)
            for kv in try etcd.range(start, rangeEnd: EtcdClient.prefixEnd(start), keysOnly: true).kvs {
                guard kv.modRevision > 0 else { throw TestFailure("a keys-only range came without revisions") }
                entries[String(decoding: kv.key, as: UTF8.self)] = "key rev \(kv.createRevision)-\(kv.modRevision) v\(kv.version)"
            }
        }
        func walk(_ path: String) throws {
            for name in try fileSystem.contentsOfDirectory(path) {
                let child = path + "/" + name
                guard let status = try fileSystem.status(of: child) else { continue }
                if status.isDirectory {
                    entries[child] = "directory \(String(status.mode, radix: 8))"
                    try walk(child)
                } else if contents {
                    let digest = BlobDigest.of(try fileSystem.contents(of: child), by: .sha256).bytes.map { String($0, radix: 16) }.joined()
                    entries[child] = "file \(String(status.mode, radix: 8)) inode \(status.inode) time \(status.modified) \(digest)"
                } else {
                    entries[child] = "file"
                }
            }
        }
        try walk(root)
        return entries
    }

    /// The names of what the store holds (the file store's directories and files, etcd's keys),
    /// with the root or prefix taken off: what a scenario expects to see, or not to see, written.
    func storedNames() throws -> [String] { try names(in: footprint(contents: false)).map(\.name) }

    /// The files (etcd: keys) of `storedNames`, without the directories.
    /// `storedFiles` but for the suites' histories (`.history/…` on etcd, `state/prefs/history/…` on files).
    func storedFilesOutsideHistory() throws -> [String] {
        try storedFiles().filter { !$0.hasPrefix(".history/") && !$0.hasPrefix("state/prefs/history/") }
    }

    func storedFiles() throws -> [String] { try names(in: footprint(contents: false)).filter { !$0.isDirectory }.map(\.name) }

    private func names(in entries: [String: String]) -> [(name: String, isDirectory: Bool)] {
        let cut = (etcd == nil ? root : prefix).count + 1
        return entries.filter { etcd == nil || !$0.key.hasPrefix(root) }.map { (String($0.key.dropFirst(cut)), $0.value.hasPrefix("directory")) }
            .sorted { $0.name < $1.name }
    }

    /// A file under `root` (registered defaults a package ships, an administrator's file), with
    /// its directories.
    func put(_ relative: String, _ bytes: [UInt8]) throws {
        let path = root + "/" + relative
        try fileSystem.createDirectory(splitPath(path).directory, mode: 0o755)
        try fileSystem.replace(path, with: bytes, newFileMode: 0o644)
    }

    /// Two ways a suite can hold what prefs cannot read, as another program or a bad disk leaves it.
    enum Damage: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// Bytes that do not parse: a file cut short; an etcd value that is no binary plist.
        case unparsable
        /// What prefs never writes: a file whose root is an array; an etcd key in the suite's place
        /// that no key name spells (`%zz`).
        case foreign
        var testDescription: String { rawValue }
    }

    /// Damages the stored suite `name` (which holds `key`). Returns the footprint after.
    @discardableResult
    func damage(suite name: String, key: String, _ damage: Damage) throws -> [String: String] {
        if let etcd {
            let layout = EtcdLayout(prefix: prefix)
            let place = try #require(EtcdLayout.place(of: .suite(name)))
            let operation: EtcdOperation = switch damage {
            case .unparsable: .put(key: layout.value(key, of: place), value: Array("bplist00 cut short".utf8), lease: 0)
            case .foreign: .put(key: layout.values(of: place) + Array("%zz".utf8), value: try PropertyList.encode(1, as: .binary), lease: 0)
            }
            _ = try etcd.txn(success: [operation])
        } else {
            let text = switch damage {
            case .unparsable: "<plist><dict><key>\(key)</key><string>v</dict></plist>"
            case .foreign: "<plist><array><string>\(key)</string></array></plist>"
            }
            try fileSystem.replace(try #require(try store.files.filePath(of: .suite(name))), with: Array(text.utf8), newFileMode: 0o600)
        }
        return try footprint()
    }

    /// Flips a byte of the largest thing the backend holds for a blob (the file, or a chunk).
    func damageBlob(uuid: String) throws {
        let entries = try footprint(contents: false).filter { $0.key.contains(uuid) && !$0.value.hasPrefix("directory") }.keys
        if let etcd {
            let values = try entries.map { key in (key, try etcd.range(Array(key.utf8)).kvs[0].value) }
            var (key, value) = try #require(values.max { $0.1.count < $1.1.count })
            value[value.count / 2] ^= 0xFF
            _ = try etcd.txn(success: [.put(key: Array(key.utf8), value: value, lease: 0)])
        } else {
            let path = try #require(entries.first)
            var bytes = try fileSystem.contents(of: path)
            bytes[bytes.count / 2] ^= 0xFF
            let status = try #require(try fileSystem.status(of: path))
            try fileSystem.replace(path, with: bytes, newFileMode: status.mode)
        }
    }
}
