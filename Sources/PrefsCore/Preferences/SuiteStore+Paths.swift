import Glibc

/// File domains as `defaults` finds them: it takes a path without its `.plist` suffix
/// (`/Library/Preferences/com.apple.loginwindow` is `…/com.apple.loginwindow.plist`), and prefs
/// also takes one with it, or any file that is there.
extension SuiteStore {
    /// The file a path domain names: a leading `~` or `~USER` made that home directory; then the
    /// path itself when a file (not a directory) is there, or when it ends in `.plist` or `.json`;
    /// else the path with `.plist` added.
    package func resolvedPath(_ typed: String) throws -> String {
        let path = try SuiteStore.expandingTilde(typed, home: try environment["HOME"])
        if let status = try fileSystem.status(of: path), !status.isDirectory { return path }
        if path.hasSuffix(".plist") || path.hasSuffix(".json") { return path }
        return path + ".plist"
    }

    /// `~` and `~/…` in `home`, `~USER` and `~USER/…` in that user's home directory as the password
    /// file (`passwd`) gives it; a user not there is a usage error.
    static func expandingTilde(_ path: String, home: String?, passwd: String = SuiteStore.passwdFile) throws -> String {
        guard path.hasPrefix("~") else { return path }
        let user = path.dropFirst().prefix { $0 != "/" }
        let rest = path.dropFirst(1 + user.count)
        if user.isEmpty {
            guard let home, home.hasPrefix("/") else { throw PrefsError.usage("\(path): HOME is not set to an absolute path, so ~ names no directory") }
            return home + rest
        }
        guard let directory = try homeDirectory(of: String(user), passwd: passwd) else {
            throw PrefsError.usage("\(path): there is no user \(user) in \(passwd)")
        }
        return directory + rest
    }

    /// Where `~USER` is looked up. Not through NSS (`getpwnam`): a static `prefs` cannot load the
    /// shared modules `/etc/nsswitch.conf` may name (`systemd`, `ldap`…), and crashes when it tries.
    static let passwdFile = "/etc/passwd"

    /// The largest password file read.
    static let passwdMaximumSize = 16 << 20

    /// The home directory of `user` in a password file (`NAME:PASSWORD:UID:GID:GECOS:HOME:SHELL`
    /// lines; the first line for the name counts, as for NSS's `files`); nil when none names it.
    static func homeDirectory(of user: String, passwd: String) throws -> String? {
        let bytes = try HostFiles.read(passwd, atMost: passwdMaximumSize, what: "the password file")
        let name = Array(user.utf8)
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let fields = line.split(separator: UInt8(ascii: ":"), maxSplits: 6, omittingEmptySubsequences: false)
            guard fields.count == 7, fields[0].elementsEqual(name) else { continue }
            let home = String(decoding: fields[5], as: UTF8.self)
            return home.hasPrefix("/") ? home : nil
        }
        return nil
    }

    /// A location with a file domain's path resolved.
    func resolvingPath(_ location: SuiteLocation) throws -> SuiteLocation {
        guard case .file(let typed) = location else { return location }
        return .file(try resolvedPath(typed))
    }
}
