/// A property-list value: what every codec reads into and writes from.
///
/// Bool is its own case and never an integer. Strings and dictionary keys compare by their UTF-8
/// bytes (not by Unicode canonical equivalence), so two keys that differ only in normalization stay two
/// keys and nothing is silently merged.
public enum PrefValue: Sendable {
    case string(String)
    case integer(Int64)
    /// An integer above `Int64.max` (property lists allow up to 2^64−1). Build values with
    /// `PrefValue.unsigned(_:)`, which keeps smaller numbers in `.integer`.
    case unsignedInteger(UInt64)
    /// A 64-bit IEEE real.
    case real(Double)
    case bool(Bool)
    case date(PrefDate)
    case data([UInt8])
    case array([PrefValue])
    case dictionary(PrefDictionary)
    /// A keyed-archiver UID (binary plists only).
    case uid(UInt64)

    /// An integer from an unsigned source: `.integer` when it fits in Int64, `.unsignedInteger` above.
    public static func unsigned(_ value: UInt64) -> PrefValue {
        value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsignedInteger(value)
    }

    /// The type name `read-type` prints.
    public var typeName: String {
        switch self {
        case .string: return "string"
        case .integer, .unsignedInteger: return "integer"
        case .real: return "float"
        case .bool: return "boolean"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .uid: return "uid"
        }
    }

    /// "an integer", "a string": the type name for a sentence.
    public var typeNameWithArticle: String {
        ("aeiou".contains(typeName.first!) ? "an " : "a ") + typeName
    }

    public var isContainer: Bool {
        switch self {
        case .array, .dictionary: return true
        default: return false
        }
    }
}

extension PrefValue: Equatable {
    /// Exact equality: strings by bytes, reals and dates by value with NaN equal to NaN and −0.0
    /// distinct from 0.0 (so a round trip that loses the sign is caught).
    public static func == (lhs: PrefValue, rhs: PrefValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a.utf8Compare(b) == 0
        case let (.integer(a), .integer(b)): return a == b
        case let (.unsignedInteger(a), .unsignedInteger(b)): return a == b
        case let (.integer(a), .unsignedInteger(b)), let (.unsignedInteger(b), .integer(a)):
            return a >= 0 && UInt64(a) == b
        case let (.real(a), .real(b)): return sameReal(a, b)
        case let (.bool(a), .bool(b)): return a == b
        case let (.date(a), .date(b)): return sameReal(a.secondsSinceReferenceDate, b.secondsSinceReferenceDate)
        case let (.data(a), .data(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.dictionary(a), .dictionary(b)): return a == b
        case let (.uid(a), .uid(b)): return a == b
        default: return false
        }
    }

    static func sameReal(_ a: Double, _ b: Double) -> Bool {
        a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
    }
}

extension PrefValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PrefValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PrefValue)...) {
        self = .dictionary(PrefDictionary(elements))
    }
}

extension PrefValue: CustomStringConvertible {
    /// The value as `prefs read` prints it (without the final newline): a scalar bare (`light`, `3`,
    /// `true`, `2001-01-01T00:00:00Z`, data as hex), a container in the readable form over several
    /// lines (`{ frame = (0, 0, 800, 600); title = Main; }`, indented).
    public var description: String {
        if let bare = ReadableText.bare(self) { return bare }
        var out = ""
        ReadableText.readable(self, indent: 0, into: &out)
        return out
    }
}
