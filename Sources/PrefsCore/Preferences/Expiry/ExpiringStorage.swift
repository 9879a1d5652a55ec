/// A store as every reader of prefs sees it: values past their deadline, and the reserved key that
/// holds the deadlines (`Expiry`), are not there. Wraps every store a `SuiteStore` holds (files,
/// etcd, a host's snapshot), so each read — `read`, `export`, `exec`, `dump`, `describe`, the
/// library — compares the deadlines with the wall clock itself: an etcd lease or `gc` may collect
/// an expired value, but whether it shows never depends on them. A change sees the visible
/// contents, and its deadlines are kept in step in the same atomic change (`request`, else the
/// default of `ExpiryChange`).
package struct ExpiringStorage: SuiteBackend {
    package let inner: any SuiteBackend
    /// What the next change does to the deadlines of the keys it writes; nil: the default.
    package var request: ExpiryChange?

    init(_ inner: any SuiteBackend, request: ExpiryChange? = nil) {
        self.inner = inner
        self.request = request
    }

    /// `storage` with expiry enforced, once.
    package static func wrapping(_ storage: any SuiteBackend) -> any SuiteBackend {
        if storage is ExpiringStorage { return storage }
        return ExpiringStorage(storage)
    }

    /// The store under the expiry (what holds the bytes).
    package static func unwrapped(_ storage: any SuiteBackend) -> any SuiteBackend {
        (storage as? ExpiringStorage)?.inner ?? storage
    }

    // MARK: Reads

    package func load(_ location: SuiteLocation) throws -> StoredSuite? {
        guard var stored = try inner.load(location) else { return nil }
        stored.contents = Expiry.visible(stored.contents, at: Expiry.now())
        return stored
    }

    package func load(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool) throws -> StoredSuite? {
        guard var stored = try inner.load(location, scope: scope.map(ExpiringStorage.withTable), removingEmpty: removingEmpty) else { return nil }
        stored.contents = Expiry.visible(stored.contents, at: Expiry.now())
        return stored
    }

    package func loadSchema(_ location: SuiteLocation, regularOnly: Bool) throws -> StoredSuite? {
        try inner.loadSchema(location, regularOnly: regularOnly)
    }

    package func lookup(_ key: String, in location: SuiteLocation) throws -> (exists: Bool, value: PrefValue?) {
        try lookup(key, in: [location], loading: []).found[0]
    }

    package func lookup(_ key: String, in locations: [SuiteLocation]) throws -> [(exists: Bool, value: PrefValue?)] {
        try lookup(key, in: locations, loading: []).found
    }

    /// The key and the deadlines read together: one request to a remote store, one read of a file.
    package func lookup(_ key: String, in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [(exists: Bool, value: PrefValue?)], loaded: [StoredSuite?]) {
        let read = try lookup([key], in: locations, loading: whole)
        return (read.found.map { $0[0] }, read.loaded)
    }

    package func lookup(_ keys: [String], in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [[(exists: Bool, value: PrefValue?)]], loaded: [StoredSuite?]) {
        let read = try inner.lookup(keys + [Expiry.key], in: locations, loading: whole)
        let now = Expiry.now()
        let witness = DeadlineWitness.current
        let found = read.found.map { row -> [(exists: Bool, value: PrefValue?)] in
            let table = row[keys.count].value
            if let witness {
                for key in keys {
                    if let deadline = Expiry.deadline(of: key, in: table), deadline > now { witness.note(deadline) }
                }
            }
            return keys.indices.map { i in
                keys[i].utf8.elementsEqual(Expiry.key.utf8) || Expiry.hasExpired(keys[i], in: table, at: now) ? (row[i].exists, nil) : row[i]
            }
        }
        return (found, read.loaded.map { $0.map { StoredSuite(contents: Expiry.visible($0.contents, at: now), format: $0.format) } })
    }

    /// The deadlines a location holds as stored (expired ones too), read without a lock.
    package func deadlines(in location: SuiteLocation) throws -> PrefValue? {
        try inner.lookup(Expiry.key, in: location).value
    }

    // MARK: Changes

    /// A change's scope with the reserved key, which it may change too.
    static func withTable(_ scope: KeySet) -> KeySet { KeySet(scope.sorted + [Expiry.key]) }

    package func modify(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool, _ change: StoredChange) throws -> Bool {
        let request = request
        let scoped = scope != nil
        let wrapped = StoredChange(
            apply: { raw, format in
                try ExpiringStorage.run(&raw, format: format, request: request, scoped: scoped) { try change.apply(&$0, format) }
            },
            probe: { raw in try ExpiringStorage.run(&raw, format: nil, request: request, scoped: scoped) { try change.probe(&$0) } },
            willCommit: change.willCommit, didCommit: change.didCommit, recorded: change.recorded)
        return try inner.modify(location, scope: scope.map(ExpiringStorage.withTable), removingEmpty: removingEmpty, wrapped)
    }

    /// Runs `change` on the visible contents of `raw` and stores its result with the deadlines kept
    /// in step: a removed key loses its deadline, a key set to another value loses it (or takes the
    /// request's), a moved key takes the old one's. A change that changes nothing visible leaves
    /// `raw` as it is (expired values are collected only with a real change). `scoped`: `raw` holds
    /// only some keys, so deadlines of keys it does not hold are kept.
    static func run(_ raw: inout PrefDictionary, format: PlistFormat?, request: ExpiryChange?, scoped: Bool,
                    _ change: (inout PrefDictionary) throws -> Void) throws {
        let now = Expiry.now()
        let table = raw[Expiry.key]
        let before = Expiry.visible(raw, at: now)
        var after = before
        try change(&after)
        if after[Expiry.key] != nil { throw Expiry.reserved }
        var deadlines: PrefDictionary
        if case .dictionary(let stored)? = table { deadlines = stored } else { deadlines = PrefDictionary() }
        let old = deadlines
        // Deadlines of keys no longer there (removed, or expired and not set again).
        for entry in old where after[entry.key] == nil && (!scoped || raw[entry.key] != nil) {
            _ = deadlines.removeValue(forKey: entry.key)
        }
        // A deadline is kept to the second where the file keeps dates so (XML), rounded up: a value
        // never expires before the deadline asked for.
        let deadline = request?.deadline.map { date in
            format == .xml ? PrefDate(secondsSinceReferenceDate: date.secondsSinceReferenceDate.rounded(.up)) : date
        }
        PrefDictionary.zip(before, after) { was, now in
            guard let now else { return }
            let changed = was?.value != now.value
            if let request, request.keys.contains(now.key), changed || request.unchangedToo {
                deadlines[now.key] = deadline.map { .date($0) }
            } else if changed {
                if let move = request?.moves.first(where: { $0.to.utf8.elementsEqual(now.key.utf8) }),
                   case .date(let moved)? = old[move.from] {
                    deadlines[now.key] = .date(moved)
                } else {
                    _ = deadlines.removeValue(forKey: now.key)
                }
            }
        }
        guard after != before || deadlines != old else { return }
        var stored = after
        if !deadlines.isEmpty { stored[Expiry.key] = .dictionary(deadlines) }
        raw = stored
    }

    package func remove(_ location: SuiteLocation) throws -> PrefDictionary? {
        guard var contents = try inner.remove(location) else { return nil }
        _ = contents.removeValue(forKey: Expiry.key)
        return contents
    }

    package func checkStorable(_ contents: PrefDictionary, format: PlistFormat?) throws { try inner.checkStorable(contents, format: format) }

    package func withChangesHeld<T>(_ location: SuiteLocation, creating: Bool, _ body: () throws -> T) throws -> T {
        try inner.withChangesHeld(location, creating: creating, body)
    }

    // MARK: Everything else, as the store does it

    package func describe(_ location: SuiteLocation) -> String { inner.describe(location) }
    package func suiteNames() throws -> SuiteListing { try inner.suiteNames() }
    package func registeredNames() throws -> SuiteListing { try inner.registeredNames() }
    package func registrationLocations(for name: String) throws -> [SuiteLocation] { try inner.registrationLocations(for: name) }
    package func schemaLocations(for name: String) throws -> [SuiteLocation] { try inner.schemaLocations(for: name) }
    package var isRemote: Bool { inner.isRemote }
    package var holdsChangesByReading: Bool { inner.holdsChangesByReading }
    package func blobSuite(for location: SuiteLocation) -> String? { inner.blobSuite(for: location) }
    package func blobStore() throws -> (any BlobStore)? { try inner.blobStore() }
    package func filePath(of location: SuiteLocation) throws -> String? { try inner.filePath(of: location) }
    package func newDocumentFormat(for location: SuiteLocation) -> PlistFormat? { inner.newDocumentFormat(for: location) }
    package func createEmpty(_ location: SuiteLocation) throws -> Bool { try inner.createEmpty(location) }
    package var keepsByHostSuites: Bool { inner.keepsByHostSuites }
    package func suiteNames(onHost host: String) throws -> SuiteListing { try inner.suiteNames(onHost: host) }
    package func abandonedChanges(in location: SuiteLocation, removing: Bool) throws -> [AbandonedChange] {
        try inner.abandonedChanges(in: location, removing: removing)
    }
    package func managedLocations(for name: String) throws -> [SuiteLocation] { try inner.managedLocations(for: name) }
    package var holdsManagedValues: Bool { inner.holdsManagedValues }
    package func changeFeed(for locations: @escaping () throws -> [SuiteLocation]) throws -> (any ChangeFeed)? {
        try inner.changeFeed(for: locations)
    }
    package var snapshotName: String? { inner.snapshotName }
    package func observing(_ observer: any ReadObserver) -> any SuiteBackend { ExpiringStorage(inner.observing(observer), request: request) }
    package func locks() throws -> (any LockService)? { try inner.locks() }
    package func fenced(by fence: LockFence) throws -> any SuiteBackend { ExpiringStorage(try inner.fenced(by: fence), request: request) }
    package func versions(of location: SuiteLocation) throws -> [SuiteVersion]? { try inner.versions(of: location) }
    package func mayBeRecordingVersion(of location: SuiteLocation) throws -> Bool { try inner.mayBeRecordingVersion(of: location) }
    package func versions(of location: SuiteLocation, after number: Int64) throws -> [SuiteVersion]? {
        try inner.versions(of: location, after: number)
    }
    package func recordingVersions(_ stamp: VersionStamp) -> any SuiteBackend { ExpiringStorage(inner.recordingVersions(stamp), request: request) }
    package func creatingSuites(as format: PlistFormat) -> any SuiteBackend { ExpiringStorage(inner.creatingSuites(as: format), request: request) }
}
