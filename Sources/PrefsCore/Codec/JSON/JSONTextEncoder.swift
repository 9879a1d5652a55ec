/// Writes JSON. The mapping from property-list values (plain JSON; `TypedJSON` is the lossless form):
///
/// | value | JSON |
/// |---|---|
/// | string, bool | string, `true`/`false` |
/// | integer | number, exact (up to 2^64−1) |
/// | real | number in shortest round-trip form, always with `.` or an exponent so it reads back as a real; NaN and ±infinity cannot be written (error) |
/// | date | string, ISO 8601 UTC with the exact fraction: `"2026-01-02T03:04:05.25Z"` |
/// | data | string, base64 |
/// | uid | `{"CF$UID": n}`, as CoreFoundation spells it in XML |
/// | array, dictionary | array, object with keys in code-point order |
///
/// Strings escape `"`, `\` and control characters; everything else is written as UTF-8.
package enum JSONTextEncoder {
    package static func encode(_ value: PrefValue, pretty: Bool = true) throws -> [UInt8] {
        var writer = JSONWriter(pretty: pretty, format: .json)
        try writer.write(value, depth: 0)
        if pretty { writer.out.append(0x0A) }
        return writer.out
    }
}

struct JSONWriter {
    let pretty: Bool
    /// The format named in errors (`.typedJSON` when writing typed nodes).
    let format: PlistFormat
    /// In typed JSON, `{"string": "x"}` nodes stay on one line.
    var inlineScalarNodes = false
    /// Typed JSON spends two JSON levels per value level.
    var maxDepth = DecodingLimits.maxDepth
    var out: [UInt8] = []

    init(pretty: Bool, format: PlistFormat) {
        self.pretty = pretty
        self.format = format
        out.reserveCapacity(4096)
    }

    mutating func newline(_ depth: Int) {
        guard pretty else { return }
        out.append(0x0A)
        for _ in 0..<depth { out.append(contentsOf: [0x20, 0x20]) }
    }

    mutating func write(_ value: PrefValue, depth: Int) throws {
        switch value {
        case .string(let s): appendString(s)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .unsignedInteger(let u): out.append(contentsOf: String(u).utf8)
        case .real(let r):
            guard r.isFinite else {
                throw PrefsError.unrepresentable(format: format, keyPath: "", reason: "\(r) has no JSON number (typed-json can write it)")
            }
            out.append(contentsOf: r.description.utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .date(let d):
            try EncodingChecks.date(value, format: format)
            appendString(d.iso8601())
        case .data(let bytes):
            out.append(UInt8(ascii: "\""))
            Base64.encode(bytes, into: &out)
            out.append(UInt8(ascii: "\""))
        case .uid(let u): try write(.dictionary(["CF$UID": .unsigned(u)]), depth: depth)
        case .array(let elements): try writeArray(elements, depth: depth)
        case .dictionary(let dictionary): try writeObject(dictionary, depth: depth)
        }
    }

    mutating func writeArray(_ elements: [PrefValue], depth: Int) throws {
        try EncodingChecks.depth(depth, format: format, limit: maxDepth)
        out.append(UInt8(ascii: "["))
        for (i, element) in elements.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            newline(depth + 1)
            try PrefKeyPath.locating(String(i)) { try write(element, depth: depth + 1) }
        }
        if !elements.isEmpty { newline(depth) }
        out.append(UInt8(ascii: "]"))
    }

    mutating func writeObject(_ dictionary: PrefDictionary, depth: Int) throws {
        try EncodingChecks.depth(depth, format: format, limit: maxDepth)
        let inline = inlineScalarNodes && dictionary.count == 1 && !dictionary[0].value.isContainer
        out.append(UInt8(ascii: "{"))
        for (i, entry) in dictionary.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            if !inline { newline(depth + 1) }
            appendString(entry.key)
            out.append(UInt8(ascii: ":"))
            if pretty { out.append(0x20) }
            try PrefKeyPath.locating(entry.key) { try write(entry.value, depth: depth + 1) }
        }
        if !dictionary.isEmpty && !inline { newline(depth) }
        out.append(UInt8(ascii: "}"))
    }

    static let hexDigits = Array("0123456789abcdef".utf8)

    mutating func appendString(_ string: String) {
        out.append(UInt8(ascii: "\""))
        var s = string
        s.withUTF8 { JSONWriter.appendEscaped(UnsafeRawBufferPointer($0), into: &out) }
        out.append(UInt8(ascii: "\""))
    }

    /// String bytes with quote, backslash and control characters escaped (no quotes around them);
    /// byte by byte, so a piece of a longer string may end anywhere in a UTF-8 sequence.
    static func appendEscaped(_ text: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        var mark = 0
        for (i, c) in text.enumerated() where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") {
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[mark..<i]))
            mark = i + 1
            out.append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(c)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            default:
                out.append(contentsOf: "u00".utf8)
                out.append(JSONWriter.hexDigits[Int(c >> 4)])
                out.append(JSONWriter.hexDigits[Int(c & 0xF)])
            }
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[mark...]))
    }
}
