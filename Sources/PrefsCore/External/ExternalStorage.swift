#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPrefsSystem

/// The blobs of values kept outside their suites, under `$XDG_DATA_HOME/prefs/external/SUITE/KEYDIR/UUID`
/// (directories 0700, blobs 0600). A blob is the value's bytes: a string's UTF-8, a data value's raw
/// bytes, an array's or dictionary's binary property list. It is written whole before any suite
/// refers to it (temporary file, fsync, rename, fsync of the directory) and never changed after; the
/// SHA-256 its writer computed is also kept in the blob's `user.prefs.sha256` extended attribute, so
/// a reader can tell the blob is the one its reference names without hashing it again (`prefs check`
/// always hashes). Paths are built from checked names only and opened without following symlinks
/// below the suite's directory, so a hand-edited reference cannot reach outside the store.
public struct ExternalStorage: Sendable {
    /// `…/prefs/external`.
    public let root: String
    static let hashAttribute = "user.prefs.sha256"
    static let temporaryPrefix = ".tmp-"

    /// The directory of one suite's blobs (`NAME` is the suite's name, or `NSGlobalDomain`).
    func directory(of suite: String) -> String { root + "/" + suite }

    /// Writes a new blob for a key of `suite`: `produce` is given a sink to write the value's bytes
    /// into (in pieces, so a large value is never held whole). Returns the reference to commit.
    func write(suite: String, key: String, kind: ExternalReference.Kind,
               _ produce: (inout BlobSink) throws -> Void) throws -> ExternalReference {
        let keyDirectory = ExternalReference.directoryName(forKey: key)
        let directory = self.directory(of: suite) + "/" + keyDirectory
        let uuid = ExternalReference.newUUID()
        let temporary = directory + "/" + ExternalStorage.temporaryPrefix + uuid
        let file = try createFile(temporary, in: directory)
        do {
            defer { file.close() }
            var sink = BlobSink(file: file, path: temporary)
            try produce(&sink)
            let digest = sink.hasher.finish()
            // Where extended attributes are not supported, readers hash the blob instead.
            _ = digest.withUnsafeBytes { prefs_fsetxattr(file.raw, ExternalStorage.hashAttribute, $0.baseAddress, 32) }
            do throws(FileDescriptor.Errno) {
                try file.sync()
                let target = directory + "/" + uuid
                guard rename(temporary, target) == 0 else { throw FileDescriptor.Errno.current }
                try LocalFileSystem().syncDirectory(directory)
            } catch {
                throw PrefsError.cannotWrite(path: temporary, errno: error.code)
            }
            return ExternalReference(kind: kind, size: sink.size, sha256: digest, directory: keyDirectory, uuid: uuid)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Creates the temporary file (and its directories). A concurrent `remove` may take away an empty
    /// key directory between the two, so that is tried again.
    func createFile(_ path: String, in directory: String) throws -> FileDescriptor {
        var attempt = 0
        while true {
            try LocalFileSystem().createDirectory(directory, mode: 0o700)
            do {
                return try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
            } catch where error == .notFound && attempt < 10 {
                attempt += 1
            } catch {
                throw PrefsError.cannotWrite(path: path, errno: error.code)
            }
        }
    }

    /// Opens the blob a reference names and checks it is that blob: a regular file of the recorded
    /// size whose SHA-256 is the recorded one — taken from the attribute its writer left when there is
    /// one, otherwise (or when `thorough`) computed. Nothing outside the suite's directory is opened,
    /// and no symlink below it is followed. Errors are the reason, for the caller to attribute.
    func open(_ reference: ExternalReference, suite: String, thorough: Bool = false) throws(ExternalReference.Problem) -> Blob {
        let suiteDirectory = directory(of: suite)
        let base: FileDescriptor
        do {
            base = try FileDescriptor.open(suiteDirectory, O_RDONLY | O_DIRECTORY)
        } catch {
            throw ExternalReference.Problem(error == .notFound ? "blob \(reference.directory)/\(reference.uuid) is missing" : "cannot open \(suiteDirectory): \(PrefsError.describe(errno: error.code))")
        }
        defer { base.close() }
        let keyDirectory = openat(base.raw, reference.directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        let raw = keyDirectory < 0 ? -1 : openat(keyDirectory, reference.uuid, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        let failure = errno
        if keyDirectory >= 0 { close(keyDirectory) }
        guard raw >= 0 else {
            if failure == ENOENT { throw ExternalReference.Problem("blob \(reference.directory)/\(reference.uuid) is missing") }
            throw ExternalReference.Problem("cannot open blob \(reference.directory)/\(reference.uuid): \(PrefsError.describe(errno: failure))")
        }
        let file = FileDescriptor(raw: raw)
        do {
            let info = try file.status()
            guard info.st_mode & S_IFMT == S_IFREG else { throw ExternalReference.Problem("blob \(reference.directory)/\(reference.uuid) is not a regular file") }
            guard Int(info.st_size) == reference.size else {
                throw ExternalReference.Problem("blob \(reference.directory)/\(reference.uuid) has \(info.st_size) bytes, the reference says \(reference.size)")
            }
            var recorded = [UInt8](repeating: 0, count: 32)
            let count = recorded.withUnsafeMutableBytes { prefs_fgetxattr(file.raw, ExternalStorage.hashAttribute, $0.baseAddress, 32) }
            if count == 32 && !thorough {
                guard recorded == reference.sha256 else { throw ExternalReference.Problem("SHA-256 mismatch (the reference does not name this blob)") }
            } else {
                var hasher = SHA256()
                try file.forEachChunk { hasher.update($0) }
                guard hasher.finish() == reference.sha256 else { throw ExternalReference.Problem("SHA-256 mismatch (the blob is damaged or the reference is wrong)") }
                _ = try FileDescriptor.retrying { lseek(file.raw, 0, SEEK_SET) }
            }
            return Blob(file: file, size: reference.size, kind: reference.kind)
        } catch let error as ExternalReference.Problem {
            file.close()
            throw error
        } catch let error as FileDescriptor.Errno {
            file.close()
            throw ExternalReference.Problem("cannot read blob \(reference.directory)/\(reference.uuid): \(PrefsError.describe(errno: error.code))")
        } catch {
            file.close()
            throw ExternalReference.Problem("\(error)")
        }
    }

    /// Deletes a blob no suite refers to any more, then its key directory (and the suite's) if now empty.
    func remove(_ reference: ExternalReference, suite: String) {
        let keyDirectory = directory(of: suite) + "/" + reference.directory
        unlink(keyDirectory + "/" + reference.uuid)
        if rmdir(keyDirectory) == 0 { rmdir(directory(of: suite)) }
    }

    /// A file under a suite's external directory, for `check` and `gc`.
    public struct Entry: Sendable {
        public let directory: String
        public let name: String
        public let size: Int
        /// Seconds since the epoch.
        public let modified: Int64
        public var isTemporary: Bool { name.hasPrefix(ExternalStorage.temporaryPrefix) }
    }

    /// Every file in a suite's key directories.
    func entries(of suite: String) throws -> [Entry] {
        let fileSystem = LocalFileSystem()
        let base = directory(of: suite)
        var found: [Entry] = []
        for keyDirectory in try fileSystem.contentsOfDirectory(base).sorted() {
            var info = stat()
            guard lstat(base + "/" + keyDirectory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            for name in try fileSystem.contentsOfDirectory(base + "/" + keyDirectory).sorted() {
                guard lstat(base + "/" + keyDirectory + "/" + name, &info) == 0 else { continue }
                found.append(Entry(directory: keyDirectory, name: name, size: Int(info.st_size), modified: Int64(info.st_mtim.tv_sec)))
            }
        }
        return found
    }

    /// The suites that have an external directory.
    func suiteDirectories() throws -> [String] {
        try LocalFileSystem().contentsOfDirectory(root).filter { !$0.hasPrefix(".") }.sorted()
    }
}

/// Where a blob's bytes go as they are produced: the temporary file, hashed and counted on the way.
struct BlobSink {
    let file: FileDescriptor
    let path: String
    var hasher = SHA256()
    var size = 0

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        hasher.update(bytes)
        size += bytes.count
        do { try file.writeAll(bytes) } catch { throw PrefsError.cannotWrite(path: path, errno: error.code) }
    }
}

/// An open blob, checked against its reference: read it whole, in pieces, or copy it to a descriptor.
public struct Blob: ~Copyable {
    let file: FileDescriptor
    public let size: Int
    /// What the bytes are: a string's UTF-8, data, or an array's or dictionary's binary plist.
    public let kind: ExternalReference.Kind

    deinit { file.close() }

    /// The whole blob.
    func bytes() throws(FileDescriptor.Errno) -> [UInt8] {
        try file.readAll(sizeHint: size)
    }

    /// The whole blob; a failure names it as `name`.
    public func bytes(name: String) throws -> [UInt8] {
        do { return try bytes() } catch { throw PrefsError.cannotRead(path: name, errno: error.code) }
    }

    /// Copies the blob to `descriptor` (standard output, a pipe, a file), in the kernel when it can;
    /// a failure names the output as `name`.
    public func copy(to descriptor: Int32, name: String) throws {
        do {
            try copy(to: descriptor)
        } catch let error as FileDescriptor.Errno {
            throw PrefsError.cannotWrite(path: name, errno: error.code)
        }
    }

    func copy(to descriptor: Int32) throws {
        var remaining = size
        while remaining > 0 {
            let n = sendfile(descriptor, file.raw, nil, min(remaining, 1 << 30))
            if n > 0 { remaining -= n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EINVAL || errno == ENOSYS) { break }
            if n == 0 { return }
            throw FileDescriptor.Errno.current
        }
        guard remaining > 0 else { return }
        // sendfile cannot write to this descriptor: copy through memory.
        let output = FileDescriptor(raw: descriptor)
        try file.forEachChunk { try output.writeAll($0) }
    }
}
