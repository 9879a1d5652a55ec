import Glibc

/// Tells a `ReadCache` of changes to a suite's files through the kernel: an inotify instance
/// watches the directory of every file a read of the suite may look at, and each read drains its
/// queue — one `read` that finds nothing when nothing changed. The kernel queues an event before
/// the call that changed a file returns (the writer's rename, or each `write` of a file rewritten in
/// place), so a read after a write has completed always finds its event: a value is never kept past
/// a change, with no timestamp to trust and no thread.
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
    private var inotify: Int32 = -1
    private var watchedNames = Set<[UInt8]>()
    /// The watches must be set up again before a value may be kept.
    private var stale = true
    /// What stands in when the kernel cannot watch.
    private var fallback: (any ChangeSignal)?
    private var buffer = [UInt8](repeating: 0, count: 4096)

    init(suite: String, fileSystem: any FileSystem, paths: @escaping () throws -> [String]) {
        self.paths = paths
        self.fileSystem = fileSystem
        suitePrefix = Array((suite + ".").utf8)
    }

    deinit { if inotify >= 0 { KernelChangeQueue.closeLater(inotify) } }

    /// Closes an inotify instance without waiting for it: closing one waits until the kernel has
    /// retired its watches, often for milliseconds (an RCU grace period), so a cache being dropped
    /// hands that to a thread of its own (closing here only where none can start).
    static func closeLater(_ descriptor: Int32) {
        if !DetachedThread.start({ close(descriptor) }) { close(descriptor) }
    }

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

    /// A new inotify instance watching every file's directory; false when that failed this time.
    private func watch() -> Bool {
        if inotify >= 0 { KernelChangeQueue.closeLater(inotify) }
        inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { return fallBack("no inotify instance (errno \(errno))") }
        guard let files = try? paths() else { return false }
        var directories = Set<String>(), names = Set<[UInt8]>()
        for file in files {
            for path in [file, try? fileSystem.resolvingSymlinks(file)].compactMap({ $0 }) {
                let (directory, name) = splitPath(path)
                directories.insert(directory)
                names.insert(Array(name.utf8))
            }
        }
        watchedNames = names
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        for directory in directories {
            var place = directory
            while true {
                if inotify_add_watch(inotify, place, mask) >= 0 { break }
                let code = errno
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
                fallback = NoCaching("\(place) is on a network file system")
                return false
            }
        }
        return true
    }

    private func fallBack(_ reason: String) -> Bool {
        if inotify >= 0 { close(inotify) }
        inotify = -1
        fallback = FileIdentities.onDisk(paths: paths, reason: reason)
        return false
    }

    /// Reads every queued event; whether one may mean a change. One that may mean that a directory
    /// came or went (or events were lost) also makes the watches stale.
    private func drain() -> Bool {
        var changed = false
        let headerSize = MemoryLayout<inotify_event>.size
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else {
                if count < 0 && errno == EINTR { continue }
                if count < 0 && errno != EAGAIN { stale = true }
                return changed || stale
            }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + headerSize <= count {
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + headerSize
                    let name = raw[nameStart..<min(nameStart + Int(event.len), count)].prefix { $0 != 0 }
                    offset = nameStart + Int(event.len)
                    if event.mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_ISDIR) != 0 {
                        (changed, stale) = (true, true)
                    } else if watchedNames.contains(Array(name)) || name.starts(with: suitePrefix) {
                        changed = true
                    }
                }
            }
        }
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
