import Glibc

/// Where the commands of one user on this machine share `EtcdEndpointHealth` between runs: the file
/// `$XDG_RUNTIME_DIR/prefs/etcd-HASH`, HASH naming the list of endpoints. Only in a directory that
/// is the user's alone: `$XDG_RUNTIME_DIR` (as the XDG spec has it, and as systemd makes
/// `/run/user/UID`) and its `prefs` must be directories, not symlinks, owned by this user with mode
/// 0700, else nothing is read or written there; without `$XDG_RUNTIME_DIR` nothing is kept between
/// runs (a shared place such as /tmp could be planted by another user).
///
/// Nothing here ever fails a command: what cannot be read is no health, what cannot be written is
/// not kept. Reading never blocks (no symlink is followed, only a regular file of this user of at
/// most `EtcdEndpointHealth.sizeLimit` bytes is read, opened without waiting); writing replaces the
/// file whole (a new file renamed over it), so a reader sees the old health or the new, and of two
/// commands writing at once the last wins. `prefs` is created (0700) only when there is something
/// to keep.
struct EtcdHealthFile: Sendable {
    let directory: String
    let name: String

    /// The file for `endpoints` under `runtimeDirectory` (nil when it is unset: no file).
    init?(runtimeDirectory: String?, endpoints: [EtcdEndpoint]) {
        guard let runtimeDirectory, runtimeDirectory.hasPrefix("/") else { return nil }
        directory = runtimeDirectory
        // FNV-1a, 64 bits, of the endpoints as the URL lists them.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in endpoints.map(\.description).joined(separator: ",").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        name = "etcd-" + String(hash, radix: 16)
    }

    /// What the file says of `endpoints`; empty health when there is no such file or it is not one.
    func load(_ endpoints: [EtcdEndpoint]) -> EtcdEndpointHealth {
        guard let folder = try? privateDirectory(create: false),
            let file = try? folder.open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY),
            let status = try? file.status(), status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
            let bytes = try? file.readAll(sizeHint: Int(status.st_size), limit: EtcdEndpointHealth.sizeLimit)
        else { return EtcdEndpointHealth() }
        return EtcdEndpointHealth(text: bytes, endpoints: endpoints) ?? EtcdEndpointHealth()
    }

    /// Replaces the file with `health`; silently not when it cannot.
    func save(_ health: EtcdEndpointHealth) {
        guard let folder = try? privateDirectory(create: true) else { return }
        let temporary = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        guard let file = try? folder.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600) else { return }
        let written = (try? file.writeAll(Array(health.text.utf8))) != nil
        file.close()
        if !written || renameat(folder.raw, temporary, folder.raw, name) != 0 { _ = unlinkat(folder.raw, temporary, 0) }
    }

    /// `$XDG_RUNTIME_DIR/prefs`, opened, once both are checked to be this user's alone; made when
    /// missing if `create`.
    private func privateDirectory(create: Bool) throws(FileDescriptor.Errno) -> FileDescriptor {
        let runtime = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        guard EtcdHealthFile.isPrivate(try runtime.status()) else { throw FileDescriptor.Errno(code: EPERM) }
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
        guard EtcdHealthFile.isPrivate(try folder.status()) else { throw FileDescriptor.Errno(code: EPERM) }
        return folder
    }

    /// A directory of this user that no one else may enter.
    static func isPrivate(_ status: stat) -> Bool {
        status.st_mode & S_IFMT == S_IFDIR && status.st_uid == geteuid() && status.st_mode & 0o777 == 0o700
    }
}
