/// Where a suite is, as a store knows it.
public enum SuiteLocation: Hashable, Sendable {
    /// A named suite.
    case suite(String)
    /// The global suite (`NSGlobalDomain`).
    case global
    /// The user's registered defaults for a suite (`NSGlobalDomain` for the global suite), which
    /// `prefs register` changes.
    case registered(String)
    /// A file named by its path: a file domain, a `--defaults FILE`, a package's registered defaults.
    case file(String)
    /// A suite's values for one host (`-currentHost`, `-host NAME`; `defaults`' ByHost preferences):
    /// `suite` is nil for the global suite's. Its values always stay inline.
    case byHost(suite: String?, host: String)
    /// The user's schema for a suite (`NSGlobalDomain` for the global suite), which
    /// `prefs register --schema` installs: a dictionary like a suite's (see `Schema`).
    case schema(String)

    /// Whether this is a file named by its path (kept by the file store whatever the store).
    public var isFile: Bool {
        if case .file = self { return true }
        return false
    }

    /// The location a domain names; nil for standard input.
    public init?(_ domain: Domain) {
        switch domain {
        case .suite(let name): self = .suite(name)
        case .global: self = .global
        case .file(let path): self = .file(path)
        case .standardInput: return nil
        }
    }
}

/// An administrator's managed values for a suite, and where they are (the file, or the place in
/// the store).
public struct ManagedValues: Sendable {
    public let values: PrefDictionary
    public let source: String
}

/// A suite as stored: its contents (external values as their references) and the format of the file
/// that holds it (nil where the store has no file format, and so no format limits).
public struct StoredSuite: Sendable {
    public var contents: PrefDictionary
    public var format: PlistFormat?
}

/// One change, as a store runs it: `apply` edits the contents (all of them, or just the `scope` keys
/// the store read), knowing the format they will be written in; it may run more than once (a store
/// may retry after a conflict) and must give the same result each time. `probe` is the same change
/// without side effects (no blob written), for a store that must know what a change would give before
/// it commits to anything. `willCommit` is called just before the new contents are committed: after
/// it, a failure may still have committed. `didCommit` is called once they are committed, by a store
/// that still keeps other changes (and `withChangesHeld`) out then — the file store, before it lets go
/// of the suite's lock — so what it does (removing the blobs the change left unreferenced) is done
/// before anyone else sees the suite; a store that has no such moment does not call it.
public struct StoredChange {
    public let apply: (inout PrefDictionary, PlistFormat?) throws -> Void
    public let probe: (inout PrefDictionary) throws -> Void
    public let willCommit: () -> Void
    public let didCommit: () -> Void

    public init(apply: @escaping (inout PrefDictionary, PlistFormat?) throws -> Void,
                probe: @escaping (inout PrefDictionary) throws -> Void, willCommit: @escaping () -> Void = {},
                didCommit: @escaping () -> Void = {}) {
        self.apply = apply
        self.probe = probe
        self.willCommit = willCommit
        self.didCommit = didCommit
    }
}

/// A place that holds suites — the one seam between PrefsCore's semantics (layers, external values,
/// write requests, imports, migrations) and where the bytes live. The file store keeps suites as
/// property-list files under `$XDG_CONFIG_HOME`; another store may keep them elsewhere. Everything a
/// verb means is decided above this protocol, the same for every store.
public protocol SuiteStorage: Sendable {
    /// How messages and `--origin` name a location.
    func describe(_ location: SuiteLocation) -> String

    /// The named suites there are, sorted by code point, and what was skipped finding them.
    func suiteNames() throws -> SuiteListing

    /// The names the user has registered defaults under (`.registered(NAME)`, which `prefs register`
    /// changes; `NSGlobalDomain` for the global suite), sorted by code point, and what was skipped.
    func registeredNames() throws -> SuiteListing

    /// A suite's stored contents; nil when it does not exist. Takes no lock and creates nothing.
    func load(_ location: SuiteLocation) throws -> StoredSuite?

    /// One top-level value, read the fast way; `exists` is false when the suite does not exist.
    func lookup(_ key: String, in location: SuiteLocation) throws -> (exists: Bool, value: PrefValue?)

    /// The same for several suites of this store, read together (one request, where the store
    /// is remote), in the order given.
    func lookup(_ key: String, in locations: [SuiteLocation]) throws -> [(exists: Bool, value: PrefValue?)]

    /// Those lookups and whole suites (`load`) read together, in the order given.
    func lookup(_ key: String, in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [(exists: Bool, value: PrefValue?)], loaded: [StoredSuite?])

    /// Changes a suite atomically: the current contents (empty when there is none) go through
    /// `change`, and the result is stored — or, when it equals what was there, nothing is written;
    /// with `removingEmpty`, empty contents remove the suite. With a `scope`, the store may hand
    /// `change` only those top-level keys (their current values) and keep the others as they are.
    /// Concurrent changes never lose each other. Returns whether anything changed.
    func modify(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool, _ change: StoredChange) throws -> Bool

    /// Checks that `contents` can be stored in `format` without changing any value (the file store
    /// refuses a date in an OpenStep file, for one).
    func checkStorable(_ contents: PrefDictionary, format: PlistFormat?) throws

    /// Removes a whole suite after checking it is one (a store that cannot be parsed is kept);
    /// its contents, or nil when there was none.
    func remove(_ location: SuiteLocation) throws -> PrefDictionary?

    /// Runs `body` while no change of the suite can commit (the file store holds its lock); with
    /// `creating`, whatever a change would create first to take that lock is created.
    func withChangesHeld<T>(_ location: SuiteLocation, creating: Bool, _ body: () throws -> T) throws -> T

    /// Whether `withChangesHeld` without `creating` only reads: true for a lock the kernel keeps (the
    /// file store's flock), false where holding the suite writes to the store (etcd: a lease and a
    /// lock key), which a read-only user or a full store cannot do. True unless the store says so.
    var holdsChangesByReading: Bool { get }

    /// The locations of a suite's registered defaults, most important first: the user's
    /// (`.registered(NAME)`, which `prefs register` changes), then the ones packages ship.
    func registrationLocations(for name: String) throws -> [SuiteLocation]

    /// The locations of a suite's schema, most important first: the user's (`.schema(NAME)`,
    /// which `prefs register --schema` installs), then the ones packages ship. The first that
    /// exists is the schema; schemas are not merged.
    func schemaLocations(for name: String) throws -> [SuiteLocation]

    /// The suite whose external storage a location's references point into (a suite's name or
    /// `NSGlobalDomain`); nil for a place whose values always stay inline.
    func blobSuite(for location: SuiteLocation) -> String?

    /// Where this store keeps external values; nil when it has none (everything stays inline).
    func blobStore() throws -> (any BlobStore)?

    /// Whether the store keeps ByHost suites (`.byHost` locations); false unless it says so.
    var keepsByHostSuites: Bool { get }

    /// The suites that have values for `host` (`.byHost(suite:host:)`, the global one left out),
    /// sorted by code point, and what was skipped finding them.
    func suiteNames(onHost host: String) throws -> SuiteListing

    /// An administrator's managed values for a suite (`NSGlobalDomain` for the global suite): the
    /// top layer of every read, which no change may touch; nil when there are none. Managed values
    /// that cannot be read or parsed are an error, never skipped.
    func managedValues(for name: String) throws -> ManagedValues?

    /// Where an administrator's system defaults for a suite may be, most important first: under
    /// the global suite, over registered defaults.
    func systemDefaultsLocations(for name: String) throws -> [SuiteLocation]
}

extension SuiteStorage {
    public var holdsChangesByReading: Bool { true }

    public func managedValues(for name: String) throws -> ManagedValues? { nil }

    public func systemDefaultsLocations(for name: String) throws -> [SuiteLocation] { [] }

    public func lookup(_ key: String, in locations: [SuiteLocation]) throws -> [(exists: Bool, value: PrefValue?)] {
        try locations.map { try lookup(key, in: $0) }
    }

    public func lookup(_ key: String, in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [(exists: Bool, value: PrefValue?)], loaded: [StoredSuite?]) {
        (try lookup(key, in: locations), try whole.map { try load($0) })
    }
}
