import Glibc

extension LocalFileSystem {
    /// Writes the pieces into a new temporary file beside `path` (`O_EXCL|O_NOFOLLOW`, the existing
    /// file's mode or `newFileMode`) as they come, then fsyncs, renames it over `path` and fsyncs the
    /// directory; a failure (of `produce` too) removes the temporary file and leaves `path` as it was.
    package func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let (directory, name) = splitPath(path)
        removeStaleTemporaries(in: directory, for: name)
        try replace(path, newFileMode: newFileMode, streaming: produce, removingStale: false) { rename in try rename() }
    }

    /// The temporary file written and synced with no lock held; then, inside `commit` (which takes the
    /// file's lock), the temporaries killed writers left are removed and it is renamed over `path`.
    package func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                        commit: (_ rename: () throws -> Void) throws -> Void) throws {
        try replace(path, newFileMode: newFileMode, streaming: produce, removingStale: true, commit: commit)
    }

    /// The temporary file is locked (`flock`) from its creation until its writer ends, so that
    /// `removeStaleTemporaries` tells a killed writer's from one still being written.
    private func replace(_ path: String, newFileMode: mode_t, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                         removingStale: Bool, commit: (_ rename: () throws -> Void) throws -> Void) throws {
        let (directory, name) = splitPath(path)
        let existing = try status(of: path)
        let mode = existing?.mode ?? newFileMode
        func failed(_ error: FileDescriptor.Errno) -> PrefsError { .cannotWrite(path: path, errno: error.code) }
        var attempt = 0
        while true {
            let temporary = TemporaryName.make(for: name)
            let candidate = directory + "/" + temporary
            let raw: Int32
            do {
                raw = try FileDescriptor.retrying { open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode) }
            } catch where error == .exists && attempt < 100 {
                attempt += 1
                continue
            } catch {
                throw failed(error)
            }
            let file = FileDescriptor(owning: raw)
            do {
                guard try file.tryLock(LOCK_EX) else { throw FileDescriptor.Errno(code: EWOULDBLOCK) }
                if existing != nil { _ = try FileDescriptor.retrying { fchmod(raw, mode) } }
                try produce(LocalFileSystem.writer(raw, path: path))
                try file.sync()
                try commit {
                    if removingStale { removeStaleTemporaries(in: directory, for: name, except: temporary) }
                    guard rename(candidate, path) == 0 else { throw FileDescriptor.Errno.current }
                    try syncDirectory(directory)
                }
                // Now the file's lock (see `withLock(ofFile:)`): let go of it before the descriptor is
                // closed, which a child another thread forks would delay until its exec.
                flock(raw, LOCK_UN)
                return
            } catch {
                unlink(candidate)
                throw (error as? FileDescriptor.Errno).map(failed) ?? error
            }
        }
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
