import Glibc

/// Confined places on disk: every component below the base is opened relative to its parent's
/// descriptor with `O_NOFOLLOW`, so no symlink there is followed, whatever races a hostile process
/// runs against us.
extension LocalFileSystem {
    /// The directory at `path`, open; with `create`, missing ones are made (0700) and synced into
    /// their parent.
    func openConfinedDirectory(_ path: ConfinedPath, create: Bool) throws(ConfinedError) -> FileDescriptor {
        var created: [ConfinedPath] = []
        return try openConfinedDirectory(path, create: create, created: &created)
    }

    /// `openConfinedDirectory(_:create:)`, adding to `created` each directory it made.
    func openConfinedDirectory(_ path: ConfinedPath, create: Bool, created: inout [ConfinedPath]) throws(ConfinedError) -> FileDescriptor {
        var current: FileDescriptor
        do {
            current = try FileDescriptor.open(path.base, O_RDONLY | O_DIRECTORY)
        } catch .notFound where create {
            let missing = path.missingBase { (try? status(of: $0)) != nil }
            do { try createDirectory(path.base, mode: 0o700) } catch { throw .system(path.prefix(0), errno: ENOENT) }
            created += missing
            do { current = try FileDescriptor.open(path.base, O_RDONLY | O_DIRECTORY) } catch { throw .system(path.prefix(0), errno: error.code) }
        } catch {
            throw error == .notFound ? .missing(path.prefix(0)) : .system(path.prefix(0), errno: error.code)
        }
        for (i, component) in path.components.enumerated() {
            current = try openDirectory(component, in: current, create: create, naming: path.prefix(i + 1), created: &created)
        }
        return current
    }

    /// One component below `parent`, never through a symlink.
    private func openDirectory(_ name: String, in parent: borrowing FileDescriptor, create: Bool,
                               naming path: ConfinedPath, created: inout [ConfinedPath]) throws(ConfinedError) -> FileDescriptor {
        for _ in 0..<10 {
            do {
                return try parent.open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
            } catch {
                switch error.code {
                case ENOENT where create:
                    if mkdirat(parent.raw, name, 0o700) == 0 {
                        created.append(path)
                    } else if errno != EEXIST {
                        throw .system(path, errno: errno)
                    }
                    _ = fsync(parent.raw)
                case ENOENT: throw .missing(path)
                case ELOOP, ENOTDIR: throw kindError(name, in: parent, path: path, code: error.code)
                default: throw .system(path, errno: error.code)
                }
            }
        }
        throw .system(path, errno: ENOENT)
    }

    /// What a name that could not be opened as expected is: a symlink, or something else.
    private func kindError(_ name: String, in parent: borrowing FileDescriptor, path: ConfinedPath, code: Int32) -> ConfinedError {
        var info = stat()
        guard fstatat(parent.raw, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .system(path, errno: code) }
        switch info.st_mode & S_IFMT {
        case S_IFLNK: return .symlink(path)
        case S_IFDIR: return .system(path, errno: code)
        default: return code == ENOTDIR ? .notADirectory(path) : .notARegularFile(path)
        }
    }

    package func createConfinedFile(in directory: ConfinedPath, name: () -> String) throws(ConfinedError) -> any ConfinedFile {
        var attempts = 0
        var created: [ConfinedPath] = []
        while true {
            attempts += 1
            let parent: FileDescriptor
            do {
                parent = try openConfinedDirectory(directory, create: true, created: &created)
            } catch .system(_, errno: ENOENT) where attempts < 100 {
                continue  // a directory on the way was removed by a concurrent cleanup (emptied, or a failed write's)
            }
            let candidate = name()
            // The directory is held shared from before the file is made until the file is held, so
            // that `isSettled` (which takes the directory exclusively) never finds it unheld between.
            let heldDirectory = parent.raw
            do throws(FileDescriptor.Errno) { try parent.lock(LOCK_SH) } catch {
                throw .system(directory, errno: error.code)
            }
            let file: FileDescriptor
            do {
                file = try parent.open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
            } catch {
                flock(heldDirectory, LOCK_UN)
                // Taken, or the directory was removed under us by a concurrent cleanup: try again.
                if (error == .exists || error == .notFound) && attempts < 100 { continue }
                throw .system(directory.appending(candidate), errno: error.code)
            }
            // Held shared until closed. A `removeIfUnused` that got in between the create and the
            // lock has unlinked the file: then it has no link left, and another name is taken.
            do throws(FileDescriptor.Errno) {
                defer { flock(heldDirectory, LOCK_UN) }
                try file.lock(LOCK_SH)
                guard try file.status().st_nlink > 0 else {
                    if attempts < 100 { continue }
                    throw FileDescriptor.Errno.notFound
                }
            } catch {
                throw .system(directory.appending(candidate), errno: error.code)
            }
            return LocalConfinedFile(file, directory: parent, path: directory.appending(candidate), isNew: true, createdDirectories: created)
        }
    }

    package func openConfinedFile(_ path: ConfinedPath) throws(ConfinedError) -> any ConfinedFile {
        let parent = try openConfinedDirectory(path.parent, create: false)
        let file = try openRegularFile(path, in: parent)
        // Opened without waiting (a FIFO must not hang us); read with waiting.
        _ = fcntl(file.raw, F_SETFL, fcntl(file.raw, F_GETFL) & ~O_NONBLOCK)
        return LocalConfinedFile(file, directory: parent, path: path, isNew: false)
    }

    /// The regular file `path.name` in `parent`, never through a symlink.
    private func openRegularFile(_ path: ConfinedPath, in parent: borrowing FileDescriptor) throws(ConfinedError) -> FileDescriptor {
        let file: FileDescriptor
        do {
            file = try parent.open(path.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch {
            if error == .notFound { throw .missing(path) }
            throw error.code == ELOOP ? kindError(path.name, in: parent, path: path, code: error.code) : .system(path, errno: error.code)
        }
        guard let info = try? file.status(), info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path) }
        return file
    }

    package func confinedEntries(_ directory: ConfinedPath) throws(ConfinedError) -> [ConfinedEntry] {
        let listed: FileDescriptor
        do {
            listed = try openConfinedDirectory(directory, create: false)
        } catch {
            if case .missing = error { return [] }
            throw error
        }
        // fdopendir takes a descriptor of its own to close.
        guard let stream = fdopendir(dup(listed.raw)) else { throw .system(directory, errno: errno) }
        defer { closedir(stream) }
        var entries: [ConfinedEntry] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            var info = stat()
            guard fstatat(listed.raw, bytes.map { CChar(bitPattern: $0) } + [0], &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
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

    /// A writer holds its directory shared while it makes a file and takes the file's lock
    /// (`createConfinedFile`), so with the directory held exclusively a file is either held or not
    /// a writer's at all. When the directory is held by such a writer now, the answer is no.
    package func isSettled(_ path: ConfinedPath) -> Bool {
        do {
            let parent = try openConfinedDirectory(path.parent, create: false)
            guard (try? parent.tryLock(LOCK_EX)) ?? false else { return false }
            let heldDirectory = parent.raw
            defer { flock(heldDirectory, LOCK_UN) }
            let file = try openRegularFile(path, in: parent)
            guard (try? file.tryLock(LOCK_EX)) ?? true else { return false }
            flock(file.raw, LOCK_UN)
            return true
        } catch {
            if case .missing = error { return false }
            return true
        }
    }

    package func removeIfUnused(_ path: ConfinedPath) throws(ConfinedError) -> BlobRemoval {
        let parent: FileDescriptor
        do {
            parent = try openConfinedDirectory(path.parent, create: false)
        } catch {
            if case .missing = error { return .missing }
            throw error
        }
        let file: FileDescriptor
        do {
            file = try openRegularFile(path, in: parent)
        } catch {
            if case .missing = error { return .missing }
            throw error
        }
        do {
            guard try file.tryLock(LOCK_EX) else { return .inUse }
        } catch {
            throw .system(path, errno: error.code)
        }
        // The name must still be the file that was locked (a rename could have put another there).
        var named = stat()
        guard fstatat(parent.raw, path.name, &named, AT_SYMLINK_NOFOLLOW) == 0 else { return .missing }
        guard let held = try? file.status(), named.st_ino == held.st_ino && named.st_dev == held.st_dev else { return .inUse }
        guard unlinkat(parent.raw, path.name, 0) == 0 else {
            if errno == ENOENT { return .missing }
            throw .system(path, errno: errno)
        }
        return .removed
    }

    package func removeConfinedDirectoryIfEmpty(_ path: ConfinedPath) -> Bool {
        // The base is not confined (it is found as any path is).
        if path.components.isEmpty { return rmdir(path.base) == 0 }
        guard let parent = try? openConfinedDirectory(path.parent, create: false) else { return false }
        return unlinkat(parent.raw, path.name, AT_REMOVEDIR) == 0
    }
}

/// An open file in a confined place on disk, with its directory's descriptor (for the rename). Both
/// are closed exactly once: by `close()` or when the object goes. A new file's shared lock is
/// released before its descriptor is closed: an flock belongs to the open file, and a child another
/// thread forks holds a copy of every descriptor until its exec, so a lock left to `close` could
/// outlive it (and `removeIfUnused` find the blob in use) for as long as that child takes to exec.
final class LocalConfinedFile: ConfinedFile, @unchecked Sendable {
    private var file: FileDescriptor?
    private let directory: FileDescriptor
    private var path: ConfinedPath
    private let isNew: Bool
    let createdDirectories: [ConfinedPath]

    init(_ file: consuming FileDescriptor, directory: consuming FileDescriptor, path: ConfinedPath, isNew: Bool,
         createdDirectories: [ConfinedPath] = []) {
        self.file = consume file
        self.directory = directory
        self.path = path
        self.isNew = isNew
        self.createdDirectories = createdDirectories
    }

    /// Runs `body` with the open file; `.system(EBADF)` once closed.
    private func withFile<T>(_ body: (borrowing FileDescriptor) throws(FileDescriptor.Errno) -> T) throws(ConfinedError) -> T {
        guard file != nil else { throw .system(path, errno: EBADF) }
        do { return try body(file!) } catch { throw .system(path, errno: error.code) }
    }

    func size() throws -> Int { try withFile { file throws(FileDescriptor.Errno) in try file.status().st_size.asInt } }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try withFile { file throws(FileDescriptor.Errno) in try file.read(into: buffer) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws { try withFile { file throws(FileDescriptor.Errno) in try file.writeAll(bytes) } }

    func sync() throws { try withFile { file throws(FileDescriptor.Errno) in try file.sync() } }

    func commit(as name: String) throws {
        guard renameat(directory.raw, path.name, directory.raw, name) == 0 else { throw ConfinedError.system(path, errno: errno) }
        path = path.parent.appending(name)
        do { try directory.sync() } catch { throw ConfinedError.system(path.parent, errno: error.code) }
    }

    func abandon() {
        guard isNew, file != nil else { return }
        unlinkat(directory.raw, path.name, 0)
    }

    func close() {
        _ = try? withFile { file throws(FileDescriptor.Errno) in flock(file.raw, LOCK_UN) }
        file = nil
    }

    deinit { close() }
}
