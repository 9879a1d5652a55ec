import Glibc

/// inotify's failures that are its limits, not the directory's: `inotify_add_watch` fails with
/// ENOSPC ("no space left on device") when the user's watches are all taken, and `inotify_init1`
/// with EMFILE when the user's instances are — both set by sysctl. They are named as such, with the
/// setting to raise.
extension InotifyFeed {
    /// The error for `inotify_init1` failing with `code`. EMFILE is the instance limit, or this
    /// process's descriptor limit when no descriptor is free either (`descriptorFree`).
    static func initError(_ code: Int32, descriptorFree: Bool) -> PrefsError {
        guard code == EMFILE, descriptorFree else { return .cannotRead(path: "inotify", errno: code) }
        return .inotifyLimit(path: "inotify", limit: "instance", setting: "fs.inotify.max_user_instances")
    }

    /// The error for `inotify_add_watch` failing with `code` on `path`.
    static func watchError(_ code: Int32, path: String) -> PrefsError {
        guard code == ENOSPC else { return .cannotRead(path: path, errno: code) }
        return .inotifyLimit(path: path, limit: "watch", setting: "fs.inotify.max_user_watches")
    }

    /// Whether this process could open one more descriptor (on `/`, which is always there).
    static func descriptorFree() -> Bool {
        let probe = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard probe >= 0 else { return false }
        close(probe)
        return true
    }
}
