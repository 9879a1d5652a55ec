/// Where the etcd store keeps everything, under its PREFIX (the data model the man page documents, so
/// another tool can read it):
///
///     PREFIX/SUITE/KEY                     a suite's top-level value, as a binary property list
///     PREFIX/.GlobalPreferences/KEY        the global suite's
///     PREFIX/.registered/NAME/KEY          the user's registered defaults for NAME
///     PREFIX/.schemas/NAME/MEMBER          the schema for NAME (`keys`, `allowUndeclaredKeys`, …)
///     PREFIX/.suites/PLACE                 one key per suite that exists (PLACE: SUITE,
///                                          .GlobalPreferences, .registered/NAME or .schemas/NAME); every change
///                                          rewrites it, so its revision is the suite's version;
///                                          its value is a random tag of the change that wrote it
///     PREFIX/.locks/PLACE                  held (on a lease) by `gc` while no change may commit
///     PREFIX/.external/SUITE/KEYDIR/UUID   a blob's header (size, SHA-256, chunks, time written)
///     PREFIX/.chunks/SUITE/KEYDIR/UUID/N   its bytes, up to 1 MiB per chunk (N: 8 decimal digits)
///     PREFIX/.pending/SUITE/KEYDIR/UUID    a blob still being written or committed (on a lease)
///
/// In SUITE, NAME and KEY, `%` is written `%25` and `/` `%2F`, so a key of one suite can never be
/// read as another's. A one-key read is one request; watching a suite is one prefix watch.
struct EtcdLayout: Sendable {
    let prefix: [UInt8]

    init(prefix: String) { self.prefix = Array(prefix.utf8) }

    static let globalPlace = ".GlobalPreferences"

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
        case .file, .byHost: return nil
        }
    }

    func join(_ parts: [UInt8]...) -> [UInt8] { parts.reduce(prefix) { $0 + [0x2F] + $1 } }

    /// `PREFIX/PLACE/` — every value key of the suite starts with it.
    func values(of place: [UInt8]) -> [UInt8] { join(place) + [0x2F] }

    func value(_ key: String, of place: [UInt8]) -> [UInt8] { values(of: place) + EtcdLayout.escape(key) }

    func marker(of place: [UInt8]) -> [UInt8] { join(Array(".suites".utf8), place) }

    var markers: [UInt8] { join(Array(".suites".utf8)) + [0x2F] }

    func lock(of place: [UInt8]) -> [UInt8] { join(Array(".locks".utf8), place) }

    func blobs(_ area: String, suite: String) -> [UInt8] { join(Array(area.utf8), EtcdLayout.escape(suite)) + [0x2F] }

    func blob(_ area: String, suite: String, directory: String, uuid: String) -> [UInt8] {
        blobs(area, suite: suite) + Array(directory.utf8) + [0x2F] + Array(uuid.utf8)
    }

    func area(_ area: String) -> [UInt8] { join(Array(area.utf8)) + [0x2F] }
}
