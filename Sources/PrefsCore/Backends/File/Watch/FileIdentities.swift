import Glibc

/// Tells a `ReadCache` of changes to a suite's files by comparing each file's identity with the one
/// it had when the kept values were read: one `stat` per file on every read.
///
/// On disk an identity is the device, inode, size, and the modification and status-change times
/// in nanoseconds. An atomic rename gives the file a new inode — but the kernel reuses freed
/// inodes, so a second rewrite of the same size can bring the first inode back; and a file
/// rewritten in place keeps its inode, and its size when the value has the same length. What tells
/// them apart is the status-change time, which the kernel sets from its clock on every change and
/// no program can set back. That clock ticks coarsely (a few milliseconds), and some file systems
/// keep whole seconds: two changes within one tick can leave every field equal. So a file changed
/// less than `racyWindow` before its identity was taken does not vouch for anything: values are
/// then read and not kept, until the file has been left alone that long (git's index calls such
/// entries "racily clean"). This assumes the file's times come from this machine's clock, not
/// stepped back meanwhile.
///
/// On `InMemoryFileSystem` every replacement gets a new inode that is never reused, so its identity
/// (inode, size, time) is exact and never racy.
final class FileIdentities: ChangeSignal, @unchecked Sendable {
    enum Identity: Equatable {
        case absent
        case file(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64)
        /// Cannot be told (it could not be looked at): never vouches for anything.
        case unknown
    }

    /// How long after a file's last change its identity starts to vouch for it, in nanoseconds.
    static let racyWindow: Int64 = 2_000_000_000

    let paths: () throws -> [String]
    /// A file's identity now, and whether it is too recent to vouch for anything.
    let identify: (String) -> (identity: Identity, racy: Bool)
    let name: String
    /// The identities when the kept values were read; nil: none kept.
    private var taken: [(path: String, identity: Identity)]?

    init(name: String, paths: @escaping () throws -> [String], identify: @escaping (String) -> (identity: Identity, racy: Bool)) {
        self.name = name
        self.paths = paths
        self.identify = identify
    }

    func mayHaveChanged() -> Bool {
        guard let taken else { return true }
        for file in taken where identify(file.path).identity != file.identity {
            self.taken = nil
            return true
        }
        return false
    }

    func prepare() -> Bool {
        guard let files = try? paths() else { return false }
        var identities: [(path: String, identity: Identity)] = []
        for path in files {
            let (identity, racy) = identify(path)
            guard !racy, identity != .unknown else {
                taken = nil
                return false
            }
            identities.append((path, identity))
        }
        taken = identities
        return true
    }

    /// Files on disk, with `stat` (following symlinks).
    static func onDisk(paths: @escaping () throws -> [String], reason: String) -> FileIdentities {
        FileIdentities(name: "identity (\(reason))", paths: paths) { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return (errno == ENOENT || errno == ENOTDIR ? .absent : .unknown, false) }
            let changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
            let identity = Identity.file(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                         modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                                         changed: changed)
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            return (identity, changed > Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - racyWindow)
        }
    }

    /// Files on a file system the kernel does not see (`InMemoryFileSystem`), through its `status`.
    static func inMemory(_ fileSystem: any FileSystem, paths: @escaping () throws -> [String]) -> FileIdentities {
        FileIdentities(name: "identity", paths: paths) { path in
            let found: FileStatus?
            do { found = try fileSystem.status(of: path) } catch { return (.unknown, false) }
            guard let status = found else { return (.absent, false) }
            return (.file(device: 0, inode: status.inode, size: Int64(status.size), modified: status.modified, changed: 0), false)
        }
    }
}
