import Glibc

/// Reading one top-level key of a large binary plist without reading the rest: the trailer and the
/// whole offset table are checked (by `init`, so a truncated file fails as it does in `decode`), the key is
/// found by binary search over the top dictionary's keys (prefs, plistlib and most writers sort
/// them; a linear scan follows when that finds nothing, for files that are not sorted), and only the
/// value asked for is decoded, with every check. Damage inside other keys or values shows when the
/// whole document is decoded (by a write, or a read of the whole suite).
extension BinaryPlistParser {
    mutating func lookup(_ key: String) throws -> PrefValue? {
        let start = try offset(of: topObject)
        guard case .dictionary(let count, let first) = try object(ref: topObject, at: start) else {
            throw BinaryPlistParser.failure("the root is \(try value(ref: topObject, depth: 0).value.typeNameWithArticle), not a dictionary")
        }
        let dictionary = Place(ref: topObject, byte: start)
        var needle = key
        let index = try needle.withUTF8 { needle -> Int? in
            try BinaryPlistParser.keyIndex(count: count) { i in try compareKey(try ref(at: first + i * refSize), needle, dictionary: dictionary) }
        }
        guard let index else { return nil }
        return try value(ref: try ref(at: first + (count + index) * refSize), depth: 1).value
    }

    /// Which of a dictionary's `count` keys is the one looked for (`order(i)` compares key `i` with
    /// it): binary search, the last of equal keys; then, when that finds nothing, a linear scan for
    /// files whose keys are not sorted (the last match).
    static func keyIndex(count: Int, _ order: (Int) throws -> Int) rethrows -> Int? {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            let c = try order(middle)
            if c == 0 {
                var last = middle
                while last + 1 < count, try order(last + 1) == 0 { last += 1 }
                return last
            }
            if c < 0 { low = middle + 1 } else { high = middle }
        }
        var found: Int?
        for i in 0..<count where try order(i) == 0 { found = i }
        return found
    }

    /// How key object `keyRef` orders against `needle` in UTF-8 byte order (code-point order), after
    /// checking that it is a well-formed string.
    func compareKey(_ keyRef: Int, _ needle: UnsafeBufferPointer<UInt8>, dictionary: Place) throws -> Int {
        let start = try offset(of: keyRef)
        switch try object(ref: keyRef, at: start) {
        case .ascii(let first, let count):
            return BinaryPlistParser.compare(UnsafeBufferPointer(start: bytes.baseAddress! + first, count: count), needle)
        case .utf16(let first, let units):
            var candidate = try utf16String(at: first, units: units, place: Place(ref: keyRef, byte: start))
            return candidate.withUTF8 { BinaryPlistParser.compare($0, needle) }
        default:
            throw BinaryPlistParser.failure("\(dictionary): dictionary key (object \(keyRef)) is not a string")
        }
    }

    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = Swift.min(a.count, b.count)
        if common > 0 {
            let r = memcmp(a.baseAddress!, b.baseAddress!, common)
            if r != 0 { return r < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
