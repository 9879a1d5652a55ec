import Glibc

/// File domains as `defaults` finds them: it takes a path without its `.plist` suffix
/// (`/Library/Preferences/com.apple.loginwindow` is `…/com.apple.loginwindow.plist`), and prefs
/// also takes one with it, or any file that is there.
extension SuiteStore {
    /// The file a path domain names: a leading `~` or `~USER` made that home directory; then the
    /// path itself when a file (not a directory) is there, or when it ends in `.plist` or `.json`;
    /// else the path with `.plist` added.
    public func resolvedPath(_ typed: String) throws -> String {
        let path = try SuiteStore.expandingTilde(typed, home: try environment["HOME"])
        if let status = try fileSystem.status(of: path), !status.isDirectory { return path }
        if path.hasSuffix(".plist") || path.hasSuffix(".json") { return path }
        return path + ".plist"
    }

    /// `~` and `~/…` in `home`, `~USER` and `~USER/…` in that user's home directory.
    static func expandingTilde(_ path: String, home: String?) throws -> String {
        guard path.hasPrefix("~") else { return path }
        let user = path.dropFirst().prefix { $0 != "/" }
        let rest = path.dropFirst(1 + user.count)
        if user.isEmpty {
            guard let home, home.hasPrefix("/") else { throw PrefsError.usage("\(path): HOME is not set to an absolute path, so ~ names no directory") }
            return home + rest
        }
        guard let entry = getpwnam(String(user)), let directory = entry.pointee.pw_dir else {
            throw PrefsError.usage("\(path): there is no user \(user)")
        }
        return String(cString: directory) + rest
    }

    /// A location with a file domain's path resolved.
    func resolvingPath(_ location: SuiteLocation) throws -> SuiteLocation {
        guard case .file(let typed) = location else { return location }
        return .file(try resolvedPath(typed))
    }
}
