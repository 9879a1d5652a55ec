#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading whole files and replacing them atomically.
public enum FileAccess {
    /// The contents of `path`; `-` reads standard input.
    public static func read(_ path: String) throws -> [UInt8] {
        if path == "-" {
            do {
                return try FileDescriptor(raw: 0).readAll()
            } catch {
                throw PrefsError.cannotRead(path: "standard input", errno: error.code)
            }
        }
        do {
            let file = try FileDescriptor.open(path, O_RDONLY)
            defer { file.close() }
            let info = try file.status()
            guard info.st_mode & S_IFMT != S_IFDIR else { throw FileDescriptor.Errno(code: EISDIR) }
            return try file.readAll(sizeHint: Int(info.st_size))
        } catch let error as FileDescriptor.Errno {
            if error == .notFound { throw PrefsError.fileNotFound(path: path) }
            throw PrefsError.cannotRead(path: path, errno: error.code)
        }
    }

    /// Replaces `path` with `bytes` so that readers see the old file or the new one, never a mix, and
    /// the new one is on disk when this returns: a temporary file in the same directory (O_EXCL,
    /// O_NOFOLLOW) → write → fsync → rename over the target → fsync the directory. A symlink at `path`
    /// is followed and its target replaced (the link stays). An existing file keeps its permission
    /// bits; a new one gets `newFileMode` (less the umask).
    public static func replace(_ path: String, with bytes: [UInt8], newFileMode: mode_t = 0o600) throws {
        let target = try resolvingSymlinks(path)
        let (directory, name) = split(target)
        var mode = newFileMode
        var existing = stat()
        let exists = stat(target, &existing) == 0
        if exists { mode = existing.st_mode & 0o7777 }
        do {
            let (file, temporary) = try createTemporary(in: directory, for: name, mode: mode)
            do {
                defer { file.close() }
                if exists { _ = try FileDescriptor.retrying { fchmod(file.raw, mode) } }
                try file.writeAll(bytes)
                try file.sync()
            } catch {
                unlink(temporary)
                throw error
            }
            guard rename(temporary, target) == 0 else {
                let failure = FileDescriptor.Errno.current
                unlink(temporary)
                throw failure
            }
            try syncDirectory(directory)
        } catch let error as FileDescriptor.Errno {
            throw PrefsError.cannotWrite(path: path, errno: error.code)
        }
    }

    static func createTemporary(in directory: String, for name: String, mode: mode_t) throws(FileDescriptor.Errno)
        -> (FileDescriptor, String)
    {
        var attempt = 0
        while true {
            let candidate = directory + "/." + name + ".prefs-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            do {
                let file = try FileDescriptor.open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode)
                return (file, candidate)
            } catch where error == .exists && attempt < 100 {
                attempt += 1
            }
        }
    }

    static func syncDirectory(_ directory: String) throws(FileDescriptor.Errno) {
        let handle = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
        defer { handle.close() }
        try handle.sync()
    }

    /// `path` with any chain of symlinks at its last component followed (a dangling link names the
    /// file it would create).
    static func resolvingSymlinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else {
                if errno == EINVAL || errno == ENOENT { return current }
                throw PrefsError.cannotWrite(path: path, errno: errno)
            }
            let link = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : split(current).directory + "/" + link
        }
        throw PrefsError.cannotWrite(path: path, errno: ELOOP)
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}
