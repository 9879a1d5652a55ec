/// What a store that says nothing about a capability can do: the "unsupported" answer of each,
/// as SwiftPM's `FileSystem` gives its optional operations. A backend opts in by implementing the
/// requirement; the core then asks the store, never which store it is.
extension SuiteBackend {
    /// One lookup after another.
    package func lookup(_ key: String, in locations: [SuiteLocation]) throws -> [(exists: Bool, value: PrefValue?)] {
        try locations.map { try lookup(key, in: $0) }
    }

    package func lookup(_ key: String, in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [(exists: Bool, value: PrefValue?)], loaded: [StoredSuite?]) {
        (try lookup(key, in: locations), try whole.map { try load($0) })
    }

    /// One key after another.
    package func lookup(_ keys: [String], in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [[(exists: Bool, value: PrefValue?)]], loaded: [StoredSuite?]) {
        var found = locations.map { _ in [(exists: Bool, value: PrefValue?)]() }
        var loaded: [StoredSuite?] = []
        for (index, key) in keys.enumerated() {
            let read = try lookup(key, in: locations, loading: index == 0 ? whole : [])
            if index == 0 { loaded = read.loaded }
            for (i, one) in read.found.enumerated() { found[i].append(one) }
        }
        if keys.isEmpty { loaded = try whole.map { try load($0) } }
        return (found, loaded)
    }

    /// The whole suite, as a change that reads all of it sees it.
    package func load(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool) throws -> StoredSuite? { try load(location) }

    package var isRemote: Bool { false }

    package var holdsChangesByReading: Bool { true }

    package func blobSuite(for location: SuiteLocation) -> String? { nil }

    package func blobStore() throws -> (any BlobStore)? { nil }

    package func filePath(of location: SuiteLocation) throws -> String? { nil }

    package func newDocumentFormat(for location: SuiteLocation) -> PlistFormat? { nil }

    package func createEmpty(_ location: SuiteLocation) throws -> Bool { false }

    package func loadSchema(_ location: SuiteLocation, regularOnly: Bool) throws -> StoredSuite? { try load(location) }

    package var keepsByHostSuites: Bool { false }

    package func suiteNames(onHost host: String) throws -> SuiteListing {
        throw PrefsError.usage(SuiteStore.noByHostSuites)
    }

    package func managedLocations(for name: String) throws -> [SuiteLocation] { [] }

    package func abandonedChanges(in location: SuiteLocation, removing: Bool) throws -> [AbandonedChange] { [] }

    package var holdsManagedValues: Bool { false }

    package func changeFeed(for locations: @escaping () throws -> [SuiteLocation]) throws -> (any ChangeFeed)? { nil }

    package var snapshotName: String? { nil }

    package func observing(_ observer: any ReadObserver) -> any SuiteBackend { self }

    package func locks() throws -> (any LockService)? { nil }

    package func fenced(by fence: LockFence) throws -> any SuiteBackend { throw PrefsError.usage(SuiteStore.keepsNoLocks) }

    package func versions(of location: SuiteLocation) throws -> [SuiteVersion]? { nil }

    package func mayBeRecordingVersion(of location: SuiteLocation) throws -> Bool { false }

    package func versions(of location: SuiteLocation, after number: Int64) throws -> [SuiteVersion]? {
        try versions(of: location)?.filter { $0.number > number }
    }

    package func recordingVersions(_ stamp: VersionStamp) -> any SuiteBackend { self }

    package func creatingSuites(as format: PlistFormat) -> any SuiteBackend { self }
}

extension SuiteStore {
    /// Why a store without locks refuses `lock`, `locks` and `--fence` (64).
    static let keepsNoLocks = "this store keeps no locks (files in memory, or an etcd without watch); use the files or an etcd cluster"
}
