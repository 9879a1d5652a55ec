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
    /// The companion's temporary file is written first and its write-back started, so that its
    /// blocks are in the same journal transaction as the main file's (on ext4 and XFS, one journal
    /// for the whole file system); the two files are then fsynced at once, on two threads, and
    /// wait for the same commit. The two renames and the companion's removals go in before either
    /// directory is synced, and the two directories are fsynced at once too. A crash before the
    /// main rename leaves neither; the companion is never in place without the main file.
    package func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                        alongside companion: CompanionFile?, commit: (_ rename: () throws -> Bool) throws -> Void) throws {
        try replace(path, newFileMode: newFileMode, streaming: produce, removingStale: true, alongside: companion, commit: commit)
    }

    /// The temporary file is locked (`flock`) from its creation until its writer ends, so that
    /// `removeStaleTemporaries` tells a killed writer's from one still being written.
    private func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                         removingStale: Bool, alongside companion: CompanionFile?, commit: (_ rename: () throws -> Bool) throws -> Void) throws {
        let (directory, name) = splitPath(path)
        let existing = try status(of: path)
        let mode = existing?.mode ?? newFileMode
        func failed(_ error: FileDescriptor.Errno) -> PrefsError { .cannotWrite(path: path, errno: error.code) }
        var staged = companion.flatMap(stage)
        let temporary: TemporaryFile
        do { temporary = try TemporaryFile(replacing: path, mode: mode) } catch {
            staged?.discard()
            throw failed(error)
        }
        do {
            if existing != nil { _ = try FileDescriptor.retrying { fchmod(temporary.file.raw, mode) } }
            try produce(LocalFileSystem.writer(temporary.file.raw, path: path))
            if let companion = staged {
                if try !companion.sync(with: temporary.file) { staged = nil }
            } else {
                try temporary.file.sync()
            }
            try commit {
                if removingStale { removeStaleTemporaries(in: directory, for: name, except: temporary.name) }
                guard rename(temporary.path, path) == 0 else { throw FileDescriptor.Errno.current }
                guard let companion = staged, companion.place() else {
                    try syncDirectory(directory)
                    return false
                }
                return try companion.syncDirectories(with: directory)
            }
            // Now the file's lock (see `withLock(ofFile:)`): let go of it before the descriptor is
            // closed, which a child another thread forks would delay until its exec.
            flock(temporary.file.raw, LOCK_UN)
        } catch {
            unlink(temporary.path)
            staged?.discard()
            throw (error as? FileDescriptor.Errno).map(failed) ?? error
        }
    }

    /// The companion's temporary file made and written, its write-back started; nil when any of it
    /// fails (it is then left out, and nothing of it stays).
    private func stage(_ companion: CompanionFile) -> StagedCompanion? {
        do {
            if try status(of: companion.directory) == nil { try createDirectory(companion.directory, mode: companion.directoryMode) }
        } catch {
            return nil
        }
        removeStaleTemporaries(in: companion.directory, for: splitPath(companion.path).name)
        guard let temporary = try? TemporaryFile(replacing: companion.path, mode: companion.newFileMode) else { return nil }
        do {
            try temporary.file.writeAll(companion.bytes)
        } catch {
            unlink(temporary.path)
            return nil
        }
        _ = prefs_start_writeback(temporary.file.raw)
        return StagedCompanion(temporary: temporary, companion: companion)
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

/// A companion's temporary file, written: synced, then renamed into place or removed. Its lock
/// is let go of when it goes away.
private final class StagedCompanion {
    let temporary: TemporaryFile
    let companion: CompanionFile
    /// Whether the temporary file is still there under its own name.
    private var pending = true

    init(temporary: consuming TemporaryFile, companion: CompanionFile) {
        self.temporary = temporary
        self.companion = companion
    }

    deinit { flock(temporary.file.raw, LOCK_UN) }

    /// fsyncs the file and this companion's at once (`prefs_fsync_together`): throws the file's
    /// failure; false when only the companion's fails (its temporary file is removed then).
    func sync(with file: borrowing FileDescriptor) throws(FileDescriptor.Errno) -> Bool {
        var failed: Int32 = 0
        let error = prefs_fsync_together(file.raw, temporary.file.raw, &failed)
        guard error == 0 else { throw FileDescriptor.Errno(code: error) }
        guard failed == 0 else {
            discard()
            return false
        }
        return true
    }

    /// fsyncs `directory` (the file's) and this companion's at once: throws the first's failure;
    /// false when only the companion's fails.
    func syncDirectories(with directory: String) throws(FileDescriptor.Errno) -> Bool {
        let own = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
        guard let other = try? FileDescriptor.open(companion.directory, O_RDONLY | O_DIRECTORY) else {
            try own.sync()
            return false
        }
        var failed: Int32 = 0
        let error = prefs_fsync_together(own.raw, other.raw, &failed)
        guard error == 0 else { throw FileDescriptor.Errno(code: error) }
        return failed == 0
    }

    /// Renames it into place and removes the files the companion replaces, none of it synced; false
    /// when the rename fails (the temporary file is removed then).
    func place() -> Bool {
        guard rename(temporary.path, companion.path) == 0 else {
            discard()
            return false
        }
        pending = false
        for path in companion.removing { unlink(path) }
        return true
    }

    func discard() {
        guard pending else { return }
        unlink(temporary.path)
        pending = false
    }
}
