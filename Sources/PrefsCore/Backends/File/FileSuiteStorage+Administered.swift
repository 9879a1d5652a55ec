import Glibc

/// The administrator's files on this machine, under each `$XDG_CONFIG_DIRS` directory (default
/// `/etc/xdg`): managed values `prefs/managed/NAME.plist` (or `.json`), where the first directory
/// that has the file wins, and system defaults `prefs/defaults/NAME.plist`. The global suite's files
/// are `.GlobalPreferences.plist`. They bind every user of the machine whatever store the suites are
/// in, so the core reads them through `SuiteStore.administered` (`AdministeredFiles`) for every store (`Layers+Administered.swift`).
/// They are only ever read. A directory without `prefs` (most machines) costs one `stat`.
extension FileSuiteStorage {
    /// The `$XDG_CONFIG_DIRS` directories, in order, that have a `prefs` entry: where an
    /// administrator's files may be now.
    package func administeredDirectories() throws -> [String] {
        try environment.configDirectories().filter { try fileSystem.status(of: $0 + "/prefs") != nil }
    }

    /// A suite's managed values on this machine: the first of its managed files (among
    /// `directories`, `administeredDirectories()`) that exists; nil when none does.
    package func managedFileValues(for name: String, in directories: [String]) throws -> ManagedValues? {
        for path in FileSuiteStorage.managedFilePaths(for: name, in: directories) where try fileSystem.status(of: path) != nil {
            guard let suite = try loadAdministered(path) else { return nil }
            return ManagedValues(values: suite.contents, source: path)
        }
        return nil
    }

    /// Every file that would hold a suite's managed values, most important first (`watch` watches
    /// them all, so one that appears counts).
    package func managedFilePaths(for name: String) throws -> [String] {
        FileSuiteStorage.managedFilePaths(for: name, in: try environment.configDirectories())
    }

    static func managedFilePaths(for name: String, in directories: [String]) -> [String] {
        let file = administeredName(name)
        return directories.flatMap { directory in [".plist", ".json"].map { directory + "/prefs/managed/" + file + $0 } }
    }

    /// The files that may hold a suite's system defaults (among `directories`), most important first.
    package func systemDefaultsFiles(for name: String, in directories: [String]) -> [String] {
        let file = FileSuiteStorage.administeredName(name)
        return directories.map { $0 + "/prefs/defaults/" + file + ".plist" }
    }

    /// The file name (less its suffix) of a suite's administered files.
    static func administeredName(_ name: String) -> String {
        name == Domain.global.registrationName ? ".GlobalPreferences" : name
    }

    /// An administered file's suite; nil when it is not there. A FIFO, socket or device (also
    /// through a symlink) is refused (65) and never opened; a file is read at most
    /// `DocumentInput.maximumSize`; one that cannot be read or parsed is an error, never skipped.
    package func loadAdministered(_ path: String) throws -> StoredSuite? {
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
