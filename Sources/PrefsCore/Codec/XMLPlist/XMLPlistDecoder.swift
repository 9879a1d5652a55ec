import Glibc

/// Reads XML property lists (Apple's DTD form, as CoreFoundation, plistlib and libplist write them).
///
/// A hand-written scanner, not a general XML parser: it knows the plist elements, the five predefined
/// entities, numeric character references, CDATA, comments and processing instructions. A DOCTYPE is
/// skipped and its entity declarations are never expanded (a reference to one is an error), so entity
/// bombs cannot work. Raw C0 control characters inside strings are accepted, because macOS writes
/// them (Terminal's preferences hold ESC characters); see `XMLPlistEncoder` for the way back.
package enum XMLPlistDecoder {
    package static func decode(_ bytes: [UInt8]) throws -> PrefValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = XMLPlistParser(bytes: buffer)
            return try parser.document { parser, root in try parser.value(root, depth: 0) }
        }
    }

    /// The value of one top-level key, checking the whole document as `decode` does but building only
    /// that value; nil when the key is absent. A root that is not a dictionary is an error.
    package static func lookup(_ key: String, in bytes: UnsafeBufferPointer<UInt8>) throws -> PrefValue? {
        var parser = XMLPlistParser(bytes: bytes)
        return try parser.document { parser, root in try parser.lookup(key, root: root) }
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
            guard let first = name.first else { return nil }
            let candidates: (Tag, Tag?, Tag?)
            switch first {
            case UInt8(ascii: "a"): candidates = (.array, nil, nil)
            case UInt8(ascii: "d"): candidates = (.dict, .date, .data)
            case UInt8(ascii: "f"): candidates = (.false, nil, nil)
            case UInt8(ascii: "i"): candidates = (.integer, nil, nil)
            case UInt8(ascii: "k"): candidates = (.key, nil, nil)
            case UInt8(ascii: "p"): candidates = (.plist, nil, nil)
            case UInt8(ascii: "r"): candidates = (.real, nil, nil)
            case UInt8(ascii: "s"): candidates = (.string, nil, nil)
            case UInt8(ascii: "t"): candidates = (.true, nil, nil)
            default: return nil
            }
            if candidates.0.spells(name) {
                self = candidates.0
            } else if let tag = candidates.1, tag.spells(name) {
                self = tag
            } else if let tag = candidates.2, tag.spells(name) {
                self = tag
            } else {
                return nil
            }
        }

        func spells(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
            let name = self.name
            return name.utf8CodeUnitCount == text.count && memcmp(name.utf8Start, text.baseAddress!, text.count) == 0
        }

        var name: StaticString {
            switch self {
            case .plist: return "plist"
            case .dict: return "dict"
            case .array: return "array"
            case .key: return "key"
            case .string: return "string"
            case .integer: return "integer"
            case .real: return "real"
            case .date: return "date"
            case .data: return "data"
            case .true: return "true"
            case .false: return "false"
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

    /// Parses the prolog, the root element (through `root`, inside `<plist>` when there is one) and
    /// what may follow it.
    mutating func document<T>(_ root: (inout XMLPlistParser, StartTag) throws -> T) throws -> T {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        if startsWith("<?xml") { try xmlDeclaration() }
        try skipMisc(allowDoctype: true)
        guard index < bytes.count else { throw failure("no property list element") }
        let first = try startTag()
        let value: T
        if first.tag == .plist {
            guard !first.isEmpty else { throw failure("empty <plist> element", at: first.offset) }
            try skipMisc(allowDoctype: false)
            guard !startsWith("</") else { throw failure("empty <plist> element") }
            value = try root(&self, try startTag())
            try skipMisc(allowDoctype: false)
            guard startsWith("</") else { throw failure("a <plist> holds exactly one value") }
            try endTag(.plist)
        } else {
            value = try root(&self, first)
        }
        try skipMisc(allowDoctype: false)
        guard index == bytes.count else { throw failure("content after the end of the property list") }
        return value
    }

    /// `<?xml version="1.0" encoding="…"?>`: only UTF-8 (and its subset ASCII) is read.
    mutating func xmlDeclaration() throws {
        let start = index
        guard let end = find("?>", from: index) else { throw failure("unterminated XML declaration") }
        // Lowercased as ASCII, searched as bytes: the string library's substring search costs more
        // to start than a small file takes to read.
        let text = bytes[start..<end].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        index = end + 2
        let word = Array("encoding".utf8)
        guard let at = text.indices.first(where: { text[$0...].starts(with: word) }) else { return }
        let rest = text[(at + word.count)...].drop { $0 == 0x20 || $0 == 0x3D || $0 == 0x22 || $0 == 0x27 }
        let name = String(decoding: rest.prefix { $0 != 0x22 && $0 != 0x27 && $0 != 0x20 && $0 != 0x3F }, as: UTF8.self)
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
        if entries.count == 1, entries[0].key == "CF$UID", let uid = XMLPlistParser.uidNumber(entries[0].value) {
            return .uid(uid)
        }
        return .dictionary(PrefDictionary(unsortedEntries: entries))
    }

    /// The number of a `CF$UID` entry, when it is a non-negative integer.
    static func uidNumber(_ value: PrefValue) -> UInt64? {
        switch value {
        case .integer(let n) where n >= 0: return UInt64(n)
        case .unsignedInteger(let n): return n
        default: return nil
        }
    }
}
