import PrefsCore

/// A suite of thousands of keys, for the tests of the store's fast paths: a one-key read that
/// decodes only that key (`PropertyList.lookup`) and a one-key write that patches the file in place
/// (`TopLevelPatch`).
package enum LargeSuite {
    package static let count = 5000

    /// The key `i`, ordered as `i` is: `k00042`.
    package static func key(_ i: Int) -> String {
        let digits = String(i)
        return "k" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    package static func value(_ i: Int) -> PrefValue { .string("value \(i)") }

    /// A key whose value only `damaged(_:)` spoils.
    package static let damageableKey = "zz-damageable"
    static let damageable = "damageable value"

    /// A key whose integer an XML file may spell in hexadecimal.
    package static let hexKey = "zz-hex"

    package static var contents: PrefDictionary {
        var contents = PrefDictionary((0..<count).map { (key($0), value($0)) })
        contents[damageableKey] = .string(damageable)
        contents[hexKey] = .integer(16)
        return contents
    }

    package static func bytes(_ format: PlistFormat) throws -> [UInt8] {
        try PropertyList.encode(.dictionary(contents), as: format)
    }

    /// `bytes` with one byte of the damageable value made 0xFF: the structure is intact, but that
    /// string is no longer ASCII (binary) or UTF-8 (XML), so decoding it — and so decoding the
    /// whole document — fails.
    package static func damaged(_ bytes: [UInt8]) throws -> [UInt8] {
        let at = try uniqueRange(of: Array(damageable.utf8), in: bytes).lowerBound
        var damaged = bytes
        damaged[at] = 0xFF
        return damaged
    }

    /// An XML suite as a person or another program may have left it: a comment, and an integer in
    /// hexadecimal. It decodes to `contents`; a full re-encode would drop the comment and write 16.
    package static func handEditedXML() throws -> [UInt8] {
        var bytes = try self.bytes(.xml)
        let dict = try uniqueRange(of: Array("<dict>\n".utf8), in: bytes)
        bytes.insert(contentsOf: Array("\t<!-- edited by hand -->\n".utf8), at: dict.upperBound)
        return try replacing("<integer>16</integer>", with: "<integer>0x10</integer>", in: bytes)
    }

    /// `bytes` with the one occurrence of `old` replaced by `new`.
    package static func replacing(_ old: String, with new: String, in bytes: [UInt8]) throws -> [UInt8] {
        var result = bytes
        result.replaceSubrange(try uniqueRange(of: Array(old.utf8), in: bytes), with: Array(new.utf8))
        return result
    }

    /// How `written` fails to be `old` (which `bytes` or `handEditedXML` gave) patched in place
    /// with `key`'s value set to the string `new`; empty when it is that. A full re-encode gives
    /// the same values but not these bytes.
    package static func patchProblems(_ written: [UInt8], from old: [UInt8], format: PlistFormat, changing key: String,
                                     to new: String) throws -> [String] {
        var problems: [String] = []
        var expected = contents
        expected[key] = .string(new)
        let decoded = try PropertyList.decode(written)
        if decoded != (.dictionary(expected), format) { problems.append("it does not decode to the changed suite in the same format") }
        switch format {
        case .xml:
            // The old document with that one value spliced: a comment and 0x10 elsewhere stay.
            guard let index = Int(key.dropFirst()) else { throw TestFailure("\(key) is not a key of the large suite") }
            let spliced = try replacing("<string>value \(index)</string>", with: "<string>\(new)</string>", in: old)
            if written != spliced { problems.append("it is not the old document with one value replaced") }
        case .binary:
            // Every old object kept byte for byte (but for the one reference to the value, changed
            // in place), the new value appended after them, and a new offset table.
            let trailer = try BinaryPlistTrailer(old), newTrailer = try BinaryPlistTrailer(written)
            let differing = zip(old[..<trailer.offsetTable], written[..<trailer.offsetTable]).filter { $0 != $1 }.count
            if differing > trailer.referenceSize { problems.append("\(differing) bytes of the old objects changed") }
            if newTrailer.objectCount != trailer.objectCount + 1 || newTrailer.offsetTable <= trailer.offsetTable {
                problems.append("not one object appended: \(trailer) → \(newTrailer)")
            }
        default:
            problems.append("no fast path for \(format)")
        }
        return problems
    }

    static func uniqueRange(of needle: [UInt8], in bytes: [UInt8]) throws -> Range<Int> {
        var found: [Range<Int>] = []
        var start = 0
        while let range = bytes[start...].firstRange(of: needle) {
            found.append(range)
            start = range.upperBound
        }
        guard found.count == 1 else { throw TestFailure("\(String(decoding: needle, as: UTF8.self)) occurs \(found.count) times") }
        return found[0]
    }
}

/// Facts from a binary plist's trailer.
package struct BinaryPlistTrailer: Equatable {
    package let referenceSize: Int
    package let objectCount: Int
    package let offsetTable: Int

    package init(_ bytes: [UInt8]) throws {
        guard bytes.count >= 40 else { throw TestFailure("not a binary plist") }
        let trailer = Array(bytes.suffix(32))
        func number(_ range: Range<Int>) -> Int { trailer[range].reduce(0) { $0 << 8 | Int($1) } }
        referenceSize = Int(trailer[7])
        objectCount = number(8..<16)
        offsetTable = number(24..<32)
    }
}
