/// Exact decimal arithmetic on the shortest representation of a Double, for dates with fractions:
/// `split` gives floor and fraction digits, `combine` reverses it with correct rounding, so a date
/// survives text formats bit for bit.
enum DecimalSplit {
    /// `x == whole + 0.fraction` exactly in decimal (fraction without trailing zeros, `whole` is the
    /// floor). Requires a finite `x` whose integer part fits in Int64.
    static func split(_ x: Double) -> (whole: Int64, fraction: String) {
        let (negative, digits, point) = decimalDigits(x)
        var integerDigits = ""
        var fraction: [UInt8] = []
        for (i, d) in digits.enumerated() {
            if i < point { integerDigits.append(Character(Unicode.Scalar(d))) } else { fraction.append(d) }
        }
        if point > digits.count { integerDigits += String(repeating: "0", count: point - digits.count) }
        if point < 0 { fraction = [UInt8](repeating: UInt8(ascii: "0"), count: -point) + fraction }
        while fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
        var whole = Int64(integerDigits) ?? 0
        if negative {
            whole = -whole
            if !fraction.isEmpty {
                whole -= 1
                fraction = complement(fraction)
            }
        }
        return (whole, String(decoding: fraction, as: UTF8.self))
    }

    /// The Double nearest to `whole + 0.fraction`.
    static func combine(whole: Int64, fraction: String) -> Double {
        if fraction.isEmpty { return Double(whole) }
        if whole >= 0 { return Double("\(whole).\(fraction)") ?? .nan }
        // whole + 0.f == -((|whole| - 1) + (1 - 0.f))
        let magnitude = UInt64(bitPattern: -(whole + 1))
        let rest = String(decoding: complement(Array(fraction.utf8)), as: UTF8.self)
        return Double("-\(magnitude).\(rest.isEmpty ? "0" : rest)") ?? .nan
    }

    /// 1 − 0.f as digits of the same length (trailing zeros dropped).
    static func complement(_ digits: [UInt8]) -> [UInt8] {
        var out = digits.map { _ in UInt8(ascii: "0") }
        var seenNonZero = false
        for i in digits.indices.reversed() {
            let d = digits[i] - UInt8(ascii: "0")
            let c: UInt8 = seenNonZero ? 9 - d : (d == 0 ? 0 : 10 - d)
            if d != 0 { seenNonZero = true }
            out[i] = UInt8(ascii: "0") + c
        }
        while out.last == UInt8(ascii: "0") { out.removeLast() }
        return out
    }

    /// The shortest round-trip digits of |x| and the position of the decimal point in them.
    static func decimalDigits(_ x: Double) -> (negative: Bool, digits: [UInt8], point: Int) {
        let text = Array(x.description.utf8)
        var negative = false
        var digits: [UInt8] = []
        var point: Int?
        var exponent = 0
        var i = 0
        if i < text.count, text[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        while i < text.count {
            let c = text[i]
            if c == UInt8(ascii: ".") {
                point = digits.count
            } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                exponent = Int(String(decoding: text[(i + 1)...], as: UTF8.self)) ?? 0
                break
            } else {
                digits.append(c)
            }
            i += 1
        }
        // Drop leading zeros so the point position stays meaningful.
        var pointPosition = (point ?? digits.count) + exponent
        while digits.count > 1, digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            pointPosition -= 1
        }
        return (negative, digits, pointPosition)
    }
}
