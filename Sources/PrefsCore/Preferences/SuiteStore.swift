/// What every verb reads and changes suites through: a store for named suites, the global suite and
/// the user's registered defaults (the file store, or another `SuiteBackend`), files named by their
/// paths (always the file store), and the semantics above both — key checks, external values, dry
/// runs — so they are the same whatever the store.
public struct SuiteStore: Sendable {
    /// Where named suites, the global suite and the user's registered defaults live.
    package internal(set) var storage: any SuiteBackend
    /// Files named by their paths: file domains, `--defaults FILE`s, packages' registered defaults.
    /// A path names a file whatever `storage` is, so this is always the file store; what the core
    /// asks of a location's store goes through `storage(for:)` and the seam's capabilities.
    package let files: any SuiteBackend
    /// The administrator's files on this machine, which bind every store's suites.
    package let administered: AdministeredFiles
    /// The host a `-currentHost` or `-host NAME` chose (nil: any host): suites and the global suite
    /// are then that host's ByHost suites (`SuiteStore+ByHost.swift`).
    package internal(set) var host: String?
    /// Which schema changes are checked against (`--schema FILE`, `--no-schema`); reads always see
    /// the installed one's defaults.
    package var schemaChoice: SchemaChoice = .installed
    /// What the changes made through this store do to the deadlines of the keys they write
    /// (`write --ttl`, `rename`); nil: a key set to another value or removed loses its deadline.
    package var expiry: ExpiryChange? = nil
    /// The verb each change records in its suite's history (`prefs` sets its own; `swift`: the library).
    package var changeVerb = "swift"
    /// The newest version of the suite a change expects to find (`rollback`); nil: any.
    var expectedVersion: Int64? = nil

    package var environment: Environment { administered.environment }
    package var fileSystem: any FileSystem { administered.fileSystem }

    /// Everything on a file system.
    package init(fileSystem: any FileSystem, environment: Environment) {
        let files = FileSuiteStorage(fileSystem: fileSystem, environment: environment)
        self.files = files
        administered = AdministeredFiles(files)
        storage = ExpiringStorage(files)
    }

    /// Everything on a file system, `options` replacing the `PREFS_*` variables of `environment`
    /// (`StoreOptions`). Apart from the command's initializer, which stays as it was: copying an
    /// `Environment` there made the runtime build type metadata on every start (bench-startup.sh).
    package init(fileSystem: any FileSystem, environment: Environment, options: StoreOptions?) {
        guard let options else {
            self.init(fileSystem: fileSystem, environment: environment)
            return
        }
        self.init(fileSystem: fileSystem, environment: environment.with(options))
    }

    /// The user's files on this machine, found from `environment` (`XDG_CONFIG_HOME`, `HOME`…),
    /// where `prefs` and `UserDefaults(suiteName:)` find them; `Environment(["XDG_CONFIG_HOME": …])`
    /// points elsewhere. `options`, when given, replace the `PREFS_*` variables (`StoreOptions`).
    public init(environment: Environment = .current, options: StoreOptions? = nil) {
        self.init(fileSystem: LocalFileSystem(), environment: environment, options: options)
    }

    /// The store `url` names, as `prefs --store URL` opens it (an etcd cluster:
    /// `etcd://HOST:PORT/PREFIX`, `etcds://` for TLS); files named by their paths stay on this
    /// machine. A bad URL is `PrefsError.usage`, before anything is contacted.
    public init(url: String, environment: Environment = .current, options: StoreOptions? = nil) throws {
        self = try SuiteStore.selected(url: url, fileSystem: LocalFileSystem(), environment: options.map { environment.with($0) } ?? environment)
    }

    /// `storage` for suites, `files` for files named by their paths and the administrator's.
    package init(storage: any SuiteBackend, files: FileSuiteStorage) {
        self.init(storage: storage, files: files, administered: AdministeredFiles(files))
    }

    /// A store of `storage`'s suites, with this one's files named by their paths and administered
    /// files (and nothing else of this store's settings).
    package func reading(_ storage: any SuiteBackend) -> SuiteStore {
        SuiteStore(storage: storage, files: files, administered: administered)
    }

    package init(storage: any SuiteBackend, files: any SuiteBackend, administered: AdministeredFiles) {
        self.storage = ExpiringStorage.wrapping(storage)
        self.files = files
        self.administered = administered
    }

    /// The store that holds a location, as readers see it: values past their deadline are not
    /// there (`ExpiringStorage`).
    package func storage(for location: SuiteLocation) -> any SuiteBackend {
        if location.isFile { return ExpiringStorage(files, request: expiry) }
        guard let expiry, var expiring = storage as? ExpiringStorage else { return storage }
        expiring.request = expiry
        return expiring
    }

    /// The location a domain names (standard input is not a store); a name that could escape the
    /// store is refused first (`Domain.checkName`, 64).
    package func location(of domain: Domain) throws -> SuiteLocation {
        try domain.checkName()
        guard let location = SuiteLocation(domain) else {
            throw PrefsError.usage("standard input cannot be changed; name a suite or a file")
        }
        return try onHost(try resolvingPath(location))
    }

    package func describe(_ location: SuiteLocation) -> String { storage(for: location).describe(location) }

    /// Whether two locations are one suite (a suite, and its file named by its path): the same
    /// file, where both are files; else the same location.
    package func same(_ a: SuiteLocation, _ b: SuiteLocation) -> Bool {
        guard let first = try? resolvedFile(a), let second = try? resolvedFile(b) else { return a == b }
        return first.utf8.elementsEqual(second.utf8)
    }

    /// The file that holds a location, symlinks followed; nil where its store has no files.
    private func resolvedFile(_ location: SuiteLocation) throws -> String? {
        try storage(for: location).filePath(of: location).map(fileSystem.resolvingSymlinks)
    }

    /// A suite's stored contents (external values as their references); nil when it does not exist.
    package func load(_ domain: Domain) throws -> StoredSuite? { try load(at: try location(of: domain)) }

    package func load(at location: SuiteLocation) throws -> StoredSuite? { try storage(for: location).load(location) }

    func lookup(_ key: String, in location: SuiteLocation) throws -> (exists: Bool, value: PrefValue?) {
        try storage(for: location).lookup(key, in: location)
    }

    /// The value at `path` in a domain's own suite (nil when absent; `.suiteNotFound` when the suite
    /// is), read the fast way: only its key is decoded.
    package func value(at path: PrefKeyPath, in domain: Domain) throws -> PrefValue? {
        try path.check(in: domain.displayName)
        let found = try lookup(path.first, in: try location(of: domain))
        guard found.exists else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
        return try PrefKeyPathError.attributing(domain: domain.displayName, path: path) {
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
        guard let contents = try changing(location).remove(location) else { return false }
        guard try !keepsVersions(location) else { return true }
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
