import Glibc

extension LocalFileSystem {
    package func cacheFiles(in directory: ConfinedPath) -> (any CacheFiles)? { LocalCacheFiles(directory: directory) }
}

/// `CacheFiles` on disk: every component below the base opened relative to its parent with
/// `O_NOFOLLOW` and checked to be the user's own, so neither a planted symlink nor a directory or
/// file of another user (one `sudo` made in the user's home) is ever read or written through.
struct LocalCacheFiles: CacheFiles {
    let directory: ConfinedPath

    func read(_ name: String, limit: Int) -> (bytes: [UInt8], modified: Double)? {
        guard let parent = open(create: false) else { return nil }
        defer { close(parent) }
        guard let file = openFile(name, in: parent) else { return nil }
        defer { close(file.descriptor) }
        guard file.info.st_size <= limit else { return nil }
        let size = Int(file.info.st_size)
        guard let bytes = try? FileDescriptor.borrowing(file.descriptor, { try $0.readAll(sizeHint: size, limit: limit) }), bytes.count <= limit else {
            return nil
        }
        return (bytes, Double(file.info.st_mtim.tv_sec) + Double(file.info.st_mtim.tv_nsec) / 1e9)
    }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> Bool {
        guard let parent = open(create: true) else { return false }
        defer { close(parent) }
        let temporary = ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let file = openat(parent, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { return false }
        let written = (try? FileDescriptor.borrowing(file) { try $0.writeAll(bytes) }) != nil
        close(file)
        guard written, renameat(parent, temporary, parent, name) == 0 else {
            unlinkat(parent, temporary, 0)
            return false
        }
        return true
    }

    func touch(_ name: String) {
        guard let parent = open(create: false) else { return }
        defer { close(parent) }
        guard let file = openFile(name, in: parent) else { return }
        futimens(file.descriptor, nil)
        close(file.descriptor)
    }

    func remove(_ name: String) {
        guard let parent = open(create: false) else { return }
        unlinkat(parent, name, 0)
        close(parent)
    }

    func entries() -> [ConfinedEntry] {
        guard let parent = open(create: false), let stream = fdopendir(parent) else { return [] }
        defer { closedir(stream) }
        var entries: [ConfinedEntry] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard bytes != [0x2E] && bytes != [0x2E, 0x2E], let name = String(validating: bytes, as: UTF8.self) else { continue }
            var info = stat()
            guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let kind: ConfinedEntry.Kind = switch info.st_mode & S_IFMT {
            case S_IFREG: .file
            case S_IFDIR: .directory
            case S_IFLNK: .symlink
            default: .other
            }
            entries.append(ConfinedEntry(name: name, kind: kind, size: Int(info.st_size), modified: Int64(info.st_mtim.tv_sec)))
        }
        return entries.sorted { $0.name.utf8Compare($1.name) < 0 }
    }

    /// The directory, open (a descriptor to close): the base found as any path is, made with its
    /// parents (0700) when missing and `create`; each component below it a directory of the user's
    /// own, never a symlink, made 0700 when missing and `create`, and left 0700.
    private func open(create: Bool) -> Int32? {
        var current = Glibc.open(directory.base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if current < 0 && errno == ENOENT && create {
            guard (try? LocalFileSystem().createDirectory(directory.base, mode: 0o700)) != nil else { return nil }
            current = Glibc.open(directory.base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard current >= 0 else { return nil }
        for component in directory.components {
            var next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0 && errno == ENOENT && create {
                if mkdirat(current, component, 0o700) == 0 || errno == EEXIST {
                    next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }
            }
            close(current)
            guard next >= 0 else { return nil }
            var info = stat()
            guard fstat(next, &info) == 0, info.st_uid == geteuid() else {
                close(next)
                return nil
            }
            if info.st_mode & 0o077 != 0 { fchmod(next, 0o700) }
            current = next
        }
        return current
    }

    /// The regular file `name` in `parent`, the user's own, open for reading, and its status.
    private func openFile(_ name: String, in parent: Int32) -> (descriptor: Int32, info: stat)? {
        let file = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { return nil }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
            close(file)
            return nil
        }
        return (file, info)
    }
}
