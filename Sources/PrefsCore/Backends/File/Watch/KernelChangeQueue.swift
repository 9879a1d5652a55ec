import Glibc

/// Tells a `ReadCache` of changes to a suite's files through the kernel: the process's inotify
/// instance (`SharedInotify`, one for every cached and observed suite) watches the directory of
/// every file a read of the suite may look at, and each read takes the events for it after reading
/// the kernel's queue — one `read` that finds nothing when nothing changed. The kernel queues an
/// event before the call that changed a file returns (the writer's rename, or each `write` of a
/// file rewritten in place), so a read after a write has completed always finds its event: a value
/// is never kept past a change, with no timestamp to trust and no thread of its own.
///
/// Directories are watched, not files (an atomic rename replaces a file's inode), and where one
/// does not exist yet, its nearest existing ancestor, until a directory appears there. An event
/// counts when it names one of the files (or another file of the suite's name), or a directory, or
/// tells that events were lost or a watched directory went; then the watches are set up again
/// before the next read. Where the kernel cannot watch (no inotify instance or watch left, a
/// directory that can be searched but not read), the files' identities are compared instead
/// (`FileIdentities`); on a network file system, which does not report other hosts' changes, the
/// values are not kept at all.
final class KernelChangeQueue: ChangeSignal, @unchecked Sendable {
    /// The files a read may look at (recomputed whenever the watches are set up).
    let paths: () throws -> [String]
    let fileSystem: any FileSystem
    /// The suite's name followed by ".", as bytes: another of its files (`NAME.json` for `NAME.plist`).
    let suitePrefix: [UInt8]
    /// Its share of the process's inotify instance; nil until the first watch.
    private var inotify: SharedInotify.Subscription?
    private var watchedNames = Set<[UInt8]>()
    /// The watches must be set up again before a value may be kept.
    private var stale = true
    /// What stands in when the kernel cannot watch.
    private var fallback: (any ChangeSignal)?

    init(suite: String, fileSystem: any FileSystem, paths: @escaping () throws -> [String]) {
        self.paths = paths
        self.fileSystem = fileSystem
        suitePrefix = Array((suite + ".").utf8)
    }

    /// The events it asks for: any change of a file in the watched directories.
    static let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE
        | IN_DELETE_SELF | IN_MOVE_SELF)

    var name: String { fallback.map { $0.name } ?? "kernel" }

    func mayHaveChanged() -> Bool {
        if let fallback { return fallback.mayHaveChanged() }
        guard !stale else { return true }
        return drain()
    }

    func prepare() -> Bool {
        if let fallback { return fallback.prepare() }
        if stale { stale = !watch() }
        if let fallback { return fallback.prepare() }
        return !stale
    }

    /// Watches every file's directory (letting go of the watches no longer needed); false when
    /// that failed this time.
    private func watch() -> Bool {
        if inotify == nil {
            do {
                inotify = try SharedInotify.shared.subscribe(mask: KernelChangeQueue.mask, wakes: false)
            } catch {
                return fallBack("no inotify instance (\(error))")
            }
        }
        guard let inotify, let files = try? paths() else { return false }
        var directories = Set<String>(), names = Set<[UInt8]>()
        for file in files {
            for path in [file, try? fileSystem.resolvingSymlinks(file)].compactMap({ $0 }) {
                let (directory, name) = splitPath(path)
                directories.insert(directory)
                names.insert(Array(name.utf8))
            }
        }
        watchedNames = names
        var watches = Set<Int32>()
        for directory in directories {
            var place = directory
            while true {
                let code: Int32
                switch inotify.watch(place) {
                case .success(let wd):
                    watches.insert(wd)
                    code = 0
                case .failure(let failure):
                    code = failure.code
                }
                if code == 0 { break }
                var info = stat()
                let isDirectory = stat(place, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
                // A directory that is there but cannot be watched (no watch left, not readable
                // though searchable): its files could change unseen.
                if code == ENOSPC || code == ENOMEM || (code == EACCES && isDirectory) {
                    return fallBack("\(place) cannot be watched (errno \(code))")
                }
                guard code == ENOENT || code == ENOTDIR || code == EACCES, place != "/" else { return false }
                place = splitPath(place).directory
            }
            if KernelChangeQueue.isRemote(place) {
                self.inotify = nil
                fallback = NoCaching("\(place) is on a network file system")
                return false
            }
        }
        inotify.keepOnly(watches)
        // What was queued before the watches were in place is older than the read that follows.
        _ = inotify.take()
        return true
    }

    private func fallBack(_ reason: String) -> Bool {
        inotify = nil
        fallback = FileIdentities.onDisk(paths: paths, reason: reason)
        return false
    }

    /// Reads every queued event; whether one may mean a change. One that may mean that a directory
    /// came or went (or events were lost) also makes the watches stale.
    private func drain() -> Bool {
        guard let inotify else { return true }
        var changed = false
        for event in inotify.take() {
            if event.mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_ISDIR) != 0 {
                (changed, stale) = (true, true)
            } else if watchedNames.contains(event.name) || event.name.starts(with: suitePrefix) {
                changed = true
            }
        }
        return changed || stale
    }

    /// Whether a directory is on a file system whose other clients' (or host's) changes inotify never
    /// reports: its mount's type, from `/proc/self/mountinfo`, is a network or shared one.
    static func isRemote(_ directory: String) -> Bool {
        guard let type = mountType(of: directory) else { return false }
        let remote: Set<String> = ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph", "coda", "ncpfs", "gfs2", "ocfs2",
                                   "lustre", "gpfs", "beegfs", "virtiofs", "vboxsf", "vmhgfs", "fuse", "fuseblk"]
        return remote.contains(type) || type.hasPrefix("fuse.")
    }

    /// The type of the file system `directory` is on: the mount whose mount point is the longest
    /// one above the directory's real path.
    static func mountType(of directory: String) -> String? {
        guard let resolved = realpath(directory, nil) else { return nil }
        let real = String(cString: resolved)
        free(resolved)
        guard let bytes = try? LocalFileSystem().contents(of: "/proc/self/mountinfo", atMost: 1 << 22) else { return nil }
        var best: (length: Int, type: String)?
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count > 6, let dash = fields.firstIndex(of: [UInt8(ascii: "-")]), dash + 1 < fields.count else { continue }
            let mountPoint = unescaped(fields[4])
            let inside = mountPoint == "/" || real == mountPoint || real.hasPrefix(mountPoint + "/")
            if inside && mountPoint.utf8.count >= best?.length ?? 0 {
                best = (mountPoint.utf8.count, String(decoding: fields[dash + 1], as: UTF8.self))
            }
        }
        return best?.type
    }

    /// A mountinfo field with its octal escapes (`\040` for a space) decoded.
    static func unescaped(_ field: ArraySlice<UInt8>) -> String {
        var bytes: [UInt8] = [], rest = field[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "\\"), rest.count >= 3, let code = UInt8(String(decoding: rest.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(code)
                rest = rest.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
