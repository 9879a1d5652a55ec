/// Reads OpenStep ("old-style", NeXT) property lists: `{ key = value; }`, `( a, b )`, `<0fbd 7788>`
/// data, quoted strings (`"…"` or `'…'`) with escapes, unquoted strings of `A–Z a–z 0–9 _ $ / : . - +`,
/// and `//` and `/* */` comments. A document that is a list of `"key" = "value";` entries without
/// braces (a `.strings` file) is read as a dictionary; there `"key";` alone means `"key" = "key";`.
///
/// A document that is a single unquoted word is refused (CoreFoundation returns the string; such a file
/// is almost certainly not a property list).
///
/// As in CoreFoundation and libplist, every scalar is a string: `1` and `"1"` both read as "1".
/// Escapes: `\a \b \f \n \r \t \v \" \' \\`, `\U` with up to four hex digits (a surrogate pair needs
/// both halves), octal `\0`–`\177`. Octal above `\177` (NeXTSTEP encoding) is refused, not guessed.
package enum OpenStepDecoder {
    package static func decode(_ bytes: [UInt8]) throws -> PrefValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = OpenStepParser(bytes: buffer)
            return try parser.document()
        }
    }
}

struct OpenStepParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func failure(_ reason: String, at offset: Int? = nil) -> PrefsError {
        .malformed(source: nil, format: .openStep, reason: "\(TextPosition.describe(bytes, offset: offset ?? index)): \(reason)")
    }

    static func isUnquoted(_ c: UInt8) -> Bool {
        (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z")) || (c >= 0x30 && c <= 0x39)
            || c == UInt8(ascii: "_") || c == UInt8(ascii: "$") || c == UInt8(ascii: "/") || c == UInt8(ascii: ":")
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func document() throws -> PrefValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        let start = index
        try skipSpace()
        guard index < bytes.count else { throw failure("empty document") }
        let first = bytes[index]
        let value = try self.value(depth: 0)
        try skipSpace()
        if index == bytes.count {
            // CoreFoundation would return the string; a whole document that is one bare word is far
            // more likely a file that is not a property list at all.
            guard OpenStepParser.isUnquoted(first) == false else {
                throw failure("a bare word is not a property list (quote it to make a string)", at: start)
            }
            return value
        }
        guard case .string = value, current == UInt8(ascii: "=") || current == UInt8(ascii: ";") else {
            throw failure("unexpected data after the property list")
        }
        index = start
        return try entries(until: nil, depth: 0, stringsFile: true)
    }

    mutating func skipSpace() throws {
        while index < bytes.count {
            let c = bytes[index]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C {
                index += 1
            } else if c == UInt8(ascii: "/") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/") {
                while index < bytes.count && bytes[index] != 0x0A && bytes[index] != 0x0D { index += 1 }
            } else if c == UInt8(ascii: "/") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*") {
                let start = index
                index += 2
                while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    index += 1
                }
                guard index + 1 < bytes.count else { throw failure("unterminated comment", at: start) }
                index += 2
            } else {
                return
            }
        }
    }

    mutating func value(depth: Int) throws -> PrefValue {
        guard let c = current else { throw failure("unexpected end of document") }
        switch c {
        case UInt8(ascii: "{"):
            try enter(depth)
            return try entries(until: UInt8(ascii: "}"), depth: depth, stringsFile: false)
        case UInt8(ascii: "("):
            try enter(depth)
            return try array(depth: depth)
        case UInt8(ascii: "<"): return try data()
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return .string(try quoted())
        default:
            guard OpenStepParser.isUnquoted(c) else { throw failure("unexpected character '\(JSONParser.show(c))'") }
            let start = index
            while let c = current, OpenStepParser.isUnquoted(c) { index += 1 }
            return .string(String(decoding: bytes[start..<index], as: UTF8.self))
        }
    }

    mutating func enter(_ depth: Int) throws {
        guard depth < DecodingLimits.maxDepth else {
            throw failure("containers nested deeper than \(DecodingLimits.maxDepth) levels")
        }
        index += 1
    }

    /// `key = value;` entries up to `close` (or the end of a strings file).
    mutating func entries(until close: UInt8?, depth: Int, stringsFile: Bool) throws -> PrefValue {
        var entries = [PrefDictionary.Entry]()
        while true {
            try skipSpace()
            guard let c = current else {
                guard close == nil else { throw failure("unterminated dictionary (missing '}')") }
                break
            }
            if c == close { index += 1; break }
            let keyStart = index
            guard c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || OpenStepParser.isUnquoted(c),
                case .string(let key) = try value(depth: depth + 1)
            else { throw failure("dictionary key must be a string", at: keyStart) }
            try skipSpace()
            if stringsFile && current == UInt8(ascii: ";") {
                index += 1
                entries.append(.init(key: key, value: .string(key)))
                continue
            }
            guard current == UInt8(ascii: "=") else { throw failure("expected '=' after key \"\(key)\"") }
            index += 1
            try skipSpace()
            let value = try self.value(depth: depth + 1)
            try skipSpace()
            guard current == UInt8(ascii: ";") else { throw failure("expected ';' after the value of \"\(key)\"") }
            index += 1
            entries.append(.init(key: key, value: value))
        }
        return .dictionary(PrefDictionary(unsortedEntries: entries))
    }

    mutating func array(depth: Int) throws -> PrefValue {
        var elements = [PrefValue]()
        while true {
            try skipSpace()
            guard let c = current else { throw failure("unterminated array (missing ')')") }
            if c == UInt8(ascii: ")") { index += 1; return .array(elements) }
            elements.append(try value(depth: depth + 1))
            try skipSpace()
            if current == UInt8(ascii: ",") {
                index += 1
            } else if current != UInt8(ascii: ")") {
                throw failure("expected ',' or ')' in array")
            }
        }
    }

    /// `<hex digits>`, whitespace allowed between them.
    mutating func data() throws -> PrefValue {
        let start = index
        index += 1
        var bytesOut = [UInt8]()
        var high: UInt8? = nil
        while let c = current, c != UInt8(ascii: ">") {
            index += 1
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { continue }
            guard let digit = NumberText.digitValue(c) else { throw failure("'\(JSONParser.show(c))' in <data>", at: index - 1) }
            if let h = high {
                bytesOut.append(h << 4 | UInt8(digit))
                high = nil
            } else {
                high = UInt8(digit)
            }
        }
        guard current == UInt8(ascii: ">") else { throw failure("unterminated <data>", at: start) }
        guard high == nil else { throw failure("odd number of hex digits in <data>", at: start) }
        index += 1
        return .data(bytesOut)
    }
}
