import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// One backend as the contract fixture (`ContractStore`) needs it: stores over it, the
/// administrator's store where it keeps managed values of its own, and a look at (and a way to
/// damage) what it holds underneath the façade. One conformer per backend, in the backend's folder
/// (`File/`, `Etcd/`, `Minimal/`); the fixture never asks which backend it holds.
protocol ContractBackend: Sendable {
    /// The file system the fixture's directories (`config/`, `data/`, `pkg/`, `xdg/`) are on, and
    /// where under it: registered defaults of packages and an administrator's files are files
    /// whatever the store.
    var fileSystem: any FileSystem { get }
    var root: String { get }

    /// A store over the backend, with the fixture's files, as a process started with `environment`
    /// opens it.
    func store(environment: Environment) throws -> SuiteStore
    /// Another writer of the same suites beside `store`: a store of its own over the same backend
    /// (for a real cluster, its own client and connections), as another process would have.
    func anotherWriter(of store: SuiteStore, environment: Environment) throws -> SuiteStore
    /// The administrator's store of the fleet's managed values, where the backend keeps some of its
    /// own; nil where managed values are only the machine's files.
    func administrator(environment: Environment) throws -> SuiteStore?

    /// Everything the backend holds outside the fixture's directories, each entry with what tells
    /// whether it was rewritten (empty for a backend whose suites are files under `root`).
    func entries() throws -> [String: String]
    /// The name of a footprint entry (a path under `root`, or a name from `entries`) as the backend
    /// holds it, from its own root; nil for what is not the backend's (the administrator's files
    /// beside an etcd store).
    func storedName(of entry: String) -> String?
    /// Damages the stored suite `name` (which holds `key`) as another program or a bad disk would.
    func damage(suite name: String, key: String, _ damage: ContractStore.Damage, in store: SuiteStore) throws
    /// Flips a byte of the largest of `entries` (footprint names holding one blob): the file, or a chunk.
    func damageBlob(_ entries: [String]) throws

    /// Whether the façade can watch the store (`SuiteBackend.watcher`); one that cannot refuses
    /// `watch` (64, `SuiteStore.notWatchable`) before anything is read.
    var canBeWatched: Bool { get }
    /// Whether a one-key read or change of a suite reads the whole suite, and so fails on damage
    /// anywhere in it: a file suite is one document; an etcd suite is one key per value.
    var oneKeyChangesReadTheWholeSuite: Bool { get }
}

extension ContractBackend {
    func administrator(environment: Environment) throws -> SuiteStore? { nil }
    func entries() throws -> [String: String] { [:] }

    /// A store over `storage` with the fixture's own files named by their paths.
    func store(over storage: any SuiteBackend, environment: Environment) -> SuiteStore {
        SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: fileSystem, environment: environment))
    }
}

/// Where a conformer keeps the fixture's files: an in-memory file system at `/home/test`, or a
/// temporary directory on disk (kept as long as the conformer).
struct ContractFiles: @unchecked Sendable {
    let fileSystem: any FileSystem
    let root: String
    private let scratch: TemporaryDirectory?

    init(onDisk: Bool) throws {
        if onDisk {
            let directory = try TemporaryDirectory()
            (fileSystem, root, scratch) = (LocalFileSystem(), directory.path, directory)
        } else {
            (fileSystem, root, scratch) = (InMemoryFileSystem(), "/home/test", nil)
        }
    }
}

/// Every directory and file under `root` on `fileSystem` (mode, inode and time, the bytes' SHA-256;
/// names and kinds only without `contents`), by path.
func fileFootprint(_ root: String, on fileSystem: any FileSystem, contents: Bool) throws -> [String: String] {
    var entries: [String: String] = [:]
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
