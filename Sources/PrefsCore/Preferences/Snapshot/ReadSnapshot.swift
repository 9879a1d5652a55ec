/// The host's last-known-good snapshot of one suite of a remote store: what each place its reads
/// needed (the suite, the global suite, the fleet's managed values, the registered defaults, the
/// schema: `SuiteLocation`s of the store) held at one version, as the store last told (`PlaceReading`).
/// A place read whole knows every key; one read a key at a time knows the keys read, and only while
/// its version stays the same: a reading of another version replaces it whole, so what a snapshot
/// answers is always what one version of each place held.
package struct ReadSnapshot: Equatable, Sendable {
    package struct Place: Equatable, Sendable {
        var version: Int64
        var exists: Bool
        var whole: Bool
        /// The values known (all of them when `whole`); external ones as their references.
        var values: PrefDictionary
        /// Keys known not to be there, sorted (none when `whole`).
        var absent: [String]

        init(version: Int64, exists: Bool, whole: Bool, values: PrefDictionary, absent: [String]) {
            self.version = version
            self.exists = exists
            self.whole = whole
            self.values = values
            self.absent = whole ? [] : Place.sorted(absent)
        }

        init(_ reading: PlaceReading) {
            self.init(version: reading.version, exists: reading.exists, whole: reading.whole, values: reading.values, absent: reading.absent)
        }

        /// `reading` added: merged with what is known of the same version, else in place of it. A
        /// place with no version that has values (written without a marker) is never merged: nothing
        /// would tell its change; one that is not there is, until it is.
        mutating func add(_ reading: PlaceReading) {
            guard reading.version == version, version != 0 || !exists, reading.exists == exists, !reading.whole else {
                self = Place(reading)
                return
            }
            guard !whole else { return }
            for entry in reading.values { values[entry.key] = entry.value }
            absent = Place.sorted(absent + reading.absent)
        }

        /// What the place holds at `key`: `.some(nil)` when it is known not to be there, nil when the
        /// snapshot does not know.
        func value(_ key: String) -> PrefValue?? {
            if let value = values[key] { return .some(value) }
            if whole || absent.contains(where: { $0.utf8Compare(key) == 0 }) { return .some(nil) }
            return nil
        }

        static func sorted(_ keys: [String]) -> [String] {
            var unique: [String] = []
            for key in keys.sorted(by: { $0.utf8Compare($1) < 0 }) where unique.last.map({ $0.utf8Compare(key) != 0 }) ?? true {
                unique.append(key)
            }
            return unique
        }
    }

    /// The store (`SuiteBackend.snapshotName`) and the suite (its registration name) it is of.
    package let store: String
    package let suite: String
    /// The highest store revision a reading of it was made at.
    package var revision: Int64 = 0
    var places = Places()

    /// The places, in the order they were first read (or written). A handful at most, so a list: a
    /// dictionary keyed by `SuiteLocation` costs each run of prefs more to set up (its generic
    /// metadata, about 0.14 M instructions) than all its lookups.
    struct Places: Equatable, Sendable {
        struct Entry: Equatable, Sendable {
            let location: SuiteLocation
            var place: Place
        }

        private(set) var entries: [Entry] = []

        subscript(location: SuiteLocation) -> Place? {
            get { entries.first { $0.location == location }?.place }
            set {
                guard let index = entries.firstIndex(where: { $0.location == location }) else {
                    if let newValue { entries.append(Entry(location: location, place: newValue)) }
                    return
                }
                if let newValue { entries[index].place = newValue } else { entries.remove(at: index) }
            }
        }

        var keys: [SuiteLocation] { entries.map(\.location) }

        /// The same places holding the same, in any order.
        static func == (lhs: Places, rhs: Places) -> Bool {
            lhs.entries.count == rhs.entries.count && lhs.entries.allSatisfy { rhs[$0.location] == $0.place }
        }
    }

    package init(store: String, suite: String) {
        self.store = store
        self.suite = suite
    }

    /// The readings added, each place's in turn.
    package mutating func add(_ readings: [PlaceReading]) {
        for reading in readings where SnapshotPlaceName.name(of: reading.location) != nil {
            if places[reading.location] == nil {
                places[reading.location] = Place(reading)
            } else {
                places[reading.location]!.add(reading)
            }
            revision = max(revision, reading.revision)
        }
    }

    /// Whether the store is known to hold nothing that makes the suite exist (it was deleted): each
    /// of `own` places (its values, registered defaults, managed values and schema) read and absent.
    func isGone(own: [SuiteLocation]) -> Bool {
        own.allSatisfy { places[$0].map { !$0.exists } ?? true } && own.contains { places[$0] != nil }
    }
}

/// How a snapshot file names a place of the store: `suite:NAME`, `global`, `registered:NAME`,
/// `schema:NAME`, `managed:NAME`. Files and ByHost suites are never in a snapshot.
enum SnapshotPlaceName {
    static func name(of location: SuiteLocation) -> String? {
        switch location {
        case .suite(let name): return "suite:" + name
        case .global: return "global"
        case .registered(let name): return "registered:" + name
        case .schema(let name): return "schema:" + name
        case .managed(let name): return "managed:" + name
        case .file, .byHost: return nil
        }
    }

    static func location(named name: String) -> SuiteLocation? {
        if name == "global" { return .global }
        guard let colon = name.firstIndex(of: ":") else { return nil }
        let rest = String(name[name.index(after: colon)...])
        switch name[..<colon] {
        case "suite": return .suite(rest)
        case "registered": return .registered(rest)
        case "schema": return .schema(rest)
        case "managed": return .managed(rest)
        default: return nil
        }
    }
}
