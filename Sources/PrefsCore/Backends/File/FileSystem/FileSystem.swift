import Glibc

/// The file operations suites need, as a seam: `LocalFileSystem` performs them on disk and
/// `InMemoryFileSystem` in memory for tests; both throw the same `PrefsError`s for the same situations
/// (missing file, missing parent directory, a directory where a file should be, a held lock).
package protocol FileSystem: Sendable {
    /// Whether the kernel sees these files, so that inotify can watch them (`InMemoryFileSystem`
    /// answers no: a watch then reads the values again every few milliseconds).
    var isWatchableByKernel: Bool { get }

    /// The whole file, following symlinks. `.fileNotFound` when nothing is there, `.cannotRead` when it
    /// cannot be read (a directory, no permission).
    func contents(of path: String) throws -> [UInt8]

    /// `contents(of:)` of a file that may be larger than `limit`, or never end (a device, a FIFO):
    /// reading stops after `limit + 1` bytes, so more than `limit` bytes back means "too large".
    func contents(of path: String, atMost limit: Int) throws -> [UInt8]

    /// Runs `body` with the whole file, like `contents(of:)`, without promising an array: for large
    /// files the real file system reads into memory that costs fewer page faults.
    func withContents<T>(of path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T

    /// Runs `body` with the file open for reading pieces of it at any offset (`FileReader`), so a
    /// reader of part of a large file does not hold it whole; the same errors as `contents(of:)`.
    func withFileReader<T>(of path: String, _ body: (FileReader) throws -> T) throws -> T

    /// Facts about what `path` names after following symlinks; nil when nothing is there.
    func status(of path: String) throws -> FileStatus?

    /// `path` with any chain of symlinks at its last component followed; a dangling link gives the
    /// path it points to.
    func resolvingSymlinks(_ path: String) throws -> String

    /// The names in a directory (without `.` and `..`); empty when the directory does not exist.
    func contentsOfDirectory(_ path: String) throws -> [String]

    /// Creates `path` and any missing parents, each with `mode`.
    func createDirectory(_ path: String, mode: mode_t) throws

    /// Replaces the file at `path` (already resolved, not a symlink) with `bytes` so that readers see
    /// the old contents or the new, never a mix, and the new ones are on disk when it returns. An
    /// existing file keeps its permission bits; a new one gets `newFileMode`. Call it holding the
    /// file's lock (`withLock(ofFile:)`). It also removes the file's temporary files that writers
    /// killed earlier left behind (each writer holds an `flock` on its own until it ends, so one
    /// still being written is left alone).
    func replace(_ path: String, with bytes: [UInt8], newFileMode: mode_t) throws

    /// `replace(_:with:newFileMode:)` with the bytes handed to `write` in pieces by `produce`, so a
    /// large file is never held in memory; a failure (of `produce` too) leaves the file as it was.
    func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws

    /// `replace(_:newFileMode:streaming:)` with only the rename run inside `commit`: for a file the
    /// user named, the bytes produced with no lock held (so producing them may take other locks, as a
    /// dump takes each suite's) and `commit` taking the file's lock; for a suite, whose lock is held
    /// throughout, `commit` runs what must follow the rename before anyone else can lock the new file
    /// (it is locked until this returns).
    ///
    /// A `log` is added to after the file, at the cost of no more durable steps than the file's
    /// alone (a suite's file and its history, `VersionLog`): `rename` renames the file, then
    /// appends to the log (or rewrites it, `LogAppend.rewrite`), removes `log.removing`, makes all
    /// of it durable together, and says whether the log holds the bytes. The log stands or falls
    /// on its own: nothing about it (a full disk, a directory it cannot make) makes the replacement
    /// fail, and it is never added to before the file is in place.
    func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                 alongside log: LogAppend?, commit: (_ rename: () throws -> Bool) throws -> Void) throws

    /// Adds to a log on its own (`LogAppend`), durably: whether it holds the bytes now.
    func append(_ log: LogAppend) -> Bool

    /// Writes the pieces into a device, FIFO or socket (`FileStatus.isSpecial`), which is not replaced.
    func writeSpecial(_ path: String, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws

    /// Runs `body` with a reader of the file's bytes (it fills a buffer and returns how many came, 0
    /// at the end), following symlinks; errors as `contents(of:)` has them.
    func withReader(of path: String, _ body: ((UnsafeMutableRawBufferPointer) throws -> Int) throws -> Void) throws

    /// Removes a file (already resolved, not a symlink), durably; holding its lock.
    func removeFile(_ path: String) throws

    /// Removes a file (already resolved, not a symlink) without waiting for it to be gone on disk:
    /// the next durable change of its directory (a `replace` there) makes it so. Nothing when it is
    /// not there.
    func removeFileUnsynced(_ path: String) throws

    /// Whether a writer holds the lock of the file at `path` now (`withLock(ofFile:)`, or a
    /// replace's on its new file until it returns); false when there is no such file.
    func isHeldByAWriter(_ path: String) -> Bool

    /// Runs `body` holding the exclusive lock of the file at `path` (already resolved; its directory
    /// exists), waiting at most `timeout` seconds in all (`.lockUnavailable` after that). The lock is
    /// a `flock` of the file itself — or of its directory while there is no file — taken again
    /// whenever the file at the path turns out to have been replaced or removed meanwhile, so writers
    /// of different files never wait for each other and no lock file is ever made. It is released
    /// when `body` returns or the process dies.
    func withLock<T>(ofFile path: String, timeout: Double, _ body: () throws -> T) throws -> T

    // Confined places (external storage): below `ConfinedPath.base`, no symlink is ever followed.

    /// Creates a new file (exclusive, mode 0600) named `name()` in `directory`, making the missing
    /// directories below the base (0700, each synced into its parent). The file comes back open for
    /// writing and held with a shared lock until it is closed, so `removeIfUnused` never takes it; a
    /// new name is asked for when one exists or a concurrent `removeIfUnused` took the file first.
    func createConfinedFile(in directory: ConfinedPath, name: () -> String) throws(ConfinedError) -> any ConfinedFile

    /// Opens an existing regular file to read it.
    func openConfinedFile(_ path: ConfinedPath) throws(ConfinedError) -> any ConfinedFile

    /// The entries of a directory, sorted by name; empty when it does not exist.
    func confinedEntries(_ directory: ConfinedPath) throws(ConfinedError) -> [ConfinedEntry]

    /// Removes a regular file unless a writer holds it (`createConfinedFile`'s lock). A symlink is
    /// never removed or followed (`.symlink`).
    func removeIfUnused(_ path: ConfinedPath) throws(ConfinedError) -> BlobRemoval

    /// Whether a regular file is there and no writer holds it (`createConfinedFile`'s lock); true
    /// when it cannot be opened for another reason (a symlink, a file that cannot be read).
    func isSettled(_ path: ConfinedPath) -> Bool

    /// Removes a directory when it is empty (never a symlink); whether it did.
    @discardableResult
    func removeConfinedDirectoryIfEmpty(_ path: ConfinedPath) -> Bool

    /// The host's cache files in `directory` (the snapshots of a remote store's reads:
    /// `CacheFiles`); nil (the default) for a file system that is not the host's, which keeps none.
    func cacheFiles(in directory: ConfinedPath) -> (any CacheFiles)?
}

package struct FileStatus: Equatable, Sendable {
    package var isDirectory: Bool
    package var mode: mode_t
    package var size: Int
    /// Identity and modification time, to tell whether a file was replaced or touched.
    package var inode: UInt64
    package var modified: Int64
    /// Neither a regular file nor a directory: a FIFO, a socket, a device (whose reading may block).
    package var isSpecial: Bool

    package init(isDirectory: Bool, mode: mode_t, size: Int, inode: UInt64, modified: Int64, isSpecial: Bool = false) {
        self.isDirectory = isDirectory
        self.mode = mode
        self.size = size
        self.inode = inode
        self.modified = modified
        self.isSpecial = isSpecial
    }
}

extension FileSystem {
    /// A file system with nothing to sync removes it as `removeFile` does.
    package func removeFileUnsynced(_ path: String) throws { try removeFile(path) }

    package var isWatchableByKernel: Bool { true }

    package func cacheFiles(in directory: ConfinedPath) -> (any CacheFiles)? { nil }

    /// The whole file (a file system whose files all have an end).
    package func contents(of path: String, atMost limit: Int) throws -> [UInt8] {
        Array(try contents(of: path).prefix(limit + 1))
    }

    package func withContents<T>(of path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        try contents(of: path).withUnsafeBufferPointer(body)
    }

    /// The file in memory, read in pieces from there.
    package func withFileReader<T>(of path: String, _ body: (FileReader) throws -> T) throws -> T {
        try withContents(of: path) { bytes in try body(FileReader(bytes)) }
    }

    /// Replaces a file the user named (an output file, not a suite): a symlink is followed and its
    /// target replaced atomically, renamed into place under the target's lock. A device, FIFO or
    /// socket (`/dev/null`, `/dev/stdout`, a process substitution) is written to, never replaced.
    package func writeFile(_ path: String, _ bytes: [UInt8], newFileMode: mode_t, lockTimeout: Double) throws {
        try writeFile(path, newFileMode: newFileMode, lockTimeout: lockTimeout) { write in try bytes.withUnsafeBytes(write) }
    }

    /// `writeFile` with the bytes produced in pieces (`replace(_:newFileMode:streaming:)`).
    package func writeFile(_ path: String, newFileMode: mode_t, lockTimeout: Double,
                          streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        if try status(of: path)?.isSpecial == true { return try writeSpecial(path, streaming: produce) }
        let target = try resolvingSymlinks(path)
        let directory = splitPath(target).directory
        guard try status(of: directory)?.isDirectory == true else { throw PrefsError.cannotWrite(path: path, errno: ENOENT) }
        try replace(target, newFileMode: newFileMode, streaming: produce, alongside: nil) { rename in
            _ = try withLock(ofFile: target, timeout: lockTimeout, rename)
        }
    }

    /// Collects the pieces, then replaces the file, then adds to the log, inside `commit`. A
    /// temporary file beside the log (`TemporaryName`) stands from before the file is replaced
    /// until the log is added to: what `FileSuiteStorage.mayBeRecordingVersion` looks for on a file
    /// system whose replaced file no writer holds (on disk, the writer holds the new file instead).
    package func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                        alongside log: LogAppend?, commit: (_ rename: () throws -> Bool) throws -> Void) throws {
        var bytes: [UInt8] = []
        try produce { bytes.append(contentsOf: $0) }
        var marker: String?
        if let log {
            let temporary = log.directory + "/" + TemporaryName.make(for: splitPath(log.path).name)
            do {
                if try status(of: log.directory) == nil { try createDirectory(log.directory, mode: log.directoryMode) }
                try replace(temporary, with: [], newFileMode: log.newFileMode)
                marker = temporary
            } catch {}
        }
        defer { if let marker { try? removeFileUnsynced(marker) } }
        try commit {
            try replace(path, with: bytes, newFileMode: newFileMode)
            return log.map(append) ?? false
        }
    }

    /// The log's new contents put in place whole (a file system that cannot append).
    package func append(_ log: LogAppend) -> Bool {
        do {
            if try status(of: log.directory) == nil { try createDirectory(log.directory, mode: log.directoryMode) }
            var contents = log.bytes
            if !log.rewrite, try status(of: log.path) != nil { contents = Array(try self.contents(of: log.path).prefix(log.offset)) + log.bytes }
            try replace(log.path, with: contents, newFileMode: log.newFileMode)
        } catch {
            return false
        }
        for path in log.removing { try? removeFileUnsynced(path) }
        return true
    }

    /// Collects the pieces, then replaces the file with them (a file system with no streaming write).
    package func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        var bytes: [UInt8] = []
        try produce { bytes.append(contentsOf: $0) }
        try replace(path, with: bytes, newFileMode: newFileMode)
    }
}

/// What a replace adds to a log after the file (`FileSystem.replace(_:newFileMode:streaming:alongside:commit:)`),
/// or `FileSystem.append(_:)` on its own: `bytes` written at `offset` (what lies past it, a record
/// a crash cut short, is cut first), or with `rewrite` the log's whole new contents, put in place
/// of it as a file is replaced; the files in its directory it supersedes (`removing`) removed in
/// the same step. A log that is not there is made (`newFileMode`, its directory `directoryMode`).
package struct LogAppend: Sendable {
    package var path: String
    package var bytes: [UInt8]
    package var offset: Int
    package var rewrite: Bool
    package var newFileMode: mode_t
    package var directoryMode: mode_t
    package var removing: [String]

    package init(path: String, bytes: [UInt8], offset: Int, rewrite: Bool = false, newFileMode: mode_t = 0o600, directoryMode: mode_t = 0o700,
                 removing: [String] = []) {
        self.path = path
        self.bytes = bytes
        self.offset = offset
        self.rewrite = rewrite
        self.newFileMode = newFileMode
        self.directoryMode = directoryMode
        self.removing = removing
    }

    var directory: String { splitPath(path).directory }
}

/// `path` split into its directory and last component.
func splitPath(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = String(path[..<slash])
    return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
}

/// A bounded wait for a lock, polled: pauses start at 0.2 ms and grow to 5 ms (with jitter), so
/// waiting writers take the lock soon after it is released, and the wait never exceeds its timeout.
struct LockWait {
    let timeout: Double
    private var waited = 0.0
    private var step = 0.0002

    init(timeout: Double) { self.timeout = timeout }

    /// Sleeps a little; false once the time is up.
    mutating func pause() -> Bool {
        guard waited < timeout else { return false }
        let sleep = min(step * Double.random(in: 0.5...1.5), timeout - waited)
        usleep(useconds_t(max(sleep, 0) * 1_000_000))
        waited += sleep
        step = min(step * 2, 0.005)
        return true
    }
}

extension FileSystem {
    /// Reads the whole file first (`LocalFileSystem` reads it in pieces).
    package func withReader(of path: String, _ body: ((UnsafeMutableRawBufferPointer) throws -> Int) throws -> Void) throws {
        let bytes = try contents(of: path)
        var offset = 0
        try body { buffer in
            let count = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]).copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
            offset += count
            return count
        }
    }
}
