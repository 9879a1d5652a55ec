import Glibc

/// The copy of a suite `edit` hands to an editor: a file of its own (0600) in a new directory (0700)
/// under `base` (`$TMPDIR` or /tmp). Editors save in their own ways — in place, or a new file renamed
/// over the copy (vim, emacs), with a backup (`NAME.json~`) or a swap file beside it — and whatever
/// they leave, the copy is read back only as a regular file at its name: never through a symlink
/// or a hard link (another file's text would be stored), never a FIFO (the read would block) or a device (it may
/// never end), and at most `DocumentInput.maximumSize` bytes, like every document.
package struct EditedCopy: Sendable {
    package let directory: String
    package let path: String

    /// Writes `bytes` into `NAME.json` (the last component of `name`, a leading dot made `_`, so an
    /// editor shows it) in a new directory under `base`.
    package init(_ bytes: [UInt8], name: String, under base: String) throws {
        var template = Array((base + "/prefs-edit-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw PrefsError.cannotWrite(path: base, errno: errno) }
        directory = String(cString: made)
        let leaf = name.split(separator: "/").last.map(String.init) ?? "suite"
        path = directory + "/" + (leaf.hasPrefix(".") ? "_" + leaf : leaf) + ".json"
        do {
            try LocalFileSystem().replace(path, with: bytes, newFileMode: 0o600)
        } catch {
            remove()
            throw error
        }
    }

    /// What the editor left at the copy's name: a regular file of one name, opened without following
    /// a symlink or waiting for a FIFO's writer, refused (65) when it is anything else or larger than
    /// `DocumentInput.maximumSize` (checked before reading, and again as it is read, for a file still
    /// growing).
    package func read() throws -> [UInt8] {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        } catch {
            if error == .notFound { throw PrefsError.fileNotFound(path: path) }
            if error.code == ELOOP { throw notRegular("a symlink") }
            throw PrefsError.cannotRead(path: path, errno: error.code)
        }
        let info: stat
        do { info = try file.status() } catch { throw PrefsError.cannotRead(path: path, errno: error.code) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw notRegular(info.st_mode & S_IFMT == S_IFDIR ? "a directory" : "a FIFO, socket or device") }
        // A second name for the file: a hard link to another file, whose text would be stored.
        guard info.st_nlink == 1 else { throw notRegular("a hard link") }
        let limit = DocumentInput.maximumSize
        guard info.st_size.asInt <= limit else { throw DocumentInput.tooLarge(path, limit: limit, what: "document") }
        let bytes: [UInt8]
        do { bytes = try file.readAll(sizeHint: info.st_size.asInt, limit: limit) } catch { throw PrefsError.cannotRead(path: path, errno: error.code) }
        guard bytes.count <= limit else { throw DocumentInput.tooLarge(path, limit: limit, what: "document") }
        return bytes
    }

    private func notRegular(_ kind: String) -> PrefsError {
        .malformed(source: path, format: nil, reason: "not a regular file (the editor left \(kind) there); nothing is read through it")
    }

    /// Removes the directory and everything the editor left in it (backups, swap files, a symlink
    /// itself and never what it points to), as far as it can.
    package func remove() {
        let raw = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard raw >= 0 else { return }
        EditedCopy.empty(FileDescriptor(owning: raw))
        rmdir(directory)
    }

    /// Removes every entry of the open directory, emptying subdirectories first; a symlink is
    /// unlinked, never followed.
    private static func empty(_ directory: consuming FileDescriptor) {
        // Entries removed while the directory is read may hide others from that reading: read again
        // until nothing is left (or nothing more can go).
        for _ in 0..<8 {
            guard let stream = fdopendir(dup(directory.raw)) else { return }
            rewinddir(stream)  // (the duplicate shares the offset a reading before left at the end)
            var removed = 0
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }.map { CChar(bitPattern: $0) }) } + [0]
                if name == [0x2E, 0] || name == [0x2E, 0x2E, 0] { continue }
                let child = openat(directory.raw, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                if child >= 0 { empty(FileDescriptor(owning: child)) }
                if unlinkat(directory.raw, name, child >= 0 ? AT_REMOVEDIR : 0) == 0 { removed += 1 }
            }
            closedir(stream)
            if removed == 0 { return }
        }
    }
}
