/// A snapshot file is a binary property list (so `prefs read FILE` shows one):
///
///     prefs-snapshot  1
///     store           etcd://HOST:PORT,…/PREFIX (SuiteBackend.snapshotName)
///     suite           the suite's name (NSGlobalDomain for the global suite)
///     revision        the highest store revision read
///     written         when the file was written (its modification time: when the store last
///                     confirmed it)
///     places          PLACE (SnapshotPlaceName) → version, exists, whole, values, absent
///
/// Decoding checks every field: a file that is not exactly this is no snapshot.
extension ReadSnapshot {
    static let formatVersion: Int64 = 1

    /// (The dictionaries are built from their entries, not from literals: a literal's list of
    /// pairs is one more generic type each run of prefs sets up.)
    func encoded(written: PrefDate) throws -> [UInt8] {
        typealias Entry = PrefDictionary.Entry
        var places: [Entry] = []
        for entry in self.places.entries {
            guard let name = SnapshotPlaceName.name(of: entry.location) else { continue }
            let place = entry.place
            var absent: [PrefValue] = []
            for key in place.absent { absent.append(.string(key)) }
            let fields = [
                Entry(key: "absent", value: .array(absent)), Entry(key: "exists", value: .bool(place.exists)),
                Entry(key: "values", value: .dictionary(place.values)), Entry(key: "version", value: .integer(place.version)),
                Entry(key: "whole", value: .bool(place.whole)),
            ]
            places.append(Entry(key: name, value: .dictionary(PrefDictionary(sortedEntries: fields))))
        }
        let document = [
            Entry(key: "places", value: .dictionary(PrefDictionary(unsortedEntries: places))),
            Entry(key: "prefs-snapshot", value: .integer(ReadSnapshot.formatVersion)), Entry(key: "revision", value: .integer(revision)),
            Entry(key: "store", value: .string(store)), Entry(key: "suite", value: .string(suite)), Entry(key: "written", value: .date(written)),
        ]
        return try PropertyList.encode(.dictionary(PrefDictionary(sortedEntries: document)), as: .binary)
    }

    /// The snapshot a file holds; nil when it is not one (damaged, truncated, another version).
    static func decoded(_ bytes: [UInt8]) -> ReadSnapshot? {
        guard bytes.starts(with: "bplist00".utf8), case .dictionary(let document)? = try? PropertyList.decode(bytes, as: .binary),
              document["prefs-snapshot"] == .integer(formatVersion), case .string(let store)? = document["store"],
              case .string(let suite)? = document["suite"], case .integer(let revision)? = document["revision"],
              case .date? = document["written"], case .dictionary(let places)? = document["places"], document.count == 6
        else { return nil }
        var snapshot = ReadSnapshot(store: store, suite: suite)
        snapshot.revision = revision
        for entry in places {
            guard let location = SnapshotPlaceName.location(named: entry.key), case .dictionary(let fields) = entry.value,
                  let place = Place(fields) else { return nil }
            snapshot.places[location] = place
        }
        return snapshot
    }
}

extension ReadSnapshot.Place {
    init?(_ fields: PrefDictionary) {
        guard fields.count == 5, case .integer(let version)? = fields["version"], case .bool(let exists)? = fields["exists"],
              case .bool(let whole)? = fields["whole"], case .dictionary(let values)? = fields["values"],
              case .array(let absentValues)? = fields["absent"] else { return nil }
        var absent: [String] = []
        for value in absentValues {
            guard case .string(let key) = value else { return nil }
            absent.append(key)
        }
        self.init(version: version, exists: exists, whole: whole, values: values, absent: absent)
    }
}
