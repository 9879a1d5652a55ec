/// Writes OpenStep property lists, indented like libplist's (the other OpenStep writer on Linux).
///
/// OpenStep has strings, data, arrays and dictionaries only. Integers and reals are written as their
/// decimal text and read back as strings (as libplist does); booleans, dates and UIDs cannot be
/// written and are an error naming the key. Strings are left unquoted when they consist only of
/// `A–Z a–z 0–9 _ $ . -`; otherwise they are quoted with `\" \\ \n \t \r` escapes and `\U00XX` for
/// other control characters; non-ASCII text is written as UTF-8.
package enum OpenStepEncoder {
    package static func encode(_ value: PrefValue) throws -> [UInt8] {
        var out = [UInt8]()
        if !value.isContainer, case .string(let text) = try scalarText(value) {
            // A document that is one bare word is refused on reading, so a scalar root is quoted.
            appendQuoted(text, &out)
        } else {
            try write(value, depth: 0, to: &out)
        }
        out.append(0x0A)
        return out
    }

    static func indent(_ depth: Int, _ out: inout [UInt8]) {
        for _ in 0..<depth { out.append(contentsOf: [0x20, 0x20]) }
    }

    static func write(_ value: PrefValue, depth: Int, to out: inout [UInt8]) throws {
        switch value {
        case .string, .integer, .unsignedInteger, .real, .bool, .date, .uid:
            guard case .string(let text) = try scalarText(value) else { return }
            appendString(text, &out)
        case .data(let bytes):
            out.append(UInt8(ascii: "<"))
            for (i, byte) in bytes.enumerated() {
                if i > 0 && i % 4 == 0 { out.append(0x20) }
                out.append(JSONWriter.hexDigits[Int(byte >> 4)])
                out.append(JSONWriter.hexDigits[Int(byte & 0xF)])
            }
            out.append(UInt8(ascii: ">"))
        case .array(let elements):
            try EncodingChecks.depth(depth, format: .openStep)
            out.append(UInt8(ascii: "("))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(0x0A)
                indent(depth + 1, &out)
                try PrefKeyPath.locating(String(i)) { try write(element, depth: depth + 1, to: &out) }
            }
            if !elements.isEmpty { out.append(0x0A); indent(depth, &out) }
            out.append(UInt8(ascii: ")"))
        case .dictionary(let dictionary):
            try EncodingChecks.depth(depth, format: .openStep)
            out.append(UInt8(ascii: "{"))
            for entry in dictionary {
                out.append(0x0A)
                indent(depth + 1, &out)
                appendString(entry.key, &out)
                out.append(contentsOf: " = ".utf8)
                try PrefKeyPath.locating(entry.key) { try write(entry.value, depth: depth + 1, to: &out) }
                out.append(UInt8(ascii: ";"))
            }
            if !dictionary.isEmpty { out.append(0x0A); indent(depth, &out) }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The text a scalar is written as (numbers as decimal text), or an error for types OpenStep
    /// cannot hold. Data stays data.
    static func scalarText(_ value: PrefValue) throws -> PrefValue {
        switch value {
        case .integer(let i): return .string(String(i))
        case .unsignedInteger(let u): return .string(String(u))
        case .real(let r): return .string(XMLPlistEncoder.realText(r))
        case .bool, .date, .uid:
            throw PrefsError.unrepresentable(format: .openStep, keyPath: "", reason: "OpenStep has no \(value.typeName) type (use xml, binary or typed-json)")
        default: return value
        }
    }

    static func isPlain(_ c: UInt8) -> Bool {
        (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z")) || (c >= 0x30 && c <= 0x39)
            || c == UInt8(ascii: "_") || c == UInt8(ascii: "$") || c == UInt8(ascii: ".") || c == UInt8(ascii: "-")
    }

    static func appendString(_ string: String, _ out: inout [UInt8]) {
        if !string.utf8.isEmpty && string.utf8.allSatisfy(isPlain) {
            out.append(contentsOf: string.utf8)
        } else {
            appendQuoted(string, &out)
        }
    }

    static func appendQuoted(_ string: String, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for c in string.utf8 {
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(c)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\U00".utf8)
                out.append(JSONWriter.hexDigits[Int(c >> 4)])
                out.append(JSONWriter.hexDigits[Int(c & 0xF)])
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
