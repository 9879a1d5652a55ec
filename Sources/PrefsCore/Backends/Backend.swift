/// The seam between what prefs means (`Preferences/`: layers, external values, write requests,
/// imports, migrations, watching) and where the bytes live. A backend is one folder under
/// `Backends/` — its `SuiteBackend`, its `BlobStore` when it keeps large values apart, its
/// `ChangeFeed` when it can report changes — and one row in the table of store URLs
/// (`StoreSelection.swift`). The file store keeps suites as property-list files under
/// `$XDG_CONFIG_HOME` (`File/`), the etcd store under a key prefix of a cluster (`Etcd/`).
///
/// What every store must do is required below. What only some can do is a capability: a
/// requirement whose default (`Backend+Capabilities.swift`) says "unsupported" — no ByHost suites,
/// no file paths, no managed values of its own, no watch — so the core asks the store it holds what
/// it can do, and never which store it is. Everything a verb means is decided above this protocol,
/// the same for every store.
package protocol SuiteBackend: Sendable {
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

    /// Changes a suite atomically: the current contents (empty when there is none) go through
    /// `change`, and the result is stored — or, when it equals what was there, nothing is written;
    /// with `removingEmpty`, empty contents remove the suite. With a `scope`, the store may hand
    /// `change` only those top-level keys (their current values) and keep the others as they are.
    /// Concurrent changes never lose each other. Returns whether anything changed.
    func modify(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool, _ change: StoredChange) throws -> Bool

    /// The contents `modify` with the same `scope` and `removingEmpty` would hand its change, read
    /// without a lock and writing nothing (a dry run fails exactly where the change would); nil
    /// when the suite does not exist. By default the whole suite (`load`); a store whose changes
    /// read only their scope's keys (etcd) reads those.
    func load(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool) throws -> StoredSuite?

    /// Checks that `contents` can be stored in `format` without changing any value (the file store
    /// refuses a date in an OpenStep file, as `PlistFormat.holding` says; etcd a value larger than
    /// one request).
    func checkStorable(_ contents: PrefDictionary, format: PlistFormat?) throws

    /// Removes a whole suite after checking it is one (a store that cannot be parsed is kept);
    /// its contents, or nil when there was none.
    func remove(_ location: SuiteLocation) throws -> PrefDictionary?

    /// Runs `body` while no change of the suite can commit (the file store holds its lock); with
    /// `creating`, whatever a change would create first to take that lock is created.
    func withChangesHeld<T>(_ location: SuiteLocation, creating: Bool, _ body: () throws -> T) throws -> T

    /// The locations of a suite's registered defaults the store keeps, most important first: the
    /// user's (`.registered(NAME)`, which `prefs register` changes) and any others of its own. The
    /// ones packages ship (files under `$XDG_DATA_DIRS`) are not listed: the core adds them below
    /// these for every store (`SuiteStore.registeredLayers`).
    func registrationLocations(for name: String) throws -> [SuiteLocation]

    /// The locations of a suite's schema, most important first: the user's (`.schema(NAME)`,
    /// which `prefs register --schema` installs), then the ones packages ship. The first that
    /// exists is the schema; schemas are not merged.
    func schemaLocations(for name: String) throws -> [SuiteLocation]

    // MARK: Capabilities (their "unsupported" defaults: Backend+Capabilities.swift)

    /// The same as `lookup(_:in:)` for several suites of this store, read together (one request,
    /// where the store is remote), in the order given.
    func lookup(_ key: String, in locations: [SuiteLocation]) throws -> [(exists: Bool, value: PrefValue?)]

    /// Those lookups and whole suites (`load`) read together, in the order given.
    func lookup(_ key: String, in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [(exists: Bool, value: PrefValue?)], loaded: [StoredSuite?])

    /// Several keys of several suites and whole suites, read together (one request, where the store
    /// is remote): `found[i][j]` is `keys[j]` in `locations[i]`.
    func lookup(_ keys: [String], in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [[(exists: Bool, value: PrefValue?)]], loaded: [StoredSuite?])

    /// Whether each read is a request to another machine: then a reader asks for all it needs at
    /// once (a suite's values with its schema, `SuiteStore.schemaPlaceInStore`). False by default.
    var isRemote: Bool { get }

    /// Whether `withChangesHeld` without `creating` only reads: true for a lock the kernel keeps (the
    /// file store's flock), false where holding the suite writes to the store (etcd: a lease and a
    /// lock key), which a read-only user or a full store cannot do. True by default.
    var holdsChangesByReading: Bool { get }

    /// The suite whose external storage a location's references point into (a suite's name or
    /// `NSGlobalDomain`); nil for a place whose values always stay inline — every place, by default.
    func blobSuite(for location: SuiteLocation) -> String?

    /// Where this store keeps external values; nil (the default) when it has none: everything stays
    /// inline.
    func blobStore() throws -> (any BlobStore)?

    /// The file that holds a location, where the store keeps files (a file domain, `watch`'s
    /// inotify, telling whether two locations are one file); nil by default.
    func filePath(of location: SuiteLocation) throws -> String?

    /// The format a new suite at `location` is written in (the file store: XML, or JSON for a
    /// `.json` path), which bounds what it can hold; nil by default: no format, no such bound.
    func newDocumentFormat(for location: SuiteLocation) -> PlistFormat?

    /// Creates a location's suite holding an empty dictionary when there is none (`write S '{}'`,
    /// as `defaults write` makes the file); whether it did. By default nothing is made: a store
    /// without files keeps no empty suite.
    func createEmpty(_ location: SuiteLocation) throws -> Bool

    /// A schema's contents where the store reads them itself, at most `Schema.maximumSize`; with
    /// `regularOnly`, refusing a FIFO or a device (65) where the store has files. By default
    /// `load(location)`.
    func loadSchema(_ location: SuiteLocation, regularOnly: Bool) throws -> StoredSuite?

    /// Whether the store keeps ByHost suites (`.byHost` locations); false by default, and a host
    /// is then refused (64) before anything is read.
    var keepsByHostSuites: Bool { get }

    /// The suites that have values for `host` (`.byHost(suite:host:)`, the global one left out),
    /// sorted by code point, and what was skipped finding them.
    func suiteNames(onHost host: String) throws -> SuiteListing

    /// What changes too large for one request left in a suite when their writer stopped before
    /// committing (killed, or its hold ran out): keys no reader reads. With `removing` (while
    /// changes are held), they are removed too. None by default.
    func abandonedChanges(in location: SuiteLocation, removing: Bool) throws -> [AbandonedChange]

    /// Where the store keeps managed values of its own for a suite (`NSGlobalDomain` for the global
    /// suite's: a fleet's, which its administrator sets), most important first: a read takes them
    /// with the suite's other layers (one request), no change of a user touches them; none by
    /// default. (The machine's managed values and system defaults, files under `$XDG_CONFIG_DIRS`,
    /// bind every user of the machine whatever the store: the core reads them itself, through
    /// `SuiteStore.administered`, `Layers+Administered.swift`.)
    func managedLocations(for name: String) throws -> [SuiteLocation]

    /// Whether the store's suites are themselves an administrator's managed values (etcd's store at
    /// `PREFIX/.managed`): then no managed values bind its reads or changes, the machine's either.
    /// False by default.
    var holdsManagedValues: Bool { get }

    /// What says when the places `locations` gives may have changed (asked again after each change;
    /// a watched suite is in this store, other places may be files, which a store that does not
    /// keep them may leave unwatched). The core's `Watcher` reads the values at each change. nil
    /// by default: the store cannot be watched, and `watch` is refused (64).
    func changeFeed(for locations: @escaping () throws -> [SuiteLocation]) throws -> (any ChangeFeed)?

    /// The store as the host's snapshots of its reads name it (`SnapshotCache`): one name for every
    /// URL that names the same store (etcd: its endpoints sorted, and its prefix). nil by default: a
    /// store whose reads are no slower than a snapshot's, and no less available (files), has none.
    var snapshotName: String? { get }

    /// The same store, telling `observer` of every place it reads (`PlaceReading`). By default the
    /// store itself, telling nothing.
    func observing(_ observer: any ReadObserver) -> any SuiteBackend

    /// The store's named locks (`prefs lock`, `prefs locks`); nil by default: it keeps none, and
    /// those verbs are refused (64).
    func locks() throws -> (any LockService)?

    /// This store with each change fenced (`--fence`): committed only while `fence` holds, checked
    /// in the same step as the commit (in its transaction, or under the suite's lock). By default
    /// refused (64): a store without locks has nothing to fence with.
    func fenced(by fence: LockFence) throws -> any SuiteBackend

    /// The versions kept of a suite's changes (`prefs history`), oldest first; nil (the default) when
    /// the store keeps no history.
    func versions(of location: SuiteLocation) throws -> [SuiteVersion]?

    /// The versions kept of `location` numbered above `number`, oldest first, reading no older
    /// ones where the store can (a watcher reads the new ones at each change); nil as for
    /// `versions(of:)`. By default `versions(of:)`, filtered.
    func versions(of location: SuiteLocation, after number: Int64) throws -> [SuiteVersion]?

    /// Whether a change of `location` may be between committing and recording its version, so
    /// that its version may come in a moment: the file store appends a version right after the
    /// suite's file is renamed in, holding the new file's lock meanwhile. False by default: a store
    /// that commits both at once.
    func mayBeRecordingVersion(of location: SuiteLocation) throws -> Bool

    /// This store with each change of a suite or the global suite recording a version as `stamp`
    /// says, in the same step as the change (the file store under the suite's lock, etcd in its
    /// transaction), and the oldest pruned to `stamp.keep` in that step. By default the store
    /// itself: it keeps no history.
    func recordingVersions(_ stamp: VersionStamp) -> any SuiteBackend

    /// This store with the suites it creates written in `format` (a property list's flavour); by
    /// default the store itself: it has no file formats.
    func creatingSuites(as format: PlistFormat) -> any SuiteBackend
}
