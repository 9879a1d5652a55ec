/// The administrator's files on this machine (`FileSuiteStorage+Administered.swift`): managed values
/// and system defaults under `$XDG_CONFIG_DIRS`. They bind every user of the machine whatever store
/// the suites are in, so the core reads them through this for every store (`Layers+Administered.swift`);
/// they are only ever read.
package struct AdministeredFiles: Sendable {
    let files: FileSuiteStorage

    package init(_ files: FileSuiteStorage) { self.files = files }

    /// The machine's file system, and the variables that place the files.
    package var fileSystem: any FileSystem { files.fileSystem }
    package var environment: Environment { files.environment }

    /// The `$XDG_CONFIG_DIRS` directories, in order, that have a `prefs` entry: where an
    /// administrator's files may be now.
    package func directories() throws -> [String] { try files.administeredDirectories() }

    /// A suite's managed values: the first of its managed files among `directories` that exists.
    package func managedValues(for name: String, in directories: [String]) throws -> ManagedValues? {
        try files.managedFileValues(for: name, in: directories)
    }

    /// Every file that would hold a suite's managed values, most important first.
    package func managedPaths(for name: String) throws -> [String] { try files.managedFilePaths(for: name) }

    /// The files that may hold a suite's system defaults (among `directories`), most important first.
    package func systemDefaultsFiles(for name: String, in directories: [String]) -> [String] {
        files.systemDefaultsFiles(for: name, in: directories)
    }

    /// An administered file's suite; nil when it is not there (a FIFO or device refused, 65).
    package func load(_ path: String) throws -> StoredSuite? { try files.loadAdministered(path) }

    /// Refuses (65) a file that is a FIFO, socket or device (a package's registered defaults).
    package func checkNotSpecial(_ path: String) throws { try files.checkNotSpecial(path) }
}
