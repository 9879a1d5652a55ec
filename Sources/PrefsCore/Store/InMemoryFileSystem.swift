import Glibc

/// A file system in memory, for tests: files, directories and symlinks with modes, inodes and
/// modification times, a lock per file, and the same errors as `LocalFileSystem`. Every
/// replacement gets a new inode and time, as an atomic rename does on disk.
public final class InMemoryFileSystem: FileSystem, @unchecked Sendable {
    enum Node {
        case file(bytes: [UInt8], mode: mode_t, inode: UInt64, modified: Int64)
        case directory(mode: mode_t)
        case symlink(String)
    }

    var nodes: [String: Node] = ["/": .directory(mode: 0o755)]
    var clock: Int64 = 0
    /// Shared locks held on files (by inode), as `createConfinedFile` takes them.
    var sharedLocks: [UInt64: Int] = [:]
    /// Held locks: `inode N` for a file, `directory PATH` for a directory standing in for a missing file.
    private var lockedFiles: Set<String> = []
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(files: [String: [UInt8]] = [:]) {
        pthread_mutex_init(mutex, nil)
        for (path, bytes) in files {
            try! createDirectory(splitPath(path).directory, mode: 0o755)
            try! replace(path, with: bytes, newFileMode: 0o600)
        }
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Every path and what is there — bytes, mode, inode and time of a file — so a test can check
    /// that nothing at all changed.
    public func snapshot() -> [String: String] {
        locked { nodes.mapValues { "\($0)" } }
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Symlinks followed at every component; nil when a component is missing.
    func resolveUnlocked(_ path: String, depth: Int = 0) -> String {
        guard depth < 40 else { return path }
        if case .symlink(let target)? = nodes[path] {
            let next = target.hasPrefix("/") ? target : splitPath(path).directory + "/" + target
            return resolveUnlocked(normalize(next), depth: depth + 1)
        }
        return path
    }

    func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    private func parentExists(_ path: String) -> Bool {
        if case .directory? = nodes[resolveUnlocked(splitPath(path).directory)] { return true }
        return false
    }

    public func contents(of path: String) throws -> [UInt8] {
        try locked {
            switch nodes[resolveUnlocked(normalize(path))] {
            case .file(let bytes, _, _, _)?: return bytes
            case .directory?: throw PrefsError.cannotRead(path: path, errno: EISDIR)
            default: throw PrefsError.fileNotFound(path: path)
            }
        }
    }

    public func status(of path: String) throws -> FileStatus? {
        locked {
            switch nodes[resolveUnlocked(normalize(path))] {
            case .file(let bytes, let mode, let inode, let modified)?:
                return FileStatus(isDirectory: false, mode: mode, size: bytes.count, inode: inode, modified: modified)
            case .directory(let mode)?:
                return FileStatus(isDirectory: true, mode: mode, size: 0, inode: 0, modified: 0)
            default:
                return nil
            }
        }
    }

    public func resolvingSymlinks(_ path: String) throws -> String {
        locked { resolveUnlocked(normalize(path)) }
    }

    public func contentsOfDirectory(_ path: String) throws -> [String] {
        locked {
            let directory = resolveUnlocked(normalize(path))
            let prefix = directory == "/" ? "/" : directory + "/"
            return nodes.keys.filter { $0.hasPrefix(prefix) && $0 != directory && !$0.dropFirst(prefix.count).contains("/") }
                .map { String($0.dropFirst(prefix.count)) }
        }
    }

    public func createDirectory(_ path: String, mode: mode_t) throws {
        try locked {
            var current = ""
            for part in normalize(path).split(separator: "/") {
                current += "/" + part
                switch nodes[resolveUnlocked(current)] {
                case .directory?: continue
                case nil: nodes[current] = .directory(mode: mode)
                default: throw PrefsError.cannotWrite(path: path, errno: ENOTDIR)
                }
            }
        }
    }

    public func replace(_ path: String, with bytes: [UInt8], newFileMode: mode_t) throws {
        try locked {
            let target = normalize(path)
            guard parentExists(target) else { throw PrefsError.cannotWrite(path: path, errno: ENOENT) }
            var mode = newFileMode & ~0o022
            switch nodes[target] {
            case .file(_, let existing, _, _)?: mode = existing
            case .directory?: throw PrefsError.cannotWrite(path: path, errno: EISDIR)
            case .symlink?: throw PrefsError.internalError("replace called on a symlink")
            case nil: break
            }
            let (directory, name) = splitPath(target)
            let stale = (directory == "/" ? "/" : directory + "/") + TemporaryName.prefix(for: name)
            for path in nodes.keys where path.hasPrefix(stale) { nodes[path] = nil }
            clock += 1
            nodes[target] = .file(bytes: bytes, mode: mode, inode: UInt64(clock), modified: clock)
        }
    }

    public func removeFile(_ path: String) throws {
        try locked {
            let target = normalize(path)
            if case .directory? = nodes[target] { throw PrefsError.cannotWrite(path: path, errno: EISDIR) }
            nodes[target] = nil
        }
    }

    public func withLock<T>(ofFile path: String, timeout: Double, _ body: () throws -> T) throws -> T {
        let target = normalize(path)
        var clock = LockWait(timeout: timeout)
        var key = ""
        while true {
            // The file's lock (by inode), or its directory's while there is no file; looked at and
            // taken at once, as the disk's re-check after taking it amounts to.
            let acquired = try locked { () throws -> Bool in
                switch nodes[target] {
                case .file(_, _, let inode, _)?: key = "inode \(inode)"
                case nil:
                    guard case .directory? = nodes[resolveUnlocked(splitPath(target).directory)] else { throw PrefsError.cannotWrite(path: path, errno: ENOENT) }
                    key = "directory " + splitPath(target).directory
                default: throw PrefsError.cannotWrite(path: path, errno: EISDIR)
                }
                return lockedFiles.insert(key).inserted
            }
            if acquired { break }
            guard clock.pause() else { throw PrefsError.lockUnavailable(path: path, seconds: timeout) }
        }
        defer { _ = locked { lockedFiles.remove(key) } }
        return try body()
    }

    /// Test helpers: a symlink, and direct access to what is stored.
    public func createSymlink(_ path: String, to target: String) {
        locked { nodes[normalize(path)] = .symlink(target) }
    }

    public func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws {
        try createDirectory(splitPath(path).directory, mode: 0o755)
        try locked {
            clock += 1
            let target = resolveUnlocked(normalize(path))
            guard parentExists(target) else { throw PrefsError.cannotWrite(path: path, errno: ENOENT) }
            nodes[target] = .file(bytes: bytes, mode: mode, inode: UInt64(clock), modified: clock)
        }
    }
}
