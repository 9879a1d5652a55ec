import Glibc

/// Reading one top-level key of a large XML plist in a fraction of the time a full decode takes: the
/// document's element structure is checked throughout (every tag known, every element closed, one
/// root — so a truncated or mangled file fails as it does in `decode`), every key of the top
/// dictionary is read, and the value asked for is decoded with every check; the text of other values
/// is skipped, not interpreted. Damage inside another value shows when the whole document is decoded
/// (by a write, or a read of the whole suite).
extension XMLPlistParser {
    mutating func lookup(_ key: String, root: StartTag) throws -> PrefValue? {
        guard root.tag == .dict else {
            throw failure("the root is \(try value(root, depth: 0).typeNameWithArticle), not a dictionary", at: root.offset)
        }
        if root.isEmpty { return nil }
        var found: PrefValue?
        var entries = 0
        var uid: PrefValue?
        var needle = key
        try needle.withUTF8 { needle in
            while true {
                try skipMisc(allowDoctype: false)
                if startsWith("</") { try endTag(.dict); break }
                let (keyText, valueTag) = try entry()
                entries += 1
                let matches = keyText.withUnsafeBufferPointer { XMLPlistParser.same($0, needle) }
                let isUID = keyText.withUnsafeBufferPointer { XMLPlistParser.same($0, XMLPlistParser.uidKey) }
                if matches || isUID {
                    let value = try self.value(valueTag, depth: 1)
                    if matches { found = value }
                    if isUID { uid = value }
                } else {
                    try skip(valueTag, depth: 1)
                }
            }
        }
        try refuseUIDRoot(entries: entries, uid: uid, root: root)
        return found
    }

    /// `value` turns a dictionary whose one entry is `CF$UID` with an integer into a UID, so such a
    /// root is not a dictionary either; `uid` is the value of the `CF$UID` entry, if there is one.
    func refuseUIDRoot(entries: Int, uid: PrefValue?, root: StartTag) throws {
        if entries == 1, let uid, XMLPlistParser.uidNumber(uid) != nil {
            throw failure("the root is a uid, not a dictionary", at: root.offset)
        }
    }

    static var uidKey: UnsafeBufferPointer<UInt8> {
        let text: StaticString = "CF$UID"
        return UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// The text of a key without a copy when it has no entities.
    enum KeyText {
        case range(Range<Int>, UnsafeBufferPointer<UInt8>)
        case owned([UInt8])

        func withUnsafeBufferPointer<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
            switch self {
            case .range(let range, let bytes): return try body(UnsafeBufferPointer(rebasing: bytes[range]))
            case .owned(let text): return try text.withUnsafeBufferPointer(body)
            }
        }
    }

    /// A `<key>…</key>` (its UTF-8 checked) and the start tag of the value after it.
    mutating func entry() throws -> (key: KeyText, value: StartTag) {
        let keyTag = try startTag()
        guard keyTag.tag == .key else { throw failure("expected <key> in <dict>, found <\(keyTag.tag.rawValue)>", at: keyTag.offset) }
        let (range, owned) = try content(keyTag)
        let key: KeyText = range.map { .range($0, bytes) } ?? .owned(owned)
        guard key.withUnsafeBufferPointer(UTF8Text.isValid) else { throw failure("<key> is not valid UTF-8", at: keyTag.offset) }
        try skipMisc(allowDoctype: false)
        let description = { key.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }
        guard !startsWith("</") else { throw failure("<key>\(description())</key> has no value") }
        let valueTag = try startTag()
        guard valueTag.tag != .key else { throw failure("<key>\(description())</key> has no value", at: valueTag.offset) }
        return (key, valueTag)
    }

    /// Passes over a value, checking its element structure; with `checked`, also every check
    /// `value` makes of the text (numbers, dates, base64, UTF-8), so a document that passes would
    /// decode.
    mutating func skip(_ start: StartTag, depth: Int, checked: Bool = false) throws {
        switch start.tag {
        case .dict, .array:
            try checkDepth(depth, start)
            if start.isEmpty { return }
            while true {
                try skipMisc(allowDoctype: false)
                if startsWith("</") { try endTag(start.tag); return }
                let next = try startTag()
                if start.tag == .dict {
                    guard next.tag == .key else { throw failure("expected <key> in <dict>, found <\(next.tag.rawValue)>", at: next.offset) }
                    try skip(next, depth: depth + 1, checked: checked)
                    try skipMisc(allowDoctype: false)
                    guard !startsWith("</") else { throw failure("<key> has no value") }
                    let value = try startTag()
                    guard value.tag != .key else { throw failure("<key> has no value", at: value.offset) }
                    try skip(value, depth: depth + 1, checked: checked)
                } else {
                    try skip(next, depth: depth + 1, checked: checked)
                }
            }
        case .true, .false:
            if !start.isEmpty { try endTag(start.tag) }
        case .plist:
            throw failure("<plist> inside a property list", at: start.offset)
        case .string where checked, .key where checked:
            let (range, owned) = try content(start)
            let valid = range.map { UTF8Text.isValid(UnsafeBufferPointer(rebasing: bytes[$0])) } ?? owned.withUnsafeBufferPointer(UTF8Text.isValid)
            guard valid else { throw failure("<\(start.tag.rawValue)> is not valid UTF-8", at: start.offset) }
        default:
            if checked { _ = try value(start, depth: depth) } else { try skipText(start) }
        }
    }

    /// Moves past the text of a scalar element and its end tag (CDATA and comments included).
    mutating func skipText(_ start: StartTag) throws {
        if start.isEmpty { return }
        while true {
            guard index < bytes.count,
                let found = memchr(bytes.baseAddress! + index, Int32(UInt8(ascii: "<")), bytes.count - index)
            else { throw failure("unterminated <\(start.tag.rawValue)>", at: start.offset) }
            index = bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if startsWith("</") { try endTag(start.tag); return }
            let (opening, closing): (StaticString, StaticString)
            if startsWith("<![CDATA[") { (opening, closing) = ("<![CDATA[", "]]>") }
            else if startsWith("<!--") { (opening, closing) = ("<!--", "-->") }
            else if startsWith("<?") { (opening, closing) = ("<?", "?>") }
            else { throw failure("element inside <\(start.tag.rawValue)>") }
            guard let end = find(closing, from: index + opening.utf8CodeUnitCount) else { throw failure("unterminated \(opening)") }
            index = end + closing.utf8CodeUnitCount
        }
    }
}
