import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// The file store for the contract suite, on the in-memory file system or in a temporary directory
/// on disk: its suites are the files under the fixture's `root`.
final class FileContractBackend: ContractBackend, @unchecked Sendable {
    private let files: ContractFiles
    var fileSystem: any FileSystem { files.fileSystem }
    var root: String { files.root }

    init(onDisk: Bool) throws { files = try ContractFiles(onDisk: onDisk) }

    /// As the command does without a URL: suites are files.
    func store(environment: Environment) throws -> SuiteStore {
        try SuiteStore.selected(url: nil, fileSystem: fileSystem, environment: environment)
    }

    /// The same storage object, as the writers of one process share it; the suites' files and
    /// their locks are what the writers meet on.
    func anotherWriter(of store: SuiteStore, environment: Environment) throws -> SuiteStore {
        SuiteStore(storage: store.storage, files: FileSuiteStorage(fileSystem: fileSystem, environment: environment))
    }

    func storedName(of entry: String) -> String? {
        entry.hasPrefix(root + "/") ? String(entry.dropFirst(root.count + 1)) : nil
    }

    /// A file cut short (it does not parse), or one whose root is an array (prefs never writes it).
    func damage(suite name: String, key: String, _ damage: ContractStore.Damage, in store: SuiteStore) throws {
        let text = switch damage {
        case .unparsable: "<plist><dict><key>\(key)</key><string>v</dict></plist>"
        case .foreign: "<plist><array><string>\(key)</string></array></plist>"
        }
        try fileSystem.replace(try #require(try store.files.filePath(of: .suite(name))), with: Array(text.utf8), newFileMode: 0o600)
    }

    func damageBlob(_ entries: [String]) throws {
        let path = try #require(entries.first)
        var bytes = try fileSystem.contents(of: path)
        bytes[bytes.count / 2] ^= 0xFF
        let status = try #require(try fileSystem.status(of: path))
        try fileSystem.replace(path, with: bytes, newFileMode: status.mode)
    }

    /// By inotify on disk, by polling on the in-memory file system.
    var canBeWatched: Bool { true }
    /// A file suite is one document: its structure is checked on every read, and every change
    /// re-reads it whole.
    var oneKeyChangesReadTheWholeSuite: Bool { true }
}
