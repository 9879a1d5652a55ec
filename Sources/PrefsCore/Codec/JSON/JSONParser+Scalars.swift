extension JSONParser {
    /// Where a string's decoded UTF-8 bytes are: in the document (a string without escapes) or in
    /// `unescaped` (a string with escapes).
    struct Span {
        var offset: Int
        var count: Int
        var inArena: Bool
        /// For a key: its member's value was null (such members are kept only for `.rootMembers`).
        var isNull = false
    }

    /// A string starting at the opening quote.
    mutating func string() throws -> String {
        let span = try scanString()
        let string = text(span)
        if span.inArena { unescaped.removeLast(span.count) }
        return string
    }

    /// The String of bytes checked by `scanString`.
    func text(_ span: Span) -> String {
        guard span.inArena else { return String(decoding: UnsafeBufferPointer(rebasing: bytes[span.offset..<span.offset + span.count]), as: UTF8.self) }
        return unescaped.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[span.offset..<span.offset + span.count]), as: UTF8.self) }
    }

    /// Reads a string starting at the opening quote, checks it, and tells where its decoded bytes
    /// are. The fast path skips 8 bytes at a time up to the first quote, backslash or control
    /// character; UTF-8 is checked after the whole string is scanned (so an unterminated string or a
    /// raw control character is what is reported, as always), and only when a byte is not ASCII.
    @inline(__always)
    mutating func scanString() throws -> Span {
        let start = index
        index += 1
        let first = index
        var allBits: UInt64 = 0
        while true {
            skipPlainBytes(into: &allBits)
            guard index < bytes.count else { throw failure("unterminated string", at: start) }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                guard allBits & 0x8080_8080_8080_8080 == 0 || UTF8Text.isValid(UnsafeBufferPointer(rebasing: bytes[first..<index - 1])) else {
                    throw failure("string is not valid UTF-8", at: start)
                }
                return Span(offset: first, count: index - 1 - first, inArena: false)
            }
            if c == UInt8(ascii: "\\") { return try scanEscapedString(from: first, start: start) }
            guard c >= 0x20 else { throw failure("raw control character in string (escape it)") }
            allBits |= UInt64(c)
            index += 1
        }
    }

    /// Moves past bytes that are not `"`, `\` or control characters, 8 at a time while 8 are left
    /// (the caller reads the rest one by one); ORs them into `allBits`.
    @inline(__always)
    mutating func skipPlainBytes(into allBits: inout UInt64) {
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
            let special = JSONParser.quoteBackslashOrControl(word)
            if special == 0 { allBits |= word; index += 8; continue }
            let before = special.trailingZeroBitCount / 8  // plain bytes before the first special one
            allBits |= word & (1 << (8 * before) &- 1)
            index += before
            return
        }
    }

    /// The high bit of every byte of `word` that is `"`, `\` or below 0x20; exact in the lowest such
    /// byte (borrows can only mark bytes above it), which is all the caller uses.
    @inline(__always)
    static func quoteBackslashOrControl(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        return zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C)) | ((word &- ones &* 0x20) & ~word & highs)
    }

    /// The slow path, once a backslash is seen: decode the string onto the end of `unescaped`.
    mutating func scanEscapedString(from first: Int, start: Int) throws -> Span {
        let offset = unescaped.count
        unescaped.append(contentsOf: bytes[first..<index])
        var allBits: UInt64 = 0
        while true {
            let run = index
            skipPlainBytes(into: &allBits)
            if index > run { unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index])) }
            guard index < bytes.count else { break }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                let span = Span(offset: offset, count: unescaped.count - offset, inArena: true)
                guard unescaped.withUnsafeBufferPointer({ UTF8Text.isValid(UnsafeBufferPointer(rebasing: $0[offset...])) }) else {
                    throw failure("string is not valid UTF-8", at: start)
                }
                return span
            }
            guard c >= 0x20 else { throw failure("raw control character in string (escape it)") }
            guard c == UInt8(ascii: "\\") else { unescaped.append(c); index += 1; continue }
            guard index + 1 < bytes.count else { break }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escape)
            case UInt8(ascii: "b"): unescaped.append(0x08)
            case UInt8(ascii: "f"): unescaped.append(0x0C)
            case UInt8(ascii: "n"): unescaped.append(0x0A)
            case UInt8(ascii: "r"): unescaped.append(0x0D)
            case UInt8(ascii: "t"): unescaped.append(0x09)
            case UInt8(ascii: "u"): UTF8.encode(try unicodeEscape()) { unescaped.append($0) }
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

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, read in one pass that also
    /// accumulates the digits: an integer of up to 18 digits, and a real of up to 19 significant
    /// digits whose value is exact as a Double and within 22 powers of ten of it (Clinger's fast
    /// path: one correctly rounded IEEE operation on exact operands), need no second look. Every
    /// other number goes the general way.
    mutating func number() throws -> PrefValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var significand: UInt64 = 0  // meaningful for up to 19 digits
        let integerDigits = digits(into: &significand)
        guard integerDigits > 0 else { throw failure("invalid number", at: start) }
        guard bytes[index - integerDigits] != UInt8(ascii: "0") || integerDigits == 1 else {
            throw failure("number with a leading zero", at: start)
        }
        var fractionDigits = 0, exponent = 0
        var isReal = false
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            fractionDigits = digits(into: &significand)
            guard fractionDigits > 0 else { throw failure("invalid number (digits must follow '.')", at: start) }
            isReal = true
        }
        if index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            let exponentNegative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
            if index < bytes.count && (exponentNegative || bytes[index] == UInt8(ascii: "+")) { index += 1 }
            guard exponentDigits(into: &exponent) > 0 else {
                throw failure("invalid number (digits must follow the exponent)", at: start)
            }
            if exponentNegative { exponent = -exponent }
            isReal = true
        }
        if !isReal && integerDigits <= 18 {
            return .integer(negative ? -Int64(significand) : Int64(significand))
        }
        if isReal && integerDigits + fractionDigits <= 19,
            let value = JSONParser.exactReal(significand, timesTenToThe: exponent - fractionDigits)
        {
            return .real(negative ? -value : value)
        }
        return try generalNumber(UnsafeBufferPointer(rebasing: bytes[start..<index]), isReal: isReal, at: start)
    }

    /// Numbers beyond the fast paths: big integers (exact to 64 bits, else an error) and reals
    /// rounded by the C library's correctly rounded conversion.
    func generalNumber(_ text: UnsafeBufferPointer<UInt8>, isReal: Bool, at start: Int) throws -> PrefValue {
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

    /// The powers of ten a Double holds exactly.
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// `significand × 10^exponent` when one IEEE operation on exact operands gives it, correctly
    /// rounded (significand ≤ 2^53, |exponent| ≤ 22); nil otherwise.
    @inline(__always)
    static func exactReal(_ significand: UInt64, timesTenToThe exponent: Int) -> Double? {
        guard significand <= 1 << 53, exponent >= -22 && exponent <= 22 else { return nil }
        let value = Double(significand)
        return exponent < 0 ? value / exactPowersOfTen[-exponent] : value * exactPowersOfTen[exponent]
    }

    /// Reads decimal digits, appending them to `value` (which wraps beyond 19 digits; callers
    /// use it only below that); returns how many.
    @inline(__always)
    mutating func digits(into value: inout UInt64) -> Int {
        let start = index
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            index += 1
        }
        return index - start
    }

    /// Reads an exponent's digits into `value`, which stops growing at 100 000 (far beyond any
    /// exponent the fast path takes); returns how many digits.
    @inline(__always)
    mutating func exponentDigits(into value: inout Int) -> Int {
        let start = index
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            if value < 100_000 { value = value * 10 + Int(digit) }
            index += 1
        }
        return index - start
    }
}
