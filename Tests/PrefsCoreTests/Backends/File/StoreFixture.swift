import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// The two file systems file-store tests run on: the in-memory one and, as a contract the fake must
/// keep, the real one in a temporary directory — the same scenarios, the same results. (What every
/// backend must do, files and etcd alike, is `BackendContractTests`.)
enum FileSystemKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, disk
    var testDescription: String { rawValue }
}

/// A file system with a configuration directory, ready for a scenario.
final class StoreFixture {
    let fileSystem: any FileSystem
    let root: String
    private let scratch: TemporaryDirectory?

    init(_ kind: FileSystemKind) throws {
        switch kind {
        case .memory:
            fileSystem = InMemoryFileSystem()
            root = "/home/test"
            scratch = nil
        case .disk:
            let directory = try TemporaryDirectory()
            fileSystem = LocalFileSystem()
            root = directory.path
            scratch = directory
        }
        try fileSystem.createDirectory(root, mode: 0o755)
    }

    var config: String { root + "/config" }
    var store: SuiteStore { SuiteStore(fileSystem: fileSystem, environment: Environment(["XDG_CONFIG_HOME": config, "XDG_DATA_DIRS": root + "/pkg", "XDG_CONFIG_DIRS": root + "/xdg", "PREFS_LOCK_TIMEOUT": "0.2"])) }

    func put(_ relative: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws {
        let path = root + "/" + relative
        if let memory = fileSystem as? InMemoryFileSystem {
            try memory.write(path, bytes, mode: mode)
        } else {
            try fileSystem.createDirectory(splitPath(path).directory, mode: 0o755)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            chmod(path, mode)
        }
    }

    func symlink(_ relative: String, to target: String) throws {
        if let memory = fileSystem as? InMemoryFileSystem {
            memory.createSymlink(root + "/" + relative, to: target)
        } else {
            try FileManager.default.createSymbolicLink(atPath: root + "/" + relative, withDestinationPath: target)
        }
    }

    func bytes(_ relative: String) throws -> [UInt8] { try fileSystem.contents(of: root + "/" + relative) }
    func status(_ relative: String) throws -> FileStatus? { try fileSystem.status(of: root + "/" + relative) }
    func names(_ relative: String) throws -> [String] { try fileSystem.contentsOfDirectory(root + "/" + relative).sorted() }
}
