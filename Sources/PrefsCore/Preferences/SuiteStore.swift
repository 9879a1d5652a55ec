/// What every verb reads and changes suites through: a store for named suites, the global suite and
/// the user's registered defaults (the file store, or another `SuiteStorage`), files named by their
/// paths (always the file store), and the semantics above both — key checks, external values, dry
/// runs — so they are the same whatever the store.
public struct SuiteStore: Sendable {
    /// Where named suites, the global suite and the user's registered defaults live.
    public let storage: any SuiteStorage
    /// Files named by their paths: file domains, `--defaults FILE`s, packages' registered defaults.
    /// A path names a file whatever `storage` is, so this is always the file store; what the core
    /// asks of a location's store goes through `storage(for:)` and the seam's capabilities.
    public let files: FileSuiteStorage
    /// The host a `-currentHost` or `-host NAME` chose (nil: any host): suites and the global suite
    /// are then that host's ByHost suites (`SuiteStore+ByHost.swift`).
    public internal(set) var host: String?
    /// Which schema changes are checked against (`--schema FILE`, `--no-schema`); reads always see
    /// the installed one's defaults.
    public var schemaChoice: SchemaChoice = .installed
    /// The managed values that bind changes of one location, read once for a change of it (with its
    /// schema, `pinning(for:)`); nil: read them when a change asks.
    var pinnedManaged: (location: SuiteLocation, managed: Managed?)? = nil

    public var environment: Environment { files.environment }
    public var fileSystem: any FileSystem { files.fileSystem }

    /// Everything on a file system.
    public init(fileSystem: any FileSystem, environment: Environment) {
        files = FileSuiteStorage(fileSystem: fileSystem, environment: environment)
        storage = files
    }

    public init(storage: any SuiteStorage, files: FileSuiteStorage) {
        self.storage = storage
        self.files = files
    }

    /// The store that holds a location.
    public func storage(for location: SuiteLocation) -> any SuiteStorage {
        if location.isFile { return files }
        return storage
    }

    /// The location a domain names (standard input is not a store); a name that could escape the
    /// store is refused first (`Domain.checkName`, 64).
    public func location(of domain: Domain) throws -> SuiteLocation {
        try domain.checkName()
        guard let location = SuiteLocation(domain) else {
            throw PrefsError.usage("standard input cannot be changed; name a suite or a file")
        }
        return try onHost(try resolvingPath(location))
    }

    public func describe(_ location: SuiteLocation) -> String { storage(for: location).describe(location) }

    /// Whether two locations are one suite (a suite, and its file named by its path): the same
    /// file, where both are files; else the same location.
    public func same(_ a: SuiteLocation, _ b: SuiteLocation) -> Bool {
        guard let first = try? resolvedFile(a), let second = try? resolvedFile(b) else { return a == b }
        return first.utf8.elementsEqual(second.utf8)
    }

    /// The file that holds a location, symlinks followed; nil where its store has no files.
    private func resolvedFile(_ location: SuiteLocation) throws -> String? {
        try storage(for: location).filePath(of: location).map(fileSystem.resolvingSymlinks)
    }

    /// A suite's stored contents (external values as their references); nil when it does not exist.
    public func load(_ domain: Domain) throws -> StoredSuite? { try load(at: try location(of: domain)) }

    public func load(at location: SuiteLocation) throws -> StoredSuite? { try storage(for: location).load(location) }

    func lookup(_ key: String, in location: SuiteLocation) throws -> (exists: Bool, value: PrefValue?) {
        try storage(for: location).lookup(key, in: location)
    }

    /// The value at `path` in a domain's own suite (nil when absent; `.suiteNotFound` when the suite
    /// is), read the fast way: only its key is decoded.
    public func value(at path: KeyPath, in domain: Domain) throws -> PrefValue? {
        let found = try lookup(path.first, in: try location(of: domain))
        guard found.exists else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
        return try KeyPathError.attributing(domain: domain.displayName, path: path) {
            try found.value?.value(at: path.components.dropFirst())
        }
    }

    /// The named suites, and what was skipped finding them.
    public func suiteNames() throws -> SuiteListing {
        guard let host else { return try storage.suiteNames() }
        return try storage.suiteNames(onHost: host)
    }

    /// Deletes a whole suite (a store that cannot be parsed is refused and kept), then the blobs of
    /// its external values. Returns false when there was none.
    @discardableResult
    public func remove(_ domain: Domain) throws -> Bool {
        let location = try location(of: domain)
        guard let contents = try storage(for: location).remove(location) else { return false }
        discard(contents.compactMap { try? ExternalReference.parse($0.value) }, place: try blobPlace(for: location))
        return true
    }
}

/// The suites found in a store, and what was skipped.
public struct SuiteListing: Equatable, Sendable {
    public var names: [String] = []
    public var skipped: [SkippedEntry] = []
}

/// An entry passed over while listing suites, with the reason: a warning, not an error.
public struct SkippedEntry: Equatable, Sendable {
    public let path: String
    public let reason: String

    /// `PATH: REASON; skipped`.
    public var message: String { "\(path): \(reason); skipped" }
}
