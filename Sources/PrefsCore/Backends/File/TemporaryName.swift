/// Naming of the temporary files `replace` writes beside NAME: `.NAME.prefs-RANDOM`, RANDOM up to 13
/// base-36 digits. A NAME too long for that to fit in a file name (255 bytes: NAME over 234) gets
/// `.HEAD.HASH.prefs~RANDOM` instead: HEAD its first 201 bytes or fewer (whole characters), HASH the
/// first 128 bits of its SHA-256 in hex, so that it still fits, still says whose it is, and differs
/// from every other NAME's.
///
/// A temporary of NAME is its prefix followed by base-36 digits only. No other name's temporary is
/// one: the last `-` (or `~`) of an entry is the one before RANDOM, so a prefix that matches it ends
/// there, and is NAME's prefix only if NAME is that name — or, for long names, has its hash.
enum TemporaryName {
    static let maximumBytes = 255
    static let randomDigits = String(UInt64.max, radix: 36).utf8.count
    /// The longest NAME whose temporary is `.NAME.prefs-RANDOM`.
    static let longestPlain = maximumBytes - ".".utf8.count - ".prefs-".utf8.count - randomDigits
    static let hashDigits = 32
    /// The most of a long NAME kept at the start of its temporary's name.
    static let longHead = maximumBytes - ".".utf8.count - 1 - hashDigits - ".prefs~".utf8.count - randomDigits

    static func prefix(for name: String) -> String {
        guard name.utf8.count > longestPlain else { return "." + name + ".prefs-" }
        var head = Substring(name)
        while head.utf8.count > longHead { head = head.dropLast() }
        let hash = Hex.encode(Array(SHA256.hash(Array(name.utf8)).prefix(hashDigits / 2)))
        return "." + head + "." + hash + ".prefs~"
    }

    static func make(for name: String) -> String {
        prefix(for: name) + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// Whether `entry` (a name in NAME's directory) is a temporary file of NAME's.
    static func isTemporary(_ entry: String, of name: String) -> Bool {
        let prefix = prefix(for: name).utf8
        guard entry.utf8.starts(with: prefix) else { return false }  // Bytes: no Unicode equivalence.
        let random = entry.utf8.dropFirst(prefix.count)
        return !random.isEmpty && random.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
    }
}
