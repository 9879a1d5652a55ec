import Glibc

/// The real file system.
package struct LocalFileSystem: FileSystem {
    package init() {}

    package func contents(of path: String) throws -> [UInt8] {
        try contents(of: path, atMost: Int.max - 1)
    }

    package func contents(of path: String, atMost limit: Int) throws -> [UInt8] {
        let file = try openForReading(path)
        do {
            return try file.readAll(sizeHint: Swift.min(try file.status().st_size.asInt, limit), limit: limit)
        } catch {
            throw PrefsError.cannotRead(path: path, errno: error.code)
        }
    }

    /// Files of 1 MiB and more are read into anonymous memory advised to use huge pages: a large suite
    /// then costs a few page faults instead of one per 4 KiB, which is much of a read's time. (The
    /// file is read, not mapped: another program truncating it cannot crash the reader.)
    package func withContents<T>(of path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        let file = try openForReading(path)
        let info: stat
        do { info = try file.status() } catch { throw PrefsError.cannotRead(path: path, errno: error.code) }
        if let bytes = try unsizedContents(file, info, path) { return try bytes.withUnsafeBufferPointer(body) }
        let size = info.st_size.asInt
        guard size >= 1 << 20 else {
            let bytes: [UInt8]
            do { bytes = try file.readAll(sizeHint: size) } catch { throw PrefsError.cannotRead(path: path, errno: error.code) }
            return try bytes.withUnsafeBufferPointer(body)
        }
        let hugePage = 2 << 20
        let capacity = (size + 1 + hugePage - 1) / hugePage * hugePage
        guard let memory = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), memory != MAP_FAILED else {
            throw PrefsError.cannotRead(path: path, errno: errno)
        }
        defer { munmap(memory, capacity) }
        _ = madvise(memory, capacity, MADV_HUGEPAGE)
        let count: Int
        do { count = try file.read(into: UnsafeMutableRawBufferPointer(start: memory, count: capacity)) } catch {
            throw PrefsError.cannotRead(path: path, errno: error.code)
        }
        guard count < capacity else { throw PrefsError.cannotRead(path: path, errno: EFBIG) }
        return try body(UnsafeBufferPointer(start: memory.assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// `pread` from the open file: a reader that takes a piece at a time holds no more than that.
    package func withFileReader<T>(of path: String, _ body: (FileReader) throws -> T) throws -> T {
        let file = try openForReading(path)
        let info: stat
        do { info = try file.status() } catch { throw PrefsError.cannotRead(path: path, errno: error.code) }
        if let bytes = try unsizedContents(file, info, path) { return try bytes.withUnsafeBufferPointer { try body(FileReader($0)) } }
        let size = info.st_size.asInt
        let raw = file.raw
        let reader = FileReader(size: size) { offset, buffer in
            do throws(FileDescriptor.Errno) { return try FileDescriptor.read(raw, at: offset, into: buffer) } catch {
                throw PrefsError.cannotRead(path: path, errno: error.code)
            }
        }
        // The descriptor stays open until `body` is done with the reader.
        let result: T
        do { result = try body(reader) } catch {
            file.close()
            throw error
        }
        file.close()
        return result
    }

    /// What a pipe, a FIFO or a device holds (nil for a regular file): `fstat` gives no size for
    /// them (0), so they are read to their end as a document is, at most `DocumentInput.maximumSize`
    /// bytes (a longer one, `/dev/zero`, is refused: 65).
    private func unsizedContents(_ file: borrowing FileDescriptor, _ info: stat, _ path: String) throws -> [UInt8]? {
        guard info.st_mode & S_IFMT != S_IFREG else { return nil }
        let limit = DocumentInput.maximumSize
        let bytes: [UInt8]
        do { bytes = try file.readAll(limit: limit) } catch { throw PrefsError.cannotRead(path: path, errno: error.code) }
        guard bytes.count <= limit else { throw DocumentInput.tooLarge(path, limit: limit, what: "document") }
        return bytes
    }

    /// Opens a file to read it whole, or fails naming `path` (a directory is EISDIR).
    func openForReading(_ path: String) throws -> FileDescriptor {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, O_RDONLY)
        } catch {
            if error == .notFound { throw PrefsError.fileNotFound(path: path) }
            throw PrefsError.cannotRead(path: path, errno: error.code)
        }
        let info: stat
        do { info = try file.status() } catch { throw PrefsError.cannotRead(path: path, errno: error.code) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw PrefsError.cannotRead(path: path, errno: EISDIR) }
        return file
    }

    package func status(of path: String) throws -> FileStatus? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw PrefsError.cannotRead(path: path, errno: errno)
        }
        let kind = info.st_mode & S_IFMT
        return FileStatus(isDirectory: kind == S_IFDIR, mode: info.st_mode & 0o7777, size: Int(info.st_size),
                          inode: UInt64(info.st_ino), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                          isSpecial: kind != S_IFDIR && kind != S_IFREG)
    }

    package func resolvingSymlinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else {
                if errno == EINVAL || errno == ENOENT || errno == ENOTDIR { return current }
                throw PrefsError.cannotRead(path: path, errno: errno)
            }
            let link = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : splitPath(current).directory + "/" + link
        }
        throw PrefsError.cannotRead(path: path, errno: ELOOP)
    }

    package func contentsOfDirectory(_ path: String) throws -> [String] {
        guard let directory = opendir(path) else {
            if errno == ENOENT || errno == ENOTDIR { return [] }
            throw PrefsError.cannotRead(path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    package func createDirectory(_ path: String, mode: mode_t) throws {
        if try status(of: path)?.isDirectory == true { return }
        let parent = splitPath(path).directory
        if parent != path && parent != "/" && parent != "." { try createDirectory(parent, mode: mode) }
        guard mkdir(path, mode) == 0 else {
            if errno == EEXIST { return }
            throw PrefsError.cannotWrite(path: path, errno: errno)
        }
        // The new directory's entry must be on disk too before a write into it counts as done.
        do { try syncDirectory(parent) } catch { throw PrefsError.cannotWrite(path: path, errno: error.code) }
    }

    package func replace(_ path: String, with bytes: [UInt8], newFileMode: mode_t) throws {
        try replace(path, newFileMode: newFileMode) { write in try bytes.withUnsafeBytes(write) }
    }

    package func removeFileUnsynced(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw PrefsError.cannotWrite(path: path, errno: errno) }
    }

    package func removeFile(_ path: String) throws {
        guard unlink(path) == 0 else {
            if errno == ENOENT { return }
            throw PrefsError.cannotWrite(path: path, errno: errno)
        }
        do {
            try syncDirectory(splitPath(path).directory)
        } catch {
            throw PrefsError.cannotWrite(path: path, errno: error.code)
        }
    }

    package func isHeldByAWriter(_ path: String) -> Bool {
        let raw = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard raw >= 0 else { return false }
        defer { close(raw) }
        guard flock(raw, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(raw, LOCK_UN)
        return false
    }

    package func withLock<T>(ofFile path: String, timeout: Double, _ body: () throws -> T) throws -> T {
        var clock = LockWait(timeout: timeout)
        while true {
            // The file, or its directory while there is none (O_NONBLOCK: a FIFO must not hang us).
            let handle = try lockHandle(for: path)
            do {
                while try !handle.descriptor.tryLock(LOCK_EX) {
                    guard clock.pause() else { throw PrefsError.lockUnavailable(path: path, seconds: timeout) }
                }
            } catch let error as FileDescriptor.Errno {
                throw PrefsError.cannotWrite(path: path, errno: error.code)
            }
            // Still the file at the path (or still none)? A writer may have replaced or removed it.
            var now = stat()
            let current = stat(path, &now) == 0
            let held = try? handle.descriptor.status()
            let valid = handle.isFile ? current && held?.st_ino == now.st_ino && held?.st_dev == now.st_dev : !current && errno == ENOENT
            // Unlocked before the descriptor is closed: a child another thread forks holds a copy of
            // it until its exec, and would keep the lock held until then.
            let locked = handle.descriptor.raw
            defer { flock(locked, LOCK_UN) }
            guard valid else { continue }
            return try body()
        }
    }

    /// What a writer of `path` locks: the file, or its directory while there is none.
    struct LockHandle: ~Copyable {
        let descriptor: FileDescriptor
        let isFile: Bool
    }

    func lockHandle(for path: String) throws -> LockHandle {
        do {
            return LockHandle(descriptor: try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK), isFile: true)
        } catch .notFound {
            do {
                return LockHandle(descriptor: try FileDescriptor.open(splitPath(path).directory, O_RDONLY | O_DIRECTORY), isFile: false)
            } catch {
                throw PrefsError.cannotWrite(path: path, errno: error.code)
            }
        } catch {
            // The file is opened for reading (a lock needs no more): one that cannot be is unreadable,
            // as a read of it says, whatever the writer meant to do next.
            throw PrefsError.cannotRead(path: path, errno: error.code)
        }
    }

    /// Removes the temporary files of `name` that writers killed before renaming them left. Each
    /// writer holds an `flock` on its temporary file until it ends (the kernel drops it when the
    /// process dies), so one that can be locked has no writer; one that cannot is still being
    /// written — by a `replace(_:newFileMode:streaming:commit:)`, which writes without the file's
    /// lock — and is left alone.
    func removeStaleTemporaries(in directory: String, for name: String, except own: String? = nil) {
        for entry in (try? contentsOfDirectory(directory)) ?? [] where entry != own && TemporaryName.isTemporary(entry, of: name) {
            let path = directory + "/" + entry
            let raw = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard raw >= 0 else {
                if errno == ELOOP { unlink(path) }  // Not a file prefs wrote.
                continue
            }
            let file = FileDescriptor(owning: raw)
            if (try? file.tryLock(LOCK_EX)) == true { unlink(path) }
            _ = consume file
        }
    }

    func syncDirectory(_ directory: String) throws(FileDescriptor.Errno) {
        try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY).sync()
    }
}
