import Glibc
import Synchronization

/// A file system in memory, for tests: files, directories and symlinks with modes, inodes and
/// modification times, a lock per file, and the same errors as `LocalFileSystem`. Every
/// replacement gets a new inode and time, as an atomic rename does on disk.
package final class InMemoryFileSystem: FileSystem, Sendable {
    enum Node: Sendable {
        case file(bytes: [UInt8], mode: mode_t, inode: UInt64, modified: Int64)
        case directory(mode: mode_t)
        case symlink(String)
    }

    /// Everything the file system holds, touched only under the mutex.
    struct State: Sendable {
        var nodes: [String: Node] = ["/": .directory(mode: 0o755)]
        var clock: Int64 = 0
        /// Shared locks held on files (by inode), as `createConfinedFile` takes them.
        var sharedLocks: [UInt64: Int] = [:]
        /// Held locks: `inode N` for a file, `directory PATH` for a directory standing in for a missing file.
        var lockedFiles: Set<String> = []

        /// A path with any chain of symlinks at its last component followed.
        func resolve(_ path: String, depth: Int = 0) -> String {
            guard depth < 40 else { return path }
            if case .symlink(let target)? = nodes[path] {
                let next = target.hasPrefix("/") ? target : splitPath(path).directory + "/" + target
                return resolve(normalize(next), depth: depth + 1)
            }
            return path
        }

        func parentExists(_ path: String) -> Bool {
            if case .directory? = nodes[resolve(splitPath(path).directory)] { return true }
            return false
        }
    }

    private let state = Mutex(State())

    package var isWatchableByKernel: Bool { false }

    package init(files: [String: [UInt8]] = [:]) {
        for (path, bytes) in files {
            try! createDirectory(splitPath(path).directory, mode: 0o755)
            try! replace(path, with: bytes, newFileMode: 0o600)
        }
    }

    /// Every path and what is there — bytes, mode, inode and time of a file — so a test can check
    /// that nothing at all changed.
    package func snapshot() -> [String: String] {
        locked { s in s.nodes.mapValues { "\($0)" } }
    }

    func locked<T: Sendable, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        try state.withLock { (s: inout State) throws(E) -> T in try body(&s) }
    }

    package func contents(of path: String) throws -> [UInt8] {
        try locked { s in
            switch s.nodes[s.resolve(normalize(path))] {
            case .file(let bytes, _, _, _)?: return bytes
            case .directory?: throw PrefsError.cannotRead(path: path, errno: EISDIR)
            default: throw PrefsError.fileNotFound(path: path)
            }
        }
    }

    package func status(of path: String) throws -> FileStatus? {
        locked { s in
            switch s.nodes[s.resolve(normalize(path))] {
            case .file(let bytes, let mode, let inode, let modified)?:
                return FileStatus(isDirectory: false, mode: mode, size: bytes.count, inode: inode, modified: modified)
            case .directory(let mode)?:
                return FileStatus(isDirectory: true, mode: mode, size: 0, inode: 0, modified: 0)
            default:
                return nil
            }
        }
    }

    package func resolvingSymlinks(_ path: String) throws -> String {
        locked { s in s.resolve(normalize(path)) }
    }

    package func contentsOfDirectory(_ path: String) throws -> [String] {
        locked { s in
            let directory = s.resolve(normalize(path))
            let prefix = directory == "/" ? "/" : directory + "/"
            return s.nodes.keys.filter { $0.hasPrefix(prefix) && $0 != directory && !$0.dropFirst(prefix.count).contains("/") }
                .map { String($0.dropFirst(prefix.count)) }
        }
    }

    package func createDirectory(_ path: String, mode: mode_t) throws {
        try locked { s in
            var current = ""
            for part in normalize(path).split(separator: "/") {
                current += "/" + part
                switch s.nodes[s.resolve(current)] {
                case .directory?: continue
                case nil: s.nodes[current] = .directory(mode: mode)
                default: throw PrefsError.cannotWrite(path: path, errno: ENOTDIR)
                }
            }
        }
    }

    /// Never called: this file system holds no device, FIFO or socket (`status` reports none).
    package func writeSpecial(_ path: String, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        throw PrefsError.cannotWrite(path: path, errno: ENODEV)
    }

    package func replace(_ path: String, with bytes: [UInt8], newFileMode: mode_t) throws {
        try locked { s in
            let target = normalize(path)
            guard s.parentExists(target) else { throw PrefsError.cannotWrite(path: path, errno: ENOENT) }
            var mode = newFileMode & ~0o022
            switch s.nodes[target] {
            case .file(_, let existing, _, _)?: mode = existing
            case .directory?: throw PrefsError.cannotWrite(path: path, errno: EISDIR)
            case .symlink?: throw PrefsError.internalError("replace called on a symlink")
            case nil: break
            }
            let (directory, name) = splitPath(target)
            let parent = directory == "/" ? "/" : directory + "/"
            for path in s.nodes.keys where path.hasPrefix(parent) && TemporaryName.isTemporary(String(path.dropFirst(parent.count)), of: name) {
                s.nodes[path] = nil
            }
            s.clock += 1
            s.nodes[target] = .file(bytes: bytes, mode: mode, inode: UInt64(s.clock), modified: s.clock)
        }
    }

    package func removeFile(_ path: String) throws {
        try locked { s in
            let target = normalize(path)
            if case .directory? = s.nodes[target] { throw PrefsError.cannotWrite(path: path, errno: EISDIR) }
            s.nodes[target] = nil
        }
    }

    package func isHeldByAWriter(_ path: String) -> Bool {
        locked { s in
            guard case .file(_, _, let inode, _)? = s.nodes[s.resolve(normalize(path))] else { return false }
            return s.lockedFiles.contains("inode \(inode)")
        }
    }

    package func withLock<T>(ofFile path: String, timeout: Double, _ body: () throws -> T) throws -> T {
        let target = normalize(path)
        var wait = LockWait(timeout: timeout)
        var key = ""
        while true {
            // The file's lock (by inode), or its directory's while there is no file; looked at and
            // taken at once, as the disk's re-check after taking it amounts to.
            let acquired = try locked { (s: inout State) throws -> Bool in
                switch s.nodes[target] {
                case .file(_, _, let inode, _)?: key = "inode \(inode)"
                case nil:
                    guard case .directory? = s.nodes[s.resolve(splitPath(target).directory)] else { throw PrefsError.cannotWrite(path: path, errno: ENOENT) }
                    key = "directory " + splitPath(target).directory
                default: throw PrefsError.cannotWrite(path: path, errno: EISDIR)
                }
                return s.lockedFiles.insert(key).inserted
            }
            if acquired { break }
            guard wait.pause() else { throw PrefsError.lockUnavailable(path: path, seconds: timeout) }
        }
        defer { _ = locked { s in s.lockedFiles.remove(key) } }
        return try body()
    }

    /// Test helpers: a symlink, and direct access to what is stored.
    package func createSymlink(_ path: String, to target: String) {
        locked { s in s.nodes[normalize(path)] = .symlink(target) }
    }

    package func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws {
        try createDirectory(splitPath(path).directory, mode: 0o755)
        try locked { s in
            s.clock += 1
            let target = s.resolve(normalize(path))
            guard s.parentExists(target) else { throw PrefsError.cannotWrite(path: path, errno: ENOENT) }
            s.nodes[target] = .file(bytes: bytes, mode: mode, inode: UInt64(s.clock), modified: s.clock)
        }
    }
}

/// `path` made absolute with `.` and `..` resolved textually.
func normalize(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/") where part != "." {
        if part == ".." { _ = parts.popLast() } else { parts.append(part) }
    }
    return "/" + parts.joined(separator: "/")
}
