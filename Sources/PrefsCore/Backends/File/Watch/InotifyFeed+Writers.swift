import Glibc

/// Asking the kernel whether a layer file is open for writing right now.
///
/// inotify alone cannot tell whether a read saw a file mid-write: the kernel makes a truncation
/// visible before it queues the truncation's IN_MODIFY, and between the two the writer may sleep for
/// as long as the disk takes. ext4 truncating a file waits there for the writeback of the file's old
/// pages and for the discard of its freed blocks (traced: 38 ms while two busy loops ran), while a
/// reader already sees an empty file and no event. So after each read the watcher asks: a file open
/// for writing may have been read half-written, and is read again once its writer has closed it. A
/// file no one has open for writing was either not written during the read, or its writers have all
/// closed it since, and then every event they caused (the truncation's IN_MODIFY, each write's,
/// IN_CLOSE_WRITE) is queued already and is seen right after the read.
extension InotifyFeed {
    /// The layer files found open for writing (by name, as `beingWritten` holds them), and whether
    /// the kernel would not say for some of them.
    struct Writers {
        var names = Set<[UInt8]>()
        var unknown = false
    }

    /// Asks about every layer file except `ignoring` (writers already waited for long enough).
    func layerFilesOpenForWriting(ignoring: Set<[UInt8]>) -> Writers {
        var writers = Writers()
        for file in layerFiles where !ignoring.contains(file.name) {
            switch InotifyFeed.isOpenForWriting(file.path) {
            case true?: writers.names.insert(file.name)
            case false?: break
            case nil: writers.unknown = true
            }
        }
        return writers
    }

    /// F_SETLEASE and F_SETSIG, which Glibc shows only to C code built with _GNU_SOURCE (the values
    /// are the same on every architecture Swift runs on).
    static let setLease: Int32 = 1024, setLeaseSignal: Int32 = 10

    /// Whether any process has `path` (a regular file) open for writing: a read lease is granted only
    /// when none has (fcntl(2), F_SETLEASE), so one is taken and given back at once. False when the
    /// file does not exist; nil when the kernel will not say: leases are for the file's owner (or
    /// CAP_LEASE) and some file systems have none.
    ///
    /// A writer that opens the file in the instant the lease is held waits for it to be given back
    /// (or fails with EWOULDBLOCK if it opens without blocking), and the lease holder is sent a
    /// signal: SIGURG, which a process ignores unless it handles it, instead of SIGIO, which would
    /// end it.
    static func isOpenForWriting(_ path: String) -> Bool? {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
        } catch {
            return error == .notFound || error.code == ENOTDIR ? false : nil
        }
        guard fcntl(file.raw, setLeaseSignal, SIGURG) == 0 else { return nil }
        guard fcntl(file.raw, setLease, Int32(F_RDLCK)) == 0 else { return errno == EAGAIN ? true : nil }
        _ = fcntl(file.raw, setLease, Int32(F_UNLCK))
        return false
    }
}
