/// A point in time: seconds since 2001-01-01T00:00:00Z (the property-list reference date), with any
/// sub-second fraction kept. Valid dates lie in the years 0001–9999, the range every format can write
/// with a four-digit year; decoders reject anything else (and NaN or infinity).
public struct PrefDate: Sendable, Equatable, Comparable {
    public var secondsSinceReferenceDate: Double

    public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    /// 2001-01-01 in days since 1970-01-01.
    static let referenceDay: Int64 = 11_323
    /// 0001-01-01T00:00:00Z.
    public static let earliestSeconds = Double(PrefDate.seconds(year: 1, month: 1, day: 1))
    /// 10000-01-01T00:00:00Z, the first instant that is too late.
    public static let endSeconds = Double(PrefDate.seconds(year: 10_000, month: 1, day: 1))

    public var isInSupportedRange: Bool {
        let s = secondsSinceReferenceDate
        return s.isFinite && s >= PrefDate.earliestSeconds && s < PrefDate.endSeconds
    }

    /// Whether the date has a fraction of a second, which an XML property list cannot carry (it
    /// writes whole seconds).
    public var hasFractionalSeconds: Bool {
        let s = secondsSinceReferenceDate
        return s.isFinite && s.rounded(.down) != s
    }

    public static func < (lhs: PrefDate, rhs: PrefDate) -> Bool {
        lhs.secondsSinceReferenceDate < rhs.secondsSinceReferenceDate
    }

    /// A validated calendar date and time (UTC), or nil when a field is out of range.
    public init?(year: Int64, month: Int64, day: Int64, hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...PrefDate.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let s = PrefDate.seconds(year: year, month: month, day: day) + hour * 3600 + minute * 60 + second
        self.init(secondsSinceReferenceDate: Double(s))
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Seconds since the reference date at midnight UTC of a proleptic Gregorian date.
    static func seconds(year: Int64, month: Int64, day: Int64) -> Int64 {
        (daysSince1970(year: year, month: month, day: day) - referenceDay) * 86_400
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public struct Components: Equatable, Sendable {
        public var year, month, day, hour, minute, second: Int64
        /// The exact decimal digits after the point, without trailing zeros ("" for whole seconds).
        public var fractionDigits: String
    }

    /// The UTC calendar fields. The fraction is the exact decimal of the stored Double's shortest
    /// representation, so formatting and parsing round-trip bit for bit. Requires a supported date.
    public var components: Components {
        let (whole, fraction) = DecimalSplit.split(secondsSinceReferenceDate)
        var days = whole / 86_400
        var rest = whole % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (y, m, d) = PrefDate.civil(daysSince1970: days + PrefDate.referenceDay)
        return Components(year: y, month: m, day: d, hour: rest / 3600, minute: rest % 3600 / 60,
                          second: rest % 60, fractionDigits: fraction)
    }

    /// ISO 8601 in UTC, `2026-01-02T03:04:05Z`, with the exact fraction when there is one
    /// (`…:05.25Z`) unless `wholeSeconds` (XML plists carry whole seconds only).
    public func iso8601(wholeSeconds: Bool = false) -> String {
        let c = components
        var text = pad(c.year, 4) + "-" + pad(c.month, 2) + "-" + pad(c.day, 2) + "T"
        text += pad(c.hour, 2) + ":" + pad(c.minute, 2) + ":" + pad(c.second, 2)
        if !wholeSeconds && !c.fractionDigits.isEmpty { text += "." + c.fractionDigits }
        return text + "Z"
    }

    private func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
