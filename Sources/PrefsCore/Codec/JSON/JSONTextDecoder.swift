/// Reads JSON (RFC 8259), strictly. The policy for everything the RFC leaves to implementations:
///
/// - Numbers: an integer literal (no fraction, no exponent) is an `.integer`, exact from Int64.min to
///   UInt64.max; beyond that it is an error, never a rounded real. `-0` is the integer 0. A literal with
///   a fraction or exponent is a `.real`, correctly rounded (`1.000000000000000005` is 1.0, `1e-999` is
///   0.0); one too large for a Double (`1e400`) is an error, never infinity.
/// - Duplicate keys: the last value wins, as in JavaScript and Python (JSONTestSuite requires
///   accepting them), unless `duplicates` is `.refuse`: a document that changes suites (`import`,
///   `load`) names each key once, and one given twice is an error naming it. Keys are compared by
///   bytes, so NFC and NFD spellings are two keys and both stay.
/// - Strings: must be valid UTF-8; a `\u` escape of a lone surrogate is an error (Swift strings
///   cannot hold one and replacing it would change the data); raw control characters are errors.
/// - A UTF-8 byte-order mark at the start is skipped; UTF-16 and UTF-32 input is refused.
/// - `null` has no property-list value: `decode` refuses it; `PropertyList.validate` (for `lint`)
///   accepts it; `import` reads it as the value of a root member to mean "delete this key", and
///   refuses it anywhere else.
/// - Nesting deeper than `DecodingLimits.maxDepth` is an error (no stack overflow). Typed JSON
///   spends two JSON levels per value level, so the parser itself allows twice as many and `decode`
///   checks the plain-JSON limit afterwards.
package enum JSONTextDecoder {
    /// Plain JSON (typed-JSON documents are returned as the plain JSON they are; see `PropertyList`).
    package static func decode(_ bytes: [UInt8]) throws -> PrefValue {
        let (value, deepest, _) = try parse(bytes, nulls: .refuse)
        try checkDepth(deepest)
        return value ?? .dictionary([:])
    }

    static func checkDepth(_ deepest: Int) throws {
        guard deepest <= DecodingLimits.maxDepth else {
            throw PrefsError.malformed(source: nil, format: .json, reason: "containers nested deeper than \(DecodingLimits.maxDepth) levels")
        }
    }

    /// Where `null` may stand.
    enum NullPolicy {
        /// Nowhere: it is an error.
        case refuse
        /// Anywhere: the document, members and elements that are null are left out (for `lint`).
        case skip
        /// Only as the value of a member of the root object; those keys are listed in `nullKeys`
        /// (for `import`, where they mean "delete this key").
        case rootMembers
    }

    /// What a key given twice in one object is.
    enum DuplicatePolicy {
        /// The last member wins.
        case lastWins
        /// An error naming the key.
        case refuse
    }

    /// The value (nil for a `null` document, where allowed), the container nesting depth (allowing
    /// the deeper nesting typed JSON needs), and the root members that were null (`.rootMembers`).
    static func parse(_ bytes: [UInt8], nulls: NullPolicy, duplicates: DuplicatePolicy = .lastWins) throws
        -> (PrefValue?, deepest: Int, nullKeys: [String])
    {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, nulls: nulls, duplicates: duplicates)
            let value = try parser.document()
            return (value, parser.deepest, parser.nullKeys)
        }
    }
}

struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let nulls: JSONTextDecoder.NullPolicy
    let duplicates: JSONTextDecoder.DuplicatePolicy
    var index = 0
    /// The root members whose value was null (the last of equal keys decides), with `.rootMembers`.
    var nullKeys: [String] = []
    /// The deepest container nesting seen (1 for a flat array or object).
    var deepest = 0
    /// Where the keys of the objects being read are, innermost object last (see JSONParser+Object).
    var keySpans: [Span] = []
    /// The decoded bytes of strings with escapes: the keys of the objects being read, innermost
    /// object last, then the value string being read.
    var unescaped: [UInt8] = []
    static let maxDepth = 2 * DecodingLimits.maxDepth + 2

    init(bytes: UnsafeBufferPointer<UInt8>, nulls: JSONTextDecoder.NullPolicy, duplicates: JSONTextDecoder.DuplicatePolicy = .lastWins) {
        self.bytes = bytes
        self.nulls = nulls
        self.duplicates = duplicates
    }

    func failure(_ reason: String, at offset: Int? = nil) -> PrefsError {
        .malformed(source: nil, format: .json, reason: "\(TextPosition.describe(bytes, offset: offset ?? index)): \(reason)")
    }

    /// The document's value; nil when it is `null` (only with `.skip`).
    mutating func document() throws -> PrefValue? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipSpace()
        guard index < bytes.count else { throw failure("empty document") }
        let value = try self.value(depth: 0, nullAllowed: nulls == .skip)
        skipSpace()
        guard index == bytes.count else { throw failure("unexpected data after the JSON value") }
        return value
    }

    @inline(__always)
    mutating func skipSpace() {
        while index < bytes.count {
            let c = bytes[index]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            index += 1
        }
    }

    mutating func value(depth: Int, nullAllowed: Bool) throws -> PrefValue? {
        guard index < bytes.count else { throw failure("unexpected end of document") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"):
            let start = index
            try literal("null")
            guard nullAllowed else { throw failure("null has no property-list value", at: start) }
            return nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character '\(JSONParser.show(bytes[index]))'")
        }
    }

    static func show(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
    }

    mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { throw failure("invalid literal (expected \(word))") }
        index += count
    }

    mutating func enter(_ depth: Int) throws {
        guard depth < JSONParser.maxDepth else {
            throw failure("containers nested deeper than \(DecodingLimits.maxDepth) levels")
        }
        deepest = Swift.max(deepest, depth + 1)
        index += 1
        skipSpace()
    }

    mutating func array(depth: Int) throws -> PrefValue {
        try enter(depth)
        var elements = [PrefValue]()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        elements.reserveCapacity(4)  // small arrays in one allocation, not three
        while true {
            if let element = try value(depth: depth + 1, nullAllowed: nulls == .skip) { elements.append(element) }
            skipSpace()
            guard index < bytes.count else { throw failure("unterminated array") }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            guard bytes[index] == UInt8(ascii: ",") else { throw failure("expected ',' or ']' in array") }
            index += 1
            skipSpace()
        }
    }
}
