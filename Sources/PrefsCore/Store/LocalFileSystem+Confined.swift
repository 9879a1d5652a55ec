import Glibc

/// Confined places on disk: every component below the base is opened relative to its parent's
/// descriptor with `O_NOFOLLOW`, so no symlink there is followed, whatever races a hostile process
/// runs against us.
extension LocalFileSystem {
    /// The directory at `path`, open; with `create`, missing ones are made (0700) and synced into
    /// their parent. The caller closes the descriptor.
    func openConfinedDirectory(_ path: ConfinedPath, create: Bool) throws(ConfinedError) -> Int32 {
        var current = Glibc.open(path.base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if current < 0 && errno == ENOENT && create {
            do { try createDirectory(path.base, mode: 0o700) } catch { throw .system(path.prefix(0), errno: ENOENT) }
            current = Glibc.open(path.base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard current >= 0 else { throw errno == ENOENT ? .missing(path.prefix(0)) : .system(path.prefix(0), errno: errno) }
        for (i, component) in path.components.enumerated() {
            let next: Int32
            do {
                next = try openDirectory(component, in: current, create: create, naming: path.prefix(i + 1))
            } catch {
                Glibc.close(current)
                throw error
            }
            Glibc.close(current)
            current = next
        }
        return current
    }

    /// One component below `parent`, never through a symlink.
    private func openDirectory(_ name: String, in parent: Int32, create: Bool, naming path: ConfinedPath) throws(ConfinedError) -> Int32 {
        for _ in 0..<10 {
            let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 { return fd }
            let code = errno
            switch code {
            case ENOENT where create:
                guard mkdirat(parent, name, 0o700) == 0 || errno == EEXIST else { throw .system(path, errno: errno) }
                _ = fsync(parent)
            case ENOENT: throw .missing(path)
            case ELOOP, ENOTDIR: throw kindError(name, in: parent, path: path, code: code)
            default: throw .system(path, errno: code)
            }
        }
        throw .system(path, errno: ENOENT)
    }

    /// What a name that could not be opened as expected is: a symlink, or something else.
    private func kindError(_ name: String, in parent: Int32, path: ConfinedPath, code: Int32) -> ConfinedError {
        var info = stat()
        guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .system(path, errno: code) }
        switch info.st_mode & S_IFMT {
        case S_IFLNK: return .symlink(path)
        case S_IFDIR: return .system(path, errno: code)
        default: return code == ENOTDIR ? .notADirectory(path) : .notARegularFile(path)
        }
    }

    public func createConfinedFile(in directory: ConfinedPath, name: () -> String) throws(ConfinedError) -> any ConfinedFile {
        var attempts = 0
        while true {
            attempts += 1
            let parent = try openConfinedDirectory(directory, create: true)
            let candidate = name()
            let fd = openat(parent, candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                let code = errno
                Glibc.close(parent)
                // Taken, or the directory was removed under us by a concurrent cleanup: try again.
                if (code == EEXIST || code == ENOENT) && attempts < 100 { continue }
                throw .system(directory.appending(candidate), errno: code)
            }
            // Held shared until closed. A `removeIfUnused` that got in between the create and the
            // lock has unlinked the file: then it has no link left, and another name is taken.
            var info = stat()
            while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
            guard fstat(fd, &info) == 0, info.st_nlink > 0 else {
                Glibc.close(fd)
                Glibc.close(parent)
                if attempts < 100 { continue }
                throw .system(directory.appending(candidate), errno: ENOENT)
            }
            return LocalConfinedFile(fd: fd, directory: parent, path: directory.appending(candidate), isNew: true)
        }
    }

    public func openConfinedFile(_ path: ConfinedPath) throws(ConfinedError) -> any ConfinedFile {
        let parent = try openConfinedDirectory(path.parent, create: false)
        let fd = openat(parent, path.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            defer { Glibc.close(parent) }
            if code == ENOENT { throw .missing(path) }
            throw code == ELOOP ? kindError(path.name, in: parent, path: path, code: code) : .system(path, errno: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            Glibc.close(parent)
            throw .notARegularFile(path)
        }
        return LocalConfinedFile(fd: fd, directory: parent, path: path, isNew: false)
    }

    public func confinedEntries(_ directory: ConfinedPath) throws(ConfinedError) -> [ConfinedEntry] {
        let fd: Int32
        do {
            fd = try openConfinedDirectory(directory, create: false)
        } catch {
            if case .missing = error { return [] }
            throw error
        }
        guard let stream = fdopendir(fd) else {
            Glibc.close(fd)
            throw .system(directory, errno: errno)
        }
        defer { closedir(stream) }
        var entries: [ConfinedEntry] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            var info = stat()
            let statted = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { name in
                    var terminated = Array(name) + [0]
                    return fstatat(fd, &terminated, &info, AT_SYMLINK_NOFOLLOW) == 0
                }
            }
            guard statted else { continue }
            let kind: ConfinedEntry.Kind = switch info.st_mode & S_IFMT {
            case S_IFREG: .file
            case S_IFDIR: .directory
            case S_IFLNK: .symlink
            default: .other
            }
            let name = String(validating: bytes, as: UTF8.self)
            entries.append(ConfinedEntry(name: name ?? String(decoding: bytes, as: UTF8.self), kind: kind, size: Int(info.st_size),
                                         modified: Int64(info.st_mtim.tv_sec), nameIsUTF8: name != nil))
        }
        return entries.sorted { $0.name.utf8Compare($1.name) < 0 }
    }

    public func removeIfUnused(_ path: ConfinedPath) throws(ConfinedError) -> ConfinedRemoval {
        let parent: Int32
        do {
            parent = try openConfinedDirectory(path.parent, create: false)
        } catch {
            if case .missing = error { return .missing }
            throw error
        }
        defer { Glibc.close(parent) }
        let fd = openat(parent, path.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return .missing }
            throw code == ELOOP ? kindError(path.name, in: parent, path: path, code: code) : .system(path, errno: code)
        }
        defer { Glibc.close(fd) }
        var held = stat(), named = stat()
        guard fstat(fd, &held) == 0, held.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            if errno == EWOULDBLOCK { return .inUse }
            throw .system(path, errno: errno)
        }
        // The name must still be the file that was locked (a rename could have put another there).
        guard fstatat(parent, path.name, &named, AT_SYMLINK_NOFOLLOW) == 0 else { return .missing }
        guard named.st_ino == held.st_ino && named.st_dev == held.st_dev else { return .inUse }
        guard unlinkat(parent, path.name, 0) == 0 else {
            if errno == ENOENT { return .missing }
            throw .system(path, errno: errno)
        }
        return .removed
    }

    public func removeConfinedDirectoryIfEmpty(_ path: ConfinedPath) -> Bool {
        guard !path.components.isEmpty, let parent = try? openConfinedDirectory(path.parent, create: false) else { return false }
        defer { Glibc.close(parent) }
        return unlinkat(parent, path.name, AT_REMOVEDIR) == 0
    }
}

/// An open file in a confined place on disk, with its directory's descriptor (for the rename).
final class LocalConfinedFile: ConfinedFile, @unchecked Sendable {
    private var fd: Int32
    private let directory: Int32
    private var path: ConfinedPath
    private let isNew: Bool

    init(fd: Int32, directory: Int32, path: ConfinedPath, isNew: Bool) {
        self.fd = fd
        self.directory = directory
        self.path = path
        self.isNew = isNew
        if !isNew { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
    }

    deinit { close() }

    func size() throws -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ConfinedError.system(path, errno: errno) }
        return Int(info.st_size)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        do { return try FileDescriptor(raw: fd).read(into: buffer) } catch { throw ConfinedError.system(path, errno: error.code) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        do { try FileDescriptor(raw: fd).writeAll(bytes) } catch { throw ConfinedError.system(path, errno: error.code) }
    }

    func sync() throws {
        do { try FileDescriptor(raw: fd).sync() } catch { throw ConfinedError.system(path, errno: error.code) }
    }

    func commit(as name: String) throws {
        guard renameat(directory, path.name, directory, name) == 0 else { throw ConfinedError.system(path, errno: errno) }
        path = path.parent.appending(name)
        guard fsync(directory) == 0 else { throw ConfinedError.system(path.parent, errno: errno) }
    }

    func abandon() {
        guard isNew, fd >= 0 else { return }
        unlinkat(directory, path.name, 0)
    }

    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        Glibc.close(directory)
        fd = -1
    }
}
