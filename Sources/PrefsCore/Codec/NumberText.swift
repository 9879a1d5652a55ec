/// Strict number syntax shared by the text decoders and the command line: no silent coercion, no
/// overflow to infinity, no trailing garbage.
package enum NumberText {
    /// An optionally signed decimal integer (or `0x` hex when allowed) from Int64.min to UInt64.max.
    package static func integer<C: Collection>(_ text: C, allowHex: Bool = false) -> PrefValue? where C.Element == UInt8 {
        var i = text.startIndex
        var negative = false
        if i < text.endIndex && (text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+")) {
            negative = text[i] == UInt8(ascii: "-")
            i = text.index(after: i)
        }
        var radix: UInt64 = 10
        if allowHex, text[i...].starts(with: [UInt8(ascii: "0"), UInt8(ascii: "x")])
            || text[i...].starts(with: [UInt8(ascii: "0"), UInt8(ascii: "X")]) {
            radix = 16
            i = text.index(i, offsetBy: 2)
        }
        guard i < text.endIndex else { return nil }
        var magnitude: UInt64 = 0
        while i < text.endIndex {
            guard let digit = digitValue(text[i]), digit < radix else { return nil }
            let (times, o1) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, o2) = times.addingReportingOverflow(digit)
            guard !o1 && !o2 else { return nil }
            magnitude = sum
            i = text.index(after: i)
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        return .unsigned(magnitude)
    }

    @inline(__always)
    static func digitValue(_ c: UInt8) -> UInt64? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt64(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt64(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt64(c - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// A decimal real (`1`, `-2.5`, `.5`, `1e-3`); with `allowNamedValues`, also nan, inf and
    /// infinity with an optional sign, in any case. A finite literal too large for a Double is
    /// refused rather than turned into infinity; one too small rounds to zero like any other rounding.
    package static func real<C: Collection>(_ text: C, allowNamedValues: Bool = false) -> Double? where C.Element == UInt8 {
        let string = String(decoding: text, as: UTF8.self)
        if allowNamedValues {
            var name = Substring(string.lowercased())
            var sign = 1.0
            if name.first == "-" || name.first == "+" {
                sign = name.first == "-" ? -1 : 1
                name = name.dropFirst()
            }
            if name == "nan" { return .nan }
            if name == "inf" || name == "infinity" { return sign * .infinity }
        }
        guard isDecimalReal(Array(text)), let value = Double(string), value.isFinite else { return nil }
        return value
    }

    /// `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`
    static func isDecimalReal(_ t: [UInt8]) -> Bool {
        var i = 0
        func digits() -> Int {
            let start = i
            while i < t.count && t[i] >= 0x30 && t[i] <= 0x39 { i += 1 }
            return i - start
        }
        if i < t.count && (t[i] == UInt8(ascii: "-") || t[i] == UInt8(ascii: "+")) { i += 1 }
        var mantissa = digits()
        if i < t.count && t[i] == UInt8(ascii: ".") {
            i += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if i < t.count && (t[i] == UInt8(ascii: "e") || t[i] == UInt8(ascii: "E")) {
            i += 1
            if i < t.count && (t[i] == UInt8(ascii: "-") || t[i] == UInt8(ascii: "+")) { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == t.count
    }
}
