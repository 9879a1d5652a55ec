/// Where the etcd store keeps everything, under its PREFIX (the data model the man page documents, so
/// another tool can read it):
///
///     PREFIX/SUITE/KEY                     a suite's top-level value, as a binary property list
///     PREFIX/SUITE/.1/KEY, …/.2/KEY        the same, when the suite's values are in generation 1 or 2
///     PREFIX/.GlobalPreferences/KEY        the global suite's
///     PREFIX/.registered/NAME/KEY          the user's registered defaults for NAME
///     PREFIX/.schemas/NAME/MEMBER          the schema for NAME (`keys`, `allowUndeclaredKeys`, …)
///     PREFIX/.managed/NAME/KEY             a fleet's managed values for NAME (.GlobalPreferences for the
///                                          global suite's), which an administrator writes through the
///                                          store at PREFIX/.managed and users only read (below)
///     PREFIX/.suites/PLACE                 one key per suite that exists (PLACE: SUITE,
///                                          .GlobalPreferences, .registered/NAME, .schemas/NAME or
///                                          .managed/NAME); every change
///                                          rewrites it, so its revision is the suite's version;
///                                          its value is a random tag of the change that wrote it (16
///                                          bytes), then `/1` or `/2` when the values are in that generation
///     PREFIX/.staging/PLACE                held (on a lease) by a change too large for one transaction
///                                          while it writes its generation
///     PREFIX/.staged/PLACE                 what that change has written so far: when it began, its
///                                          generation, keys and bytes (a binary property list); gone
///                                          once it commits, or once `gc` removes what it left
///     PREFIX/.locks/PLACE                  held (on a lease) by `gc` while no change may commit
///     PREFIX/.locks/.named/NAME/LEASE      a holder or waiter of `prefs lock NAME` (on its lease, LEASE in
///                                          hex; value: `LockHolder.Identity.record`); no PLACE starts
///                                          with `.named` (no suite name starts with `.`), so the two never meet
///     PREFIX/.external/SUITE/KEYDIR/UUID   a blob's header (size, SHA-256, chunks, time written)
///     PREFIX/.chunks/SUITE/KEYDIR/UUID/N   its bytes, up to 1 MiB per chunk (N: 8 decimal digits)
///     PREFIX/.pending/SUITE/KEYDIR/UUID    a blob still being written or committed (on a lease)
///
/// In SUITE, NAME and KEY, `%` is written `%25` and `/` `%2F`, so a key of one suite can never be
/// read as another's, and `PREFIX/PLACE/X/…` (a second `/`) is never a key of the first generation.
///
/// A suite's values are in one of three generations, the one its marker names: 0 (no suffix, the
/// layout of every suite until a change too large for one etcd transaction) at `PREFIX/PLACE/KEY`,
/// 1 and 2 under `PREFIX/PLACE/.1/` and `.2/`. A change that fits one transaction (128 operations,
/// 1.5 MiB) writes the keys it changes in the current generation and the marker, in one transaction.
/// A larger one takes `.staging/PLACE`, writes the whole new suite in batches into another generation
/// (1, or 2 when the current one is 1), which readers ignore, then commits with one small transaction
/// that compares the marker, points it at the new generation and deletes the other generations (a
/// delete of a range is one operation whatever it removes). A one-key read is one transaction: the
/// marker and the key in generation 0 (where the marker names generation 1 or 2, a second
/// transaction reads the key there at the first's revision: `EtcdSuiteStorage.snapshots`); a whole
/// suite, the marker and one range of every generation, of which the marker's is kept.
/// A watch is one etcd watch per marker its values depend on (the suite's, the global suite's, its
/// registered defaults', schema's and managed values'), on one stream, their events merged in
/// revision order (`EtcdClient.watch(keys:…)`): a change of another suite sends it nothing. The
/// size rule: any number of keys; each value must fit one request (1.5 MiB with the rest of it),
/// else the change is refused whole (65).
///
/// Over its quota etcd takes no write, only reads and deletes: a change that only deletes then
/// deletes the marker instead of rewriting it, which is still a revision readers, watchers and
/// concurrent writers see (`EtcdSuiteStorage+Quota.swift`), and `gc` runs without its lock.
///
/// The store at `PREFIX/.managed` is the administrator's view of the fleet's managed values: its
/// suite NAME is `PREFIX/.managed/NAME/KEY` as above, and everything it writes is under
/// `PREFIX/.managed/` (its staging and lock keys too) but for its markers, which are the users'
/// store's `PREFIX/.suites/.managed/NAME`: a user's one-key read takes the managed values with
/// the rest of the suite in its one transaction, and a user's watch on the markers sees them
/// change, in order with every other change.
struct EtcdLayout: Sendable {
    let prefix: [UInt8]
    /// Where the markers are: `PREFIX/.suites`, or for the store of managed values
    /// `PREFIX/.suites/.managed`.
    let markerRoot: [UInt8]

    init(prefix: String) {
        self.prefix = Array(prefix.utf8)
        markerRoot = self.prefix + Array("/.suites".utf8)
    }

    /// The layout of the store at `PREFIX/.managed`, whose markers are the store at PREFIX's.
    init(managedValuesOf parent: String) {
        prefix = Array((parent + "/.managed").utf8)
        markerRoot = Array((parent + "/.suites/.managed").utf8)
    }

    static let globalPlace = ".GlobalPreferences"

    /// Where a fleet's managed values are, under PREFIX: `.managed/NAME`.
    static let managedArea = Array(".managed/".utf8)

    /// Name bytes with `%` and `/` escaped.
    static func escape(_ name: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for byte in name.utf8 {
            switch byte {
            case 0x25: bytes += Array("%25".utf8)
            case 0x2F: bytes += Array("%2F".utf8)
            default: bytes.append(byte)
            }
        }
        return bytes
    }

    /// The name escaped bytes spell; nil when they are not such a spelling (or not UTF-8).
    static func unescape(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == 0x25 {
                guard bytes.distance(from: i, to: bytes.endIndex) >= 3 else { return nil }
                let code = Array(bytes[i + 1...i + 2])
                if code == Array("25".utf8) { out.append(0x25) } else if code == Array("2F".utf8) { out.append(0x2F) } else { return nil }
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// A location's place (`SUITE`, `.GlobalPreferences` or `.registered/NAME`); nil for files.
    static func place(of location: SuiteLocation) -> [UInt8]? {
        switch location {
        case .suite(let name): return escape(name)
        case .global: return Array(globalPlace.utf8)
        case .registered(let name): return Array(".registered/".utf8) + escape(name)
        case .schema(let name): return Array(".schemas/".utf8) + escape(name)
        case .managed(let name): return managedArea + escape(name == Domain.global.registrationName ? globalPlace : name)
        case .file, .byHost: return nil
        }
    }

    func join(_ parts: [UInt8]...) -> [UInt8] { parts.reduce(prefix) { $0 + [0x2F] + $1 } }

    /// `PREFIX/PLACE/` — every value key of the suite, in any generation, starts with it.
    func values(of place: [UInt8]) -> [UInt8] { join(place) + [0x2F] }

    /// Where a generation's keys start: `PREFIX/PLACE/` for 0, `PREFIX/PLACE/.N/` for the others.
    func values(of place: [UInt8], generation: Generation) -> [UInt8] {
        generation == .zero ? values(of: place) : values(of: place) + generation.directory + [0x2F]
    }

    func value(_ key: String, of place: [UInt8], generation: Generation = .zero) -> [UInt8] {
        values(of: place, generation: generation) + EtcdLayout.escape(key)
    }

    /// The ranges [start, end) that hold exactly one generation's keys: a generation's directory,
    /// or for generation 0 everything under `PREFIX/PLACE/` around the directories.
    func ranges(of place: [UInt8], generation: Generation) -> [(start: [UInt8], end: [UInt8])] {
        let all = values(of: place)
        guard generation == .zero else {
            let directory = values(of: place, generation: generation)
            return [(directory, EtcdClient.prefixEnd(directory))]
        }
        let one = values(of: place, generation: .one), two = values(of: place, generation: .two)
        return [(all, one), (EtcdClient.prefixEnd(one), two), (EtcdClient.prefixEnd(two), EtcdClient.prefixEnd(all))]
    }

    /// Of the value keys of every generation (`values(of:)`, with its prefix end), those
    /// `ranges(of:generation:)` holds: the generation's directory's, or for 0 all but the directories'.
    func only(_ kvs: [EtcdKeyValue], of place: [UInt8], in generation: Generation) -> [EtcdKeyValue] {
        guard generation == .zero else {
            let directory = values(of: place, generation: generation)
            return kvs.filter { $0.key.starts(with: directory) }
        }
        let one = values(of: place, generation: .one), two = values(of: place, generation: .two)
        return kvs.filter { !$0.key.starts(with: one) && !$0.key.starts(with: two) }
    }

    /// The ranges holding every generation's keys but `kept`'s.
    func ranges(of place: [UInt8], except kept: Generation) -> [(start: [UInt8], end: [UInt8])] {
        Generation.allCases.filter { $0 != kept }.flatMap { ranges(of: place, generation: $0) }
    }

    /// The key a value key names, in the generation it was read from; nil for a key of another
    /// generation's directory or one that does not unescape.
    func key(of etcdKey: [UInt8], place: [UInt8], generation: Generation) -> String? {
        let start = values(of: place, generation: generation)
        guard etcdKey.starts(with: start) else { return nil }
        let rest = etcdKey.dropFirst(start.count)
        guard !rest.contains(0x2F) else { return nil }
        return EtcdLayout.unescape(rest)
    }

    func staging(of place: [UInt8]) -> [UInt8] { join(Array(".staging".utf8), place) }

    func staged(of place: [UInt8]) -> [UInt8] { join(Array(".staged".utf8), place) }

    func marker(of place: [UInt8]) -> [UInt8] { markerRoot + [0x2F] + place }

    var markers: [UInt8] { markerRoot + [0x2F] }

    func lock(of place: [UInt8]) -> [UInt8] { join(Array(".locks".utf8), place) }

    /// Where the holders and waiters of the named lock `name` are (`PREFIX/.locks/.named/NAME/`);
    /// nil: of every named lock.
    func namedLocks(_ name: String?) -> [UInt8] { join(Array(".locks/.named".utf8)) + [0x2F] + (name.map { Array($0.utf8) + [0x2F] } ?? []) }

    func blobs(_ area: String, suite: String) -> [UInt8] { join(Array(area.utf8), EtcdLayout.escape(suite)) + [0x2F] }

    func blob(_ area: String, suite: String, directory: String, uuid: String) -> [UInt8] {
        blobs(area, suite: suite) + Array(directory.utf8) + [0x2F] + Array(uuid.utf8)
    }

    func area(_ area: String) -> [UInt8] { join(Array(area.utf8)) + [0x2F] }
}

/// Which keys hold a suite's values: generation 0 (`PREFIX/PLACE/KEY`, and every suite written
/// before generations), or 1 and 2 (`PREFIX/PLACE/.1/KEY`, `.2/KEY`), as the marker's value names.
enum Generation: CaseIterable, Sendable {
    case zero, one, two

    var directory: [UInt8] { self == .one ? Array(".1".utf8) : Array(".2".utf8) }

    /// The generation a change too large for one transaction writes into.
    var next: Generation { self == .one ? .two : .one }

    /// The length of the tag that starts a marker's value.
    static let tagLength = 16

    /// A marker's value: the change's tag, then `/1` or `/2` for those generations.
    static func marker(tag: [UInt8], generation: Generation) -> [UInt8] {
        generation == .zero ? tag : tag + [0x2F] + generation.directory.dropFirst()
    }

    /// The generation a marker's value names (0 when absent, or written before generations).
    init(marker value: [UInt8]?) {
        guard let value, value.count == Generation.tagLength + 2, value[Generation.tagLength] == 0x2F else { self = .zero; return }
        switch value.last {
        case 0x31: self = .one
        case 0x32: self = .two
        default: self = .zero
        }
    }
}
