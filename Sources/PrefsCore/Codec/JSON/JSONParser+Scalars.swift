extension JSONParser {
    /// A string starting at the opening quote.
    mutating func string() throws -> String {
        let start = index
        index += 1
        let first = index
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return try validated(UnsafeBufferPointer(rebasing: bytes[first..<index - 1]), at: start)
            }
            if c == UInt8(ascii: "\\") { return try escapedString(from: first, start: start) }
            guard c >= 0x20 else { throw failure("raw control character in string (escape it)") }
            index += 1
        }
        throw failure("unterminated string", at: start)
    }

    func validated(_ buffer: UnsafeBufferPointer<UInt8>, at start: Int) throws -> String {
        guard let string = UTF8Text.string(buffer) else {
            throw failure("string is not valid UTF-8", at: start)
        }
        return string
    }

    /// The slow path, once a backslash is seen: decode escapes into a buffer.
    mutating func escapedString(from first: Int, start: Int) throws -> String {
        var out = Array(bytes[first..<index])
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return try out.withUnsafeBufferPointer { try validated($0, at: start) }
            }
            guard c >= 0x20 else { throw failure("raw control character in string (escape it)") }
            guard c == UInt8(ascii: "\\") else { out.append(c); index += 1; continue }
            guard index + 1 < bytes.count else { break }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"): out.append(contentsOf: String(Character(try unicodeEscape())).utf8)
            default: throw failure("invalid escape '\\\(JSONParser.show(escape))'", at: index - 2)
            }
        }
        throw failure("unterminated string", at: start)
    }

    /// After `\u`: four hex digits, and for a high surrogate the `\uDC00`–`\uDFFF` that must follow.
    mutating func unicodeEscape() throws -> Unicode.Scalar {
        let escapeStart = index - 2
        let unit = try hex4()
        if (0xD800...0xDBFF).contains(unit) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("lone surrogate \\u\(String(unit, radix: 16, uppercase: true)) (not a character)", at: escapeStart)
            }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw failure("lone surrogate \\u\(String(unit, radix: 16, uppercase: true)) (not a character)", at: escapeStart)
            }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(unit) else {
            throw failure("lone surrogate \\u\(String(unit, radix: 16, uppercase: true)) (not a character)", at: escapeStart)
        }
        return scalar
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = NumberText.digitValue(bytes[index]) else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func number() throws -> PrefValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        guard digits() > 0 else { throw failure("invalid number", at: start) }
        guard bytes[integerStart] != UInt8(ascii: "0") || index - integerStart == 1 else {
            throw failure("number with a leading zero", at: start)
        }
        var isReal = false
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("invalid number (digits must follow '.')", at: start) }
            isReal = true
        }
        if index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw failure("invalid number (digits must follow the exponent)", at: start) }
            isReal = true
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isReal {
            guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
                throw failure("number \(String(decoding: text, as: UTF8.self)) is too large for a 64-bit real", at: start)
            }
            return .real(value)
        }
        guard let value = NumberText.integer(text) else {
            throw failure("integer \(String(decoding: text, as: UTF8.self)) does not fit in 64 bits", at: start)
        }
        return value
    }

    mutating func digits() -> Int {
        let start = index
        while index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
        return index - start
    }
}
