import Glibc

/// A file of short-lived state that the commands of one user on this machine share between runs:
/// `$XDG_RUNTIME_DIR/prefs/NAME`. Only in a directory that is the user's alone: `$XDG_RUNTIME_DIR`
/// (as the XDG spec has it, and as systemd makes `/run/user/UID`) and its `prefs` must be
/// directories, not symlinks, owned by this user with mode 0700, else nothing is read or written
/// there; without `$XDG_RUNTIME_DIR` nothing is kept between runs (a shared place such as /tmp
/// could be planted by another user).
///
/// Nothing here ever fails a command: what cannot be read is not there, what cannot be written is
/// not kept. Reading never blocks (no symlink is followed, only a regular file of this user of at
/// most the given size is read, opened without waiting); writing replaces the file whole (a new
/// file, 0600, renamed over it), so a reader sees the old contents or the new, and of two commands
/// writing at once the last wins. `prefs` is created (0700) only when there is something to keep.
struct RuntimeFile: Sendable {
    let directory: String
    let name: String

    /// The file `name` under `runtimeDirectory` (nil when it is unset or not absolute: no file).
    init?(runtimeDirectory: String?, name: String) {
        guard let runtimeDirectory, runtimeDirectory.hasPrefix("/") else { return nil }
        self.init(directory: runtimeDirectory, name: name)
    }

    /// The file `name` under `directory`, an absolute path.
    init(directory: String, name: String) {
        self.directory = directory
        self.name = name
    }

    /// The file's bytes; nil when there is no such file, it is not one, or it is larger than `limit`.
    func read(limit: Int) -> [UInt8]? {
        guard let folder = try? privateDirectory(create: false),
            let file = try? folder.open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY),
            let status = try? file.status(), status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
            let bytes = try? file.readAll(sizeHint: Int(status.st_size), limit: limit)
        else { return nil }
        return bytes
    }

    /// Replaces the file with `bytes`; silently not when it cannot.
    func replace(with bytes: [UInt8]) {
        guard let folder = try? privateDirectory(create: true) else { return }
        let temporary = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        guard let file = try? folder.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600) else { return }
        let written = (try? file.writeAll(bytes)) != nil
        file.close()
        if !written || renameat(folder.raw, temporary, folder.raw, name) != 0 { _ = unlinkat(folder.raw, temporary, 0) }
    }

    /// Removes the file, if there is one.
    func remove() {
        guard let folder = try? privateDirectory(create: false) else { return }
        _ = unlinkat(folder.raw, name, 0)
    }

    /// `$XDG_RUNTIME_DIR/prefs`, opened, once both are checked to be this user's alone; made when
    /// missing if `create`.
    private func privateDirectory(create: Bool) throws(FileDescriptor.Errno) -> FileDescriptor {
        let runtime = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        guard RuntimeFile.isPrivate(try runtime.status()) else { throw FileDescriptor.Errno(code: EPERM) }
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW
        let folder: FileDescriptor
        do {
            folder = try runtime.open("prefs", flags)
        } catch .notFound where create {
            // One made meanwhile by another command is as good; a new one is 0700 whatever the umask.
            let made = mkdirat(runtime.raw, "prefs", 0o700) == 0
            if !made && errno != EEXIST { throw FileDescriptor.Errno.current }
            folder = try runtime.open("prefs", flags)
            if made { _ = fchmod(folder.raw, 0o700) }
        }
        guard RuntimeFile.isPrivate(try folder.status()) else { throw FileDescriptor.Errno(code: EPERM) }
        return folder
    }

    /// A directory of this user that no one else may enter.
    static func isPrivate(_ status: stat) -> Bool {
        status.st_mode & S_IFMT == S_IFDIR && status.st_uid == geteuid() && status.st_mode & 0o777 == 0o700
    }
}
