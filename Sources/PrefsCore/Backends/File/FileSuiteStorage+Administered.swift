import Glibc

/// The administrator's layers on a machine, under each `$XDG_CONFIG_DIRS` directory (default
/// `/etc/xdg`): managed values `prefs/managed/NAME.plist` (or `.json`), where the first directory
/// that has the file wins, and system defaults `prefs/defaults/NAME.plist`. The global suite's files
/// are `.GlobalPreferences.plist`. They are only ever read, and each costs one `stat` per directory
/// and name while it is not there.
extension FileSuiteStorage {
    public func managedValues(for name: String) throws -> ManagedValues? {
        for path in try managedPaths(for: name) where try fileSystem.status(of: path) != nil {
            guard let suite = try loadAdministered(path) else { return nil }
            return ManagedValues(values: suite.contents, source: path)
        }
        return nil
    }

    /// Every file that would hold a suite's managed values, most important first (`watch` watches
    /// them all, so one that appears counts).
    public func managedPaths(for name: String) throws -> [String] {
        let file = FileSuiteStorage.administeredName(name)
        return try environment.configDirectories().flatMap { directory in
            [".plist", ".json"].map { directory + "/prefs/managed/" + file + $0 }
        }
    }

    public func systemDefaultsLocations(for name: String) throws -> [SuiteLocation] {
        let file = FileSuiteStorage.administeredName(name)
        return try environment.configDirectories().map { .file($0 + "/prefs/defaults/" + file + ".plist") }
    }

    /// The file name (less its suffix) of a suite's administered files.
    static func administeredName(_ name: String) -> String {
        name == Domain.global.registrationName ? ".GlobalPreferences" : name
    }

    /// An administered file's suite; nil when it is not there. A FIFO, socket or device (also
    /// through a symlink) is refused (65) and never opened; a file is read at most
    /// `DocumentInput.maximumSize`; one that cannot be read or parsed is an error, never skipped.
    public func loadAdministered(_ path: String) throws -> StoredSuite? {
        guard let status = try fileSystem.status(of: path) else { return nil }
        if status.isSpecial { try checkNotSpecial(path) }
        guard !status.isDirectory else { throw PrefsError.cannotRead(path: path, errno: EISDIR) }
        do {
            return try FileSuiteStorage.decode(try DocumentInput(fileSystem: fileSystem).fileBytes(path, what: "administrator's file"), path: path)
        } catch PrefsError.fileNotFound {
            return nil
        }
    }
}
