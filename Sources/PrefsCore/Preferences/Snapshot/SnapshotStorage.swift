/// A remote store's places as the host's snapshot of a suite holds them (`ReadSnapshot`), read through
/// the same layers as the store itself, so an answer from a snapshot resolves every layer exactly as
/// a read of the store does (its managed values, its schema; this machine's files are still read as
/// they are). What the snapshot does not hold — a key never read, a place never read whole, an
/// external value's blob, the list of suites — is `.unavailable`, as the store away would be: a
/// read with `--max-stale` then asks the store, one with `--fallback-cache` exits 69. Names,
/// locations and messages are the store's own (`live`); nothing is ever written.
struct SnapshotStorage: SuiteBackend {
    let snapshot: ReadSnapshot
    /// The store the snapshot is of: how it names and finds places (never read here).
    let live: any SuiteBackend

    /// What a read the snapshot cannot answer fails with.
    func missing(_ what: String) -> PrefsError {
        .unavailable(endpoints: [snapshot.store], reason: "the host's snapshot of \(snapshot.suite) does not hold \(what)")
    }

    func place(_ location: SuiteLocation) throws -> ReadSnapshot.Place {
        guard let place = snapshot.places[location] else { throw missing(describe(location)) }
        return place
    }

    func describe(_ location: SuiteLocation) -> String { live.describe(location) }

    func suiteNames() throws -> SuiteListing { throw missing("the list of suites") }

    func registeredNames() throws -> SuiteListing { throw missing("the list of registered defaults") }

    func load(_ location: SuiteLocation) throws -> StoredSuite? {
        let place = try place(location)
        guard place.whole else { throw missing("all of " + describe(location)) }
        return place.exists ? StoredSuite(contents: place.values, format: nil) : nil
    }

    func lookup(_ key: String, in location: SuiteLocation) throws -> (exists: Bool, value: PrefValue?) {
        let place = try place(location)
        guard let value = place.value(key) else { throw missing("\(describe(location)): \(key)") }
        return (place.exists, value)
    }

    func modify(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool, _ change: StoredChange) throws -> Bool { throw readOnly }

    func checkStorable(_ contents: PrefDictionary, format: PlistFormat?) throws { throw readOnly }

    func remove(_ location: SuiteLocation) throws -> PrefDictionary? { throw readOnly }

    func withChangesHeld<T>(_ location: SuiteLocation, creating: Bool, _ body: () throws -> T) throws -> T { throw readOnly }

    var readOnly: PrefsError { .internalError("a snapshot of \(snapshot.store) was asked to change") }

    func registrationLocations(for name: String) throws -> [SuiteLocation] { try live.registrationLocations(for: name) }

    func schemaLocations(for name: String) throws -> [SuiteLocation] { try live.schemaLocations(for: name) }

    func managedLocations(for name: String) throws -> [SuiteLocation] { try live.managedLocations(for: name) }

    var holdsManagedValues: Bool { live.holdsManagedValues }

    /// Read as the store is read: a suite's values with its schema, at once.
    var isRemote: Bool { live.isRemote }

    func blobSuite(for location: SuiteLocation) -> String? { live.blobSuite(for: location) }

    /// External values are not in a snapshot: reading one is a read it cannot answer.
    func blobStore() throws -> (any BlobStore)? { SnapshotBlobs(missing: missing("external values")) }
}

/// The blobs of a snapshot: none (see `SnapshotStorage.blobStore()`).
struct SnapshotBlobs: BlobStore {
    let missing: PrefsError

    func write(suite: String, key: String, kind: ExternalReference.Kind, _ produce: (inout BlobSink) throws -> Void) throws -> PendingBlob {
        throw missing
    }

    func open(_ reference: ExternalReference, suite: String) throws(ExternalReference.Problem) -> any BlobSource {
        throw ExternalReference.Problem(failure: missing)
    }

    func remove(_ reference: ExternalReference, suite: String) {}

    func suites() throws -> [String] { throw missing }

    func inventory(of suite: String) -> BlobInventory { BlobInventory() }

    func removeIfUnused(_ blob: BlobEntry, suite: String) throws -> BlobRemoval { throw missing }

    func isSettled(_ blob: BlobEntry, suite: String) -> Bool { false }
}
