import Glibc

/// Suites in etcd (`PREFS_STORE=etcd://…` or `--store`), for a fleet of machines that must see the
/// same settings: one etcd key per top-level suite key (`EtcdLayout`), each value a binary property
/// list. Every change commits with one etcd transaction — a compare-and-swap on the revisions of
/// what it read (the suite's marker, the keys it touched), retried on conflict — so concurrent
/// writers through any member lose nothing, and no change is ever half-applied; one too large for
/// a transaction writes its new generation in batches first, which readers ignore until then.
package struct EtcdSuiteStorage: SuiteBackend {
    let etcd: any EtcdKV
    let layout: EtcdLayout
    /// How messages name the store: `etcd://HOST:PORT,…/PREFIX`.
    let name: String
    /// For the packages' schemas (files under `$XDG_DATA_DIRS`) and the retry timeout.
    let environment: Environment
    /// The revision suites are read at (0: the latest), for a watch that reads each change's state.
    var revision: Int64 = 0
    /// Whether this is the administrator's store of a fleet's managed values (`PREFIX/.managed`,
    /// `EtcdLayout(managedValuesOf:)`): its suites are the managed values users read, with no
    /// registered defaults, schema or external values of their own.
    let administers: Bool
    /// Told of every place read (`observing(_:)`, for the host's snapshots); nil: no one is.
    var observer: (any ReadObserver)?
    /// The lock every change must still hold when it commits (`--fence`): a compare in its transaction.
    var fence: LockFence?
    /// What each change of a suite records in its history (`EtcdSuiteStorage+History.swift`); nil: nothing.
    var versioning: VersionStamp?

    package init(etcd: any EtcdKV, prefix: String, name: String, environment: Environment) {
        self.etcd = etcd
        layout = EtcdLayout(prefix: prefix)
        self.name = name
        self.environment = environment
        administers = false
    }

    /// The administrator's store of the managed values of the store at `prefix` (the URL
    /// `…/PREFIX/.managed`); `name` is its URL.
    package init(etcd: any EtcdKV, managedValuesOf prefix: String, name: String, environment: Environment) {
        self.etcd = etcd
        layout = EtcdLayout(managedValuesOf: prefix)
        self.name = name
        self.environment = environment
        administers = true
    }

    /// A location's place; a ByHost suite is refused as `SuiteStore.onHost` refuses a host (64),
    /// whoever asks, and so are registered defaults and schemas in the store of managed values.
    func place(_ location: SuiteLocation) throws -> [UInt8] {
        switch location {
        case .byHost: throw PrefsError.usage(SuiteStore.noByHostSuites)
        case .registered, .schema, .managed: if administers { throw PrefsError.usage(EtcdSuiteStorage.onlyManagedValues(name)) }
        case .suite, .global, .file: break
        }
        guard let place = EtcdLayout.place(of: location) else { throw PrefsError.internalError("a file location in the etcd store") }
        return place
    }

    /// Why the store of managed values refuses registered defaults and schemas (64).
    static func onlyManagedValues(_ name: String) -> String {
        "\(name) holds a fleet's managed values only: register defaults and schemas in the store it manages"
    }

    /// This store as it was at `revision` (reads only; 0: the latest).
    func at(revision: Int64) -> EtcdSuiteStorage {
        var pinned = self
        pinned.revision = revision
        return pinned
    }

    /// Every read is a request to the cluster: a reader asks for all it needs in one.
    package var isRemote: Bool { true }

    package func describe(_ location: SuiteLocation) -> String {
        guard let place = EtcdLayout.place(of: location) else { return "\(location)" }
        return name + "/" + String(decoding: place, as: UTF8.self)
    }

    package func suiteNames() throws -> SuiteListing {
        try markedNames(after: layout.markers, shown: shown(layout.markers)) { (try? Domain(argument: $0)) == .suite($0) }
    }

    /// How messages name an etcd key of the store: its URL's endpoints, then the key (the store of
    /// managed values keeps its markers beside the store it manages, outside its own prefix).
    func shown(_ key: [UInt8]) -> String {
        String(name.dropLast(name.hasSuffix(String(decoding: layout.prefix, as: UTF8.self)) ? layout.prefix.count : 0)) + String(decoding: key, as: UTF8.self)
    }

    /// The names of the markers under `prefix`, sorted by code point. One starting with `.` (the
    /// global suite, registrations) is not a name; one that does not unescape, or that `accepts`
    /// refuses (a command line could not give it back), is skipped, said so as `shown` and the key's
    /// bytes escaped.
    func markedNames(after prefix: [UInt8], shown: String, accepts: (String) -> Bool) throws -> SuiteListing {
        let found = try etcd.range(prefix, rangeEnd: EtcdClient.prefixEnd(prefix), keysOnly: true)
        var listing = SuiteListing()
        for kv in found.kvs {
            let place = kv.key.dropFirst(prefix.count)
            guard place.first != 0x2E else { continue }  // .GlobalPreferences, .registered/…
            guard let name = EtcdLayout.unescape(place), accepts(name) else {
                listing.skipped.append(SkippedEntry(path: shown + ByteText.escaped(Array(place)), reason: "not a suite name prefs wrote"))
                continue
            }
            listing.names.append(name)
        }
        listing.names.sort { $0.utf8Compare($1) < 0 }
        return listing
    }

    /// The suite's marker and the values of the generation it names, as of one revision.
    struct Snapshot {
        var marker: EtcdKeyValue?
        var generation: Generation
        var values: [EtcdKeyValue]
        var revision: Int64
        /// The numbers of the versions kept (`EtcdSuiteStorage+History.swift`), where the change
        /// records one; else nil.
        var versions: [(number: Int64, namesBlobs: Bool)]? = nil
        var exists: Bool { marker != nil || !values.isEmpty }
    }

    /// The reads of one suite in a transaction: its marker, then each generation's values (all of
    /// them, or just `keys`): `EtcdSuiteStorage.reads(keys:)` operations.
    func reads(_ place: [UInt8], keys: [String]?) -> [EtcdOperation] {
        var reads: [EtcdOperation] = [.range(key: layout.marker(of: place), revision: revision)]
        for generation in Generation.allCases {
            if let keys {
                reads += keys.map { .range(key: layout.value($0, of: place, generation: generation), revision: revision) }
            } else {
                reads += layout.ranges(of: place, generation: generation).map { .range(key: $0.start, rangeEnd: $0.end, revision: revision) }
            }
        }
        return reads
    }

    /// How many operations `reads(_:keys:)` gives: the marker, and per generation each key (or its ranges).
    static func reads(keys: [String]?) -> Int { 1 + (keys.map { 3 * $0.count } ?? 5) }

    /// The snapshot the answers to `reads(_:keys:)` spell: the values of the marker's generation.
    static func snapshot(_ ranges: ArraySlice<EtcdRange>, keys: [String]?, revision: Int64) -> Snapshot {
        let marker = ranges.first?.kvs.first
        let generation = Generation(marker: marker?.value)
        var start = ranges.startIndex + 1
        var values: [EtcdKeyValue] = []
        for candidate in Generation.allCases {
            let count = keys?.count ?? (candidate == .zero ? 3 : 1)
            if candidate == generation { values = ranges[start..<start + count].flatMap(\.kvs) }
            start += count
        }
        return Snapshot(marker: marker, generation: generation, values: values, revision: revision)
    }

    /// Reads a suite's marker and its values (all, or just `keys`) in one transaction.
    /// With `history`, the numbers of the versions kept there too (keys only).
    func snapshot(_ place: [UInt8], keys: [String]?, history: [UInt8]? = nil) throws -> Snapshot {
        var reads = reads(place, keys: keys)
        if let history { reads.append(.range(key: history, rangeEnd: EtcdClient.prefixEnd(history), keysOnly: true, revision: revision)) }
        let result = try etcd.txn(success: reads)
        var snapshot = EtcdSuiteStorage.snapshot(result.ranges[...], keys: keys, revision: result.revision)
        if let history, let range = result.ranges.last { snapshot.versions = versionNumbers(range, prefix: history) }
        return snapshot
    }

    /// Snapshots of several places (each one's values, or just `keys`), as of one revision. A
    /// place's values are almost always in generation 0 (a suite moves to 1 or 2 only with a change
    /// too large for one transaction), so the first request asks for every marker and each place's
    /// keys in generation 0 alone, and for a whole place one range of every generation's values
    /// (what a generation 1 or 2 holds beside the marker's is left out here): `firstReads(keys:)`
    /// operations a place, not `reads(keys:)`, which etcd answers about 20 µs an operation sooner.
    /// The keys of a place whose marker names generation 1 or 2 are read again in that generation
    /// at the first request's revision; should etcd no longer have that revision (a change
    /// meanwhile in `InMemoryEtcd`, a compaction in etcd), every place is read again with every
    /// generation in one transaction.
    func snapshots(_ asked: [(place: [UInt8], keys: [String]?)]) throws -> [Snapshot] {
        let first = try etcd.txn(success: asked.flatMap { firstReads($0.place, keys: $0.keys) })
        var snapshots: [Snapshot] = []
        var elsewhere: [Int] = []
        var start = 0
        for (i, place) in asked.enumerated() {
            let count = EtcdSuiteStorage.firstReads(keys: place.keys)
            let marker = first.ranges[start].kvs.first
            let generation = Generation(marker: marker?.value)
            let found = first.ranges[start + 1..<start + count].flatMap(\.kvs)
            let values = place.keys == nil ? layout.only(found, of: place.place, in: generation) : generation == .zero ? found : []
            snapshots.append(Snapshot(marker: marker, generation: generation, values: values, revision: first.revision))
            if let keys = place.keys, !keys.isEmpty, generation != .zero { elsewhere.append(i) }
            start += count
        }
        guard !elsewhere.isEmpty else { return snapshots }
        let pinned = revision != 0 ? revision : first.revision
        let second: EtcdTxnResult
        do {
            second = try etcd.txn(success: elsewhere.flatMap { i in
                asked[i].keys!.map { .range(key: layout.value($0, of: asked[i].place, generation: snapshots[i].generation), revision: pinned) }
            })
        } catch PrefsError.storeRefused(_, 11, _, _) {
            let result = try etcd.txn(success: asked.flatMap { self.reads($0.place, keys: $0.keys) })
            var start = result.ranges.startIndex
            return asked.map { place in
                defer { start += EtcdSuiteStorage.reads(keys: place.keys) }
                return EtcdSuiteStorage.snapshot(result.ranges[start...], keys: place.keys, revision: result.revision)
            }
        }
        start = 0
        for i in elsewhere {
            let count = asked[i].keys!.count
            snapshots[i].values = second.ranges[start..<start + count].flatMap(\.kvs)
            start += count
        }
        return snapshots
    }

    /// A place's marker, then its `keys` in generation 0, or (nil) the one range of every
    /// generation's values.
    func firstReads(_ place: [UInt8], keys: [String]?) -> [EtcdOperation] {
        let marker = EtcdOperation.range(key: layout.marker(of: place), revision: revision)
        guard let keys else {
            let values = layout.values(of: place)
            return [marker, .range(key: values, rangeEnd: EtcdClient.prefixEnd(values), revision: revision)]
        }
        return [marker] + keys.map { .range(key: layout.value($0, of: place), revision: revision) }
    }

    /// How many operations `firstReads(_:keys:)` gives: the marker, then each key or the one range.
    static func firstReads(keys: [String]?) -> Int { 1 + (keys?.count ?? 1) }

    /// The contents a snapshot's values spell; a value that does not decode is a corrupt store (65).
    func contents(of snapshot: Snapshot, place: [UInt8], location: SuiteLocation) throws -> PrefDictionary {
        var entries: [(String, PrefValue)] = []
        for kv in snapshot.values {
            guard let key = layout.key(of: kv.key, place: place, generation: snapshot.generation) else {
                throw PrefsError.malformed(source: describe(location), format: nil, reason: "etcd key \(ByteText.escaped(kv.key)) is not a key prefs wrote")
            }
            do {
                entries.append((key, try PropertyList.decode(kv.value, as: .binary)))
            } catch let error as PrefsError {
                throw error.attributed(to: describe(location) + ": " + key)
            }
        }
        return PrefDictionary(entries)
    }

    package func load(_ location: SuiteLocation) throws -> StoredSuite? {
        let place = try place(location)
        let snapshot = try snapshots([(place, nil)])[0]
        let contents = snapshot.exists ? try contents(of: snapshot, place: place, location: location) : [:]
        observer?.observe([reading(location, snapshot, contents, keys: nil)])
        guard snapshot.exists else { return nil }
        return StoredSuite(contents: contents, format: nil)
    }

    package func lookup(_ key: String, in location: SuiteLocation) throws -> (exists: Bool, value: PrefValue?) {
        try lookup(key, in: [location])[0]
    }

    package func lookup(_ key: String, in locations: [SuiteLocation]) throws -> [(exists: Bool, value: PrefValue?)] {
        try lookup(key, in: locations, loading: []).found
    }

    /// Every suite read together (`snapshots`): each one's marker and the key, or all its values.
    package func lookup(_ key: String, in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [(exists: Bool, value: PrefValue?)], loaded: [StoredSuite?]) {
        let read = try lookup([key], in: locations, loading: whole)
        return (read.found.map { $0[0] }, read.loaded)
    }

    /// Every suite read together (`snapshots`): each one's marker and the keys, or all its values.
    package func lookup(_ keys: [String], in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [[(exists: Bool, value: PrefValue?)]], loaded: [StoredSuite?]) {
        let places = try locations.map(place), wholePlaces = try whole.map(place)
        let read = try snapshots(places.map { ($0, keys) } + wholePlaces.map { ($0, nil) })
        var readings: [PlaceReading] = []
        let found = try places.indices.map { i -> [(exists: Bool, value: PrefValue?)] in
            let read = read[i]
            let contents = try contents(of: read, place: places[i], location: locations[i])
            readings.append(reading(locations[i], read, contents, keys: keys))
            return keys.map { key in (read.marker != nil || contents[key] != nil, contents[key]) }
        }
        let loaded = try wholePlaces.indices.map { i -> StoredSuite? in
            let read = read[places.count + i]
            let contents = read.exists ? try contents(of: read, place: wholePlaces[i], location: whole[i]) : [:]
            readings.append(reading(whole[i], read, contents, keys: nil))
            guard read.exists else { return nil }
            return StoredSuite(contents: contents, format: nil)
        }
        observer?.observe(readings)
        return (found, loaded)
    }

    /// Every value must fit one etcd request (a dry run says so as the change would): a value kept
    /// inline (registered defaults, or under the external threshold) of more than about 1.5 MiB.
    package func checkStorable(_ contents: PrefDictionary, format: PlistFormat?) throws {
        for entry in contents {
            let bytes = try PropertyList.encode(entry.value, as: .binary).count + layout.prefix.count + entry.key.utf8.count + 64
            guard bytes <= EtcdSuiteStorage.batchBytes else {
                throw PrefsError.invalidValue(domain: nil, key: entry.key, flag: nil, given: nil,
                    reason: "this value takes \(bytes) bytes, and etcd takes at most 1.5 MiB in one request (its --max-request-bytes); nothing changed")
            }
        }
    }

    /// The user's registered defaults under the prefix (the packages' files follow,
    /// `SuiteStore.registeredLayers`); none in the store of managed values.
    package func registrationLocations(for name: String) throws -> [SuiteLocation] {
        administers ? [] : [.registered(name)]
    }

    /// The user's schema under the prefix, then the packages' files under `$XDG_DATA_DIRS`; none in
    /// the store of managed values.
    package func schemaLocations(for name: String) throws -> [SuiteLocation] {
        guard !administers else { return [] }
        return [.schema(name)] + (try environment.shippedFiles("schemas", name: name).map { .file($0) })
    }

    /// The fleet's managed values for the suite, `PREFIX/.managed/NAME/`, read with the rest of a
    /// one-key read in its request; none in the store of managed values itself.
    package func managedLocations(for name: String) throws -> [SuiteLocation] {
        administers ? [] : [.managed(name)]
    }

    package var holdsManagedValues: Bool { administers }

    /// A suite's own name (or `NSGlobalDomain`) for a suite and the global suite; nil for the other
    /// places, and for every place of the store of managed values, whose values stay inline.
    package func blobSuite(for location: SuiteLocation) -> String? {
        guard !administers else { return nil }
        switch location {
        case .suite(let name): return name
        case .global: return Domain.global.registrationName
        case .registered, .file, .byHost, .schema, .managed: return nil
        }
    }

    package func blobStore() throws -> (any BlobStore)? { EtcdBlobStore(etcd: etcd, layout: layout, revision: revision) }
}
