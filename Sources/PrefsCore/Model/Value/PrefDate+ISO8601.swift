extension PrefDate {
    /// Parses ISO 8601 as people and programs write it:
    /// `YYYY-MM-DD`, optionally followed by `T` or a space and `HH:MM[:SS[.fraction]]`, then a zone:
    /// `Z`, `±HH:MM`, `±HHMM` or `±HH`, optionally after a space (so `defaults`' own
    /// `2026-01-02 03:04:05 +0000` works). A date alone means midnight UTC; a time without a zone is
    /// refused (nil) rather than guessed. The fraction is kept exactly.
    public init?(iso8601 text: String) {
        var scanner = DateScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.take("-"),
            let month = scanner.number(digits: 2), scanner.take("-"),
            let day = scanner.number(digits: 2)
        else { return nil }
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0
        var fraction = ""
        var offset: Int64 = 0
        if !scanner.atEnd {
            guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
                let h = scanner.number(digits: 2), scanner.take(":"), let m = scanner.number(digits: 2)
            else { return nil }
            hour = h
            minute = m
            if scanner.take(":") {
                guard let s = scanner.number(digits: 2) else { return nil }
                second = s
                if scanner.take(".") || scanner.take(",") {
                    fraction = scanner.digits()
                    guard !fraction.isEmpty else { return nil }
                    while fraction.hasSuffix("0") { fraction.removeLast() }
                }
            }
            _ = scanner.take(" ")
            guard let zone = scanner.zoneOffset(), scanner.atEnd else { return nil }
            offset = zone
        }
        guard let start = PrefDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        let whole = Int64(start.secondsSinceReferenceDate) - offset
        let date = PrefDate(secondsSinceReferenceDate: DecimalSplit.combine(whole: whole, fraction: fraction))
        guard date.isInSupportedRange else { return nil }
        self = date
    }
}

/// A tiny cursor over ASCII bytes for date text.
struct DateScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
        index += 1
        return true
    }

    /// Exactly `digits` decimal digits.
    mutating func number(digits count: Int) -> Int64? {
        guard index + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + count] {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        index += count
        return value
    }

    mutating func digits() -> String {
        let start = index
        while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `Z`, `±HH:MM`, `±HHMM` or `±HH`, as seconds east of UTC.
    mutating func zoneOffset() -> Int64? {
        if take("Z") || take("z") { return 0 }
        let sign: Int64
        if take("+") { sign = 1 } else if take("-") { sign = -1 } else { return nil }
        guard let hours = number(digits: 2), hours <= 23 else { return nil }
        var minutes: Int64 = 0
        if !atEnd {
            _ = take(":")
            guard let m = number(digits: 2), m <= 59 else { return nil }
            minutes = m
        }
        return sign * (hours * 3600 + minutes * 60)
    }
}
