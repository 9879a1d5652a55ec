import CPrefsSystem
import Glibc

extension LocalFileSystem {
    /// Writes the pieces into a new temporary file beside `path` (`O_EXCL|O_NOFOLLOW`, the existing
    /// file's mode or `newFileMode`) as they come, then fsyncs, renames it over `path` and fsyncs the
    /// directory; a failure (of `produce` too) removes the temporary file and leaves `path` as it was.
    package func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let (directory, name) = splitPath(path)
        removeStaleTemporaries(in: directory, for: name)
        try replace(path, newFileMode: newFileMode, streaming: produce, removingStale: false, alongside: nil) { rename in _ = try rename() }
    }

    /// The temporary file written and synced with no lock held; then, inside `commit` (which takes the
    /// file's lock), the temporaries killed writers left are removed and it is renamed over `path`.
    ///
    /// A log is added to right after the rename (`appendAfterRename`): its write-back started at
    /// once, then the file's directory and the log fsynced at once, on two threads, so that both
    /// wait for the same journal commit (on ext4 and XFS, one journal for the whole file system).
    /// A log rewritten whole is written to a temporary file first, fsynced with the file's, and
    /// renamed right after it, both directories then fsynced at once. A crash before the rename
    /// leaves the log as it was; the log never holds a change's record without the change.
    package func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                        alongside log: LogAppend?, commit: (_ rename: () throws -> Bool) throws -> Void) throws {
        try replace(path, newFileMode: newFileMode, streaming: produce, removingStale: true, alongside: log, commit: commit)
    }

    /// The temporary file is locked (`flock`) from its creation until its writer ends, so that
    /// `removeStaleTemporaries` tells a killed writer's from one still being written.
    private func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                         removingStale: Bool, alongside log: LogAppend?, commit: (_ rename: () throws -> Bool) throws -> Void) throws {
        let (directory, name) = splitPath(path)
        let existing = try status(of: path)
        let mode = existing?.mode ?? newFileMode
        func failed(_ error: FileDescriptor.Errno) -> PrefsError { .cannotWrite(path: path, errno: error.code) }
        var rewritten = log.flatMap { $0.rewrite ? stage($0) : nil }
        let temporary: TemporaryFile
        do { temporary = try TemporaryFile(replacing: path, mode: mode) } catch {
            if let rewritten { unlink(rewritten.path) }
            throw failed(error)
        }
        do {
            if existing != nil { _ = try FileDescriptor.retrying { fchmod(temporary.file.raw, mode) } }
            try produce(LocalFileSystem.writer(temporary.file.raw, path: path))
            if let staged = rewritten {
                var failedToo: Int32 = 0
                let error = prefs_fsync_together(temporary.file.raw, staged.file.raw, &failedToo)
                guard error == 0 else { throw FileDescriptor.Errno(code: error) }
                if failedToo != 0 {
                    unlink(staged.path)
                    rewritten = nil
                }
            } else {
                try temporary.file.sync()
            }
            try commit {
                if removingStale { removeStaleTemporaries(in: directory, for: name, except: temporary.name) }
                guard rename(temporary.path, path) == 0 else { throw FileDescriptor.Errno.current }
                guard let log else {
                    try syncDirectory(directory)
                    return false
                }
                guard log.rewrite else { return try appendAfterRename(log, syncing: directory) }
                defer { rewritten = nil }
                return try place(rewritten, log, syncing: directory)
            }
            // Now the file's lock (see `withLock(ofFile:)`): let go of it before the descriptor is
            // closed, which a child another thread forks would delay until its exec.
            flock(temporary.file.raw, LOCK_UN)
        } catch {
            unlink(temporary.path)
            if let rewritten { unlink(rewritten.path) }
            throw (error as? FileDescriptor.Errno).map(failed) ?? error
        }
    }

    package func append(_ log: LogAppend) -> Bool {
        guard log.rewrite else { return (try? appendAfterRename(log, syncing: nil)) ?? false }
        guard let staged = stage(log) else { return false }
        guard fsync(staged.file.raw) == 0 else {
            unlink(staged.path)
            return false
        }
        return (try? place(staged, log, syncing: nil)) ?? false
    }

    /// A log's whole new contents in a temporary file beside it (its directory made if need be);
    /// nil when any of it fails, and then nothing of it stays.
    private func stage(_ log: LogAppend) -> TemporaryFile? {
        do {
            if try status(of: log.directory) == nil { try createDirectory(log.directory, mode: log.directoryMode) }
        } catch {
            return nil
        }
        removeStaleTemporaries(in: log.directory, for: splitPath(log.path).name)
        guard let temporary = try? TemporaryFile(replacing: log.path, mode: log.newFileMode) else { return nil }
        guard (try? temporary.file.writeAll(log.bytes)) != nil else {
            unlink(temporary.path)
            return nil
        }
        return temporary
    }

    /// Renames a log's staged contents (synced) over it, removes what it supersedes, and fsyncs its
    /// directory together with `directory` (a renamed file's; nil: the log's alone): throws only
    /// the directory's failure; false when the log is not in place.
    private func place(_ staged: TemporaryFile?, _ log: LogAppend, syncing directory: String?) throws(FileDescriptor.Errno) -> Bool {
        guard let staged, rename(staged.path, log.path) == 0 else {
            if let staged { unlink(staged.path) }
            if let directory { try syncDirectory(directory) }
            return false
        }
        flock(staged.file.raw, LOCK_UN)
        for path in log.removing { unlink(path) }
        guard let logDirectory = try? FileDescriptor.open(log.directory, O_RDONLY | O_DIRECTORY) else {
            if let directory { try syncDirectory(directory) }
            return false
        }
        return try syncTogether(directory, logDirectory.raw)
    }

    /// fsyncs `directory` (nil: none) and `file` at once, on two threads: throws the directory's
    /// failure; false when the file's fails.
    private func syncTogether(_ directory: String?, _ file: Int32) throws(FileDescriptor.Errno) -> Bool {
        guard let directory else { return fsync(file) == 0 }
        let own = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
        var failed: Int32 = 0
        let error = prefs_fsync_together(own.raw, file, &failed)
        guard error == 0 else { throw FileDescriptor.Errno(code: error) }
        return failed == 0
    }

    /// Appends to the log, and makes it durable together with `directory` (a renamed file's; nil:
    /// the log alone): throws only the directory's failure; false when the log's own fails (a log
    /// cut short by a failed write is cut back to `offset`).
    private func appendAfterRename(_ log: LogAppend, syncing directory: String?) throws(FileDescriptor.Errno) -> Bool {
        func alone() throws(FileDescriptor.Errno) -> Bool {
            if let directory { try syncDirectory(directory) }
            return false
        }
        do {
            if try status(of: log.directory) == nil { try createDirectory(log.directory, mode: log.directoryMode) }
        } catch {
            return try alone()
        }
        // Made here, or opened as it is: never through a symlink, never a FIFO's wait for a reader.
        var created = false
        var raw = open(log.path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if raw < 0 && errno == ENOENT {
            created = true
            raw = open(log.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, log.newFileMode)
        }
        guard raw >= 0 else { return try alone() }
        let file = FileDescriptor(owning: raw)
        guard let info = try? file.status(), info.st_mode & S_IFMT == S_IFREG else { return try alone() }
        if info.st_size > log.offset && ftruncate(raw, off_t(log.offset)) != 0 { return try alone() }
        guard lseek(raw, off_t(log.offset), SEEK_SET) == off_t(log.offset), (try? file.writeAll(log.bytes)) != nil else {
            _ = ftruncate(raw, off_t(log.offset))
            return try alone()
        }
        _ = prefs_start_writeback(raw)
        for path in log.removing { unlink(path) }
        guard try syncTogether(directory, raw) else { return false }
        // A new log's name, and the files removed, are the log directory's to keep.
        if created || !log.removing.isEmpty { return (try? syncDirectory(log.directory)) != nil }
        return true
    }

    /// Writes the pieces straight into what `path` names, a device, FIFO or socket (`/dev/null`, a
    /// terminal, a process substitution), which cannot be replaced: opened for writing, never created.
    package func writeSpecial(_ path: String, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        func failed(_ error: FileDescriptor.Errno) -> PrefsError { .cannotWrite(path: path, errno: error.code) }
        let file: FileDescriptor
        do { file = try FileDescriptor.open(path, O_WRONLY | O_NOCTTY) } catch { throw failed(error) }
        try produce(LocalFileSystem.writer(file.raw, path: path))
        _ = consume file
    }

    /// Writes each piece whole to the open descriptor `raw` (which the caller keeps open).
    static func writer(_ raw: Int32, path: String) -> (UnsafeRawBufferPointer) throws -> Void {
        { piece in
            do { try FileDescriptor.borrowing(raw) { file in try file.writeAll(piece) } } catch let error as FileDescriptor.Errno {
                throw PrefsError.cannotWrite(path: path, errno: error.code)
            }
        }
    }

    /// The file read in pieces, never whole.
    package func withReader(of path: String, _ body: ((UnsafeMutableRawBufferPointer) throws -> Int) throws -> Void) throws {
        let file = try openForReading(path)
        let raw = file.raw
        try body { buffer in
            do { return try FileDescriptor.borrowing(raw) { file in try file.read(into: buffer) } } catch let error as FileDescriptor.Errno {
                throw PrefsError.cannotRead(path: path, errno: error.code)
            }
        }
        _ = consume file
    }
}

/// A new temporary file beside the file it will replace (`O_EXCL|O_NOFOLLOW`, a random name from
/// `TemporaryName`), locked (`flock`) until its writer ends.
final class TemporaryFile {
    let file: FileDescriptor
    let name: String
    let path: String

    init(replacing path: String, mode: mode_t) throws(FileDescriptor.Errno) {
        let (directory, target) = splitPath(path)
        var attempt = 0
        while true {
            let name = TemporaryName.make(for: target)
            let candidate = directory + "/" + name
            let raw: Int32
            do {
                raw = try FileDescriptor.retrying { open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode) }
            } catch where error == .exists && attempt < 100 {
                attempt += 1
                continue
            }
            let file = FileDescriptor(owning: raw)
            do throws(FileDescriptor.Errno) {
                guard try file.tryLock(LOCK_EX) else { throw FileDescriptor.Errno(code: EWOULDBLOCK) }
            } catch {
                unlink(candidate)
                throw error
            }
            self.file = file
            self.name = name
            self.path = candidate
            return
        }
    }
}
