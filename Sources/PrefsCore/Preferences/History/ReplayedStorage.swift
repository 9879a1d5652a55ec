/// A store with some of its suites as a replay of their history left them (`ChangeReplay`): those
/// locations hold the contents given, as stored (external values as their references, the
/// deadlines key like any other; empty: no suite); every other location, and everything else —
/// names, layers' places, external values' blobs —, is the store's own. Read through the same
/// layers as the store (wrapped in `ExpiringStorage`), it gives what a read gave when a suite held
/// those contents. Nothing is ever written.
struct ReplayedStorage: SuiteBackend {
    /// The store under the expiry (what holds the bytes).
    let inner: any SuiteBackend
    let replayed: [SuiteLocation: PrefDictionary]

    package func load(_ location: SuiteLocation) throws -> StoredSuite? {
        guard let contents = replayed[location] else { return try inner.load(location) }
        return contents.isEmpty ? nil : StoredSuite(contents: contents, format: nil)
    }

    package func lookup(_ key: String, in location: SuiteLocation) throws -> (exists: Bool, value: PrefValue?) {
        guard let contents = replayed[location] else { return try inner.lookup(key, in: location) }
        return (!contents.isEmpty, contents[key])
    }

    /// As the store reads them, but the replayed locations one by one (the protocol's defaults).
    package func lookup(_ keys: [String], in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [[(exists: Bool, value: PrefValue?)]], loaded: [StoredSuite?]) {
        guard locations.contains(where: { replayed[$0] != nil }) || whole.contains(where: { replayed[$0] != nil }) else {
            return try inner.lookup(keys, in: locations, loading: whole)
        }
        let found = try locations.map { location in try keys.map { try lookup($0, in: location) } }
        return (found, try whole.map { try load($0) })
    }

    package func lookup(_ key: String, in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [(exists: Bool, value: PrefValue?)], loaded: [StoredSuite?]) {
        let read = try lookup([key], in: locations, loading: whole)
        return (read.found.map { $0[0] }, read.loaded)
    }

    package func lookup(_ key: String, in locations: [SuiteLocation]) throws -> [(exists: Bool, value: PrefValue?)] {
        try lookup(key, in: locations, loading: []).found
    }

    package func load(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool) throws -> StoredSuite? { try load(location) }

    package func loadSchema(_ location: SuiteLocation, regularOnly: Bool) throws -> StoredSuite? {
        try inner.loadSchema(location, regularOnly: regularOnly)
    }

    // MARK: Never written

    var readOnly: PrefsError { .internalError("a replay of a suite's history was asked to change") }
    package func modify(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool, _ change: StoredChange) throws -> Bool { throw readOnly }
    package func checkStorable(_ contents: PrefDictionary, format: PlistFormat?) throws { throw readOnly }
    package func remove(_ location: SuiteLocation) throws -> PrefDictionary? { throw readOnly }
    package func withChangesHeld<T>(_ location: SuiteLocation, creating: Bool, _ body: () throws -> T) throws -> T { throw readOnly }

    // MARK: Everything else, as the store does it

    package func describe(_ location: SuiteLocation) -> String { inner.describe(location) }
    package func suiteNames() throws -> SuiteListing { try inner.suiteNames() }
    package func registeredNames() throws -> SuiteListing { try inner.registeredNames() }
    package func registrationLocations(for name: String) throws -> [SuiteLocation] { try inner.registrationLocations(for: name) }
    package func schemaLocations(for name: String) throws -> [SuiteLocation] { try inner.schemaLocations(for: name) }
    package var isRemote: Bool { inner.isRemote }
    package func blobSuite(for location: SuiteLocation) -> String? { inner.blobSuite(for: location) }
    package func blobStore() throws -> (any BlobStore)? { try inner.blobStore() }
    package func filePath(of location: SuiteLocation) throws -> String? { try inner.filePath(of: location) }
    package var keepsByHostSuites: Bool { inner.keepsByHostSuites }
    package func suiteNames(onHost host: String) throws -> SuiteListing { try inner.suiteNames(onHost: host) }
    package func managedLocations(for name: String) throws -> [SuiteLocation] { try inner.managedLocations(for: name) }
    package var holdsManagedValues: Bool { inner.holdsManagedValues }
    package func versions(of location: SuiteLocation) throws -> [SuiteVersion]? { try inner.versions(of: location) }
    package func mayBeRecordingVersion(of location: SuiteLocation) throws -> Bool { try inner.mayBeRecordingVersion(of: location) }
    package func versions(of location: SuiteLocation, after number: Int64) throws -> [SuiteVersion]? {
        try inner.versions(of: location, after: number)
    }
}
