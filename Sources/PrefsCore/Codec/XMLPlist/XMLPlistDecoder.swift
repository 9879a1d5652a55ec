/// Reads XML property lists (Apple's DTD form, as CoreFoundation, plistlib and libplist write them).
///
/// A hand-written scanner, not a general XML parser: it knows the plist elements, the five predefined
/// entities, numeric character references, CDATA, comments and processing instructions. A DOCTYPE is
/// skipped and its entity declarations are never expanded (a reference to one is an error), so entity
/// bombs cannot work. Raw C0 control characters inside strings are accepted, because macOS writes
/// them (Terminal's preferences hold ESC characters); see `XMLPlistEncoder` for the way back.
public enum XMLPlistDecoder {
    public static func decode(_ bytes: [UInt8]) throws -> PrefValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = XMLPlistParser(bytes: buffer)
            return try parser.document()
        }
    }
}

struct XMLPlistParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    enum Tag: String {
        case plist, dict, array, key, string, integer, real, date, data
        case `true`, `false`

        /// The tag spelled by `name`, compared byte for byte (no String is made: this runs for every
        /// element).
        init?(_ name: UnsafeBufferPointer<UInt8>) {
            @inline(__always) func spells(_ word: StaticString) -> Bool {
                let text = word.utf8Start
                for i in 0..<name.count where name[i] != text[i] { return false }
                return true
            }
            switch name.count {
            case 3 where spells("key"): self = .key
            case 4 where spells("dict"): self = .dict
            case 4 where spells("real"): self = .real
            case 4 where spells("date"): self = .date
            case 4 where spells("data"): self = .data
            case 4 where spells("true"): self = .true
            case 5 where spells("array"): self = .array
            case 5 where spells("plist"): self = .plist
            case 5 where spells("false"): self = .false
            case 6 where spells("string"): self = .string
            case 7 where spells("integer"): self = .integer
            default: return nil
            }
        }
    }

    struct StartTag {
        let tag: Tag
        let isEmpty: Bool
        let offset: Int
    }

    func failure(_ reason: String, at offset: Int? = nil) -> PrefsError {
        let position = TextPosition.describe(bytes, offset: offset ?? index)
        return .malformed(source: nil, format: .xml, reason: "\(position): \(reason)")
    }

    // MARK: Document

    mutating func document() throws -> PrefValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        if startsWith("<?xml") { try xmlDeclaration() }
        try skipMisc(allowDoctype: true)
        guard index < bytes.count else { throw failure("no property list element") }
        let root = try startTag()
        let value: PrefValue
        if root.tag == .plist {
            guard !root.isEmpty else { throw failure("empty <plist> element", at: root.offset) }
            try skipMisc(allowDoctype: false)
            guard !startsWith("</") else { throw failure("empty <plist> element") }
            value = try self.value(try startTag(), depth: 0)
            try skipMisc(allowDoctype: false)
            guard startsWith("</") else { throw failure("a <plist> holds exactly one value") }
            try endTag(.plist)
        } else {
            value = try self.value(root, depth: 0)
        }
        try skipMisc(allowDoctype: false)
        guard index == bytes.count else { throw failure("content after the end of the property list") }
        return value
    }

    /// `<?xml version="1.0" encoding="…"?>`: only UTF-8 (and its subset ASCII) is read.
    mutating func xmlDeclaration() throws {
        let start = index
        guard let end = find("?>", from: index) else { throw failure("unterminated XML declaration") }
        let text = String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
        index = end + 2
        guard let range = text.firstRange(of: "encoding") else { return }
        let rest = text[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
        let name = String(rest.prefix { $0 != "\"" && $0 != "'" && $0 != " " && $0 != "?" })
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name) else {
            throw failure("unsupported encoding \"\(name)\" (prefs reads UTF-8 property lists)", at: start)
        }
    }

    // MARK: Values

    mutating func value(_ start: StartTag, depth: Int) throws -> PrefValue {
        switch start.tag {
        case .dict: return try dictionary(start, depth: depth)
        case .array: return try array(start, depth: depth)
        case .string, .key: return .string(try text(start))
        case .true, .false:
            if !start.isEmpty { try endTag(start.tag) }
            return .bool(start.tag == .true)
        case .integer: return try integer(try textBytes(start), at: start.offset)
        case .real: return try real(try textBytes(start), at: start.offset)
        case .date: return try date(try textBytes(start), at: start.offset)
        case .data:
            guard let bytes = Base64.decode(try textBytes(start)) else {
                throw failure("<data> is not valid base64", at: start.offset)
            }
            return .data(bytes)
        case .plist: throw failure("<plist> inside a property list", at: start.offset)
        }
    }

    mutating func checkDepth(_ depth: Int, _ start: StartTag) throws {
        guard depth < DecodingLimits.maxDepth else {
            throw failure("containers nested deeper than \(DecodingLimits.maxDepth) levels", at: start.offset)
        }
    }

    mutating func array(_ start: StartTag, depth: Int) throws -> PrefValue {
        try checkDepth(depth, start)
        var elements = [PrefValue]()
        if start.isEmpty { return .array(elements) }
        while true {
            try skipMisc(allowDoctype: false)
            if startsWith("</") { try endTag(.array); return .array(elements) }
            elements.append(try value(try startTag(), depth: depth + 1))
        }
    }

    mutating func dictionary(_ start: StartTag, depth: Int) throws -> PrefValue {
        try checkDepth(depth, start)
        var entries = [PrefDictionary.Entry]()
        if start.isEmpty { return .dictionary(PrefDictionary()) }
        while true {
            try skipMisc(allowDoctype: false)
            if startsWith("</") { try endTag(.dict); break }
            let keyTag = try startTag()
            guard keyTag.tag == .key else { throw failure("expected <key> in <dict>, found <\(keyTag.tag.rawValue)>", at: keyTag.offset) }
            let key = try text(keyTag)
            try skipMisc(allowDoctype: false)
            guard !startsWith("</") else { throw failure("<key>\(key)</key> has no value") }
            let valueTag = try startTag()
            guard valueTag.tag != .key else { throw failure("<key>\(key)</key> has no value", at: valueTag.offset) }
            entries.append(PrefDictionary.Entry(key: key, value: try value(valueTag, depth: depth + 1)))
        }
        // CoreFoundation writes a keyed-archiver UID as <dict><key>CF$UID</key><integer>n</integer></dict>.
        if entries.count == 1, entries[0].key == "CF$UID" {
            switch entries[0].value {
            case .integer(let n) where n >= 0: return .uid(UInt64(n))
            case .unsignedInteger(let n): return .uid(n)
            default: break
            }
        }
        return .dictionary(PrefDictionary(unsortedEntries: entries))
    }
}
