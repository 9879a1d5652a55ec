/// Checking values against a schema: the one rule every path that stores applies (through
/// `SuiteStore.update`), and `check` reports.
extension Schema.Key {
    /// The rule in words: "an integer from 1 to 300", "an array of strings, one of a, b".
    package var rule: String {
        var text = type.withArticle
        if type == .array, let element { text += " of \(element.rawValue)s" }
        switch (minimum, maximum) {
        case let (low?, high?): text += " from \(SchemaViolation.describe(low)) to \(SchemaViolation.describe(high))"
        case let (low?, nil): text += " of at least \(SchemaViolation.describe(low))"
        case let (nil, high?): text += " of at most \(SchemaViolation.describe(high))"
        case (nil, nil): break
        }
        if let choices { text += ", one of " + choices.map(SchemaViolation.describe).joined(separator: ", ") }
        return text
    }

    /// What breaks the rule in `value`, to follow "expected RULE": "not 500", or "but element 2 is
    /// 3 (an integer)"; nil when it keeps it.
    package func violation(_ value: PrefValue) -> String? {
        guard type.matches(value) else { return "not \(SchemaViolation.describe(value)) (\(value.typeNameWithArticle))" }
        guard type == .array, case .array(let elements) = value else { return scalarViolation(value).map { "not " + $0 } }
        for (i, item) in elements.enumerated() {
            if let element, !element.matches(item) { return "but element \(i) is \(SchemaViolation.describe(item)) (\(item.typeNameWithArticle))" }
            if let broken = scalarViolation(item) { return "but element \(i) is " + broken }
        }
        return nil
    }

    /// Range and choices, for a scalar (or an array's element).
    func scalarViolation(_ value: PrefValue) -> String? {
        if let minimum, Schema.compare(value, minimum) == .orderedAscending { return SchemaViolation.describe(value) }
        if let maximum, Schema.compare(value, maximum) == .orderedDescending { return SchemaViolation.describe(value) }
        if value.isNaN && (minimum != nil || maximum != nil) { return SchemaViolation.describe(value) }
        if let choices, !choices.contains(value) { return SchemaViolation.describe(value) }
        return nil
    }
}

extension Schema {
    /// Numbers by value (integers exactly, a real against an integer as reals), dates by time; nil
    /// for anything else (and NaN).
    static func compare(_ a: PrefValue, _ b: PrefValue) -> ComparisonResult? {
        func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult { x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame }
        switch (a, b) {
        case let (.integer(x), .integer(y)): return order(x, y)
        case let (.unsignedInteger(x), .unsignedInteger(y)): return order(x, y)
        case (.integer, .unsignedInteger): return .orderedAscending
        case (.unsignedInteger, .integer): return .orderedDescending
        case let (.date(x), .date(y)): return order(x, y)
        default:
            guard let x = a.realValue, let y = b.realValue, !x.isNaN, !y.isNaN else { return nil }
            return order(x, y)
        }
    }

    /// What a key's value breaks in this schema, in words ("expected … , not …"); nil when the
    /// value keeps the rules. A value kept in external storage (its reference) is checked by the
    /// kind its blob holds.
    package func violation(key name: String, value: PrefValue) -> String? {
        guard let key = key(name) else {
            return allowsUndeclaredKeys ? nil : "not a key the schema declares, and it allows no others"
        }
        if let reference = try? ExternalReference.parse(value) {
            let kind = reference.kind.rawValue
            return key.type.rawValue == kind ? nil : "expected \(key.rule), not a value of type \(kind) (kept in external storage)"
        }
        return key.violation(value).map { "expected \(key.rule), \($0)" }
    }
}

/// The result of comparing two values in order (not Foundation's: PrefsCore does not import it).
enum ComparisonResult: Sendable {
    case orderedAscending, orderedSame, orderedDescending
}

extension PrefValue {
    var realValue: Double? {
        switch self {
        case .integer(let n): return Double(n)
        case .unsignedInteger(let n): return Double(n)
        case .real(let x): return x
        default: return nil
        }
    }
}

/// Values as messages about schemas show them: scalars as text (strings quoted), containers by type.
package enum SchemaViolation {
    package static func describe(_ value: PrefValue) -> String {
        switch value {
        case .string(let text): return "\"" + String(text.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0 == "\"" || $0 == "\\" ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()) + (text.unicodeScalars.count > 80 ? "…\"" : "\"")
        case .integer(let n): return String(n)
        case .unsignedInteger(let n): return String(n)
        case .real(let x): return XMLPlistEncoder.realText(x)
        case .bool(let b): return b ? "true" : "false"
        case .date(let date): return date.iso8601()
        case .data(let bytes): return "<" + Hex.encode(Array(bytes.prefix(32))) + (bytes.count > 32 ? "…" : "") + ">"
        case .array(let elements): return "an array of \(elements.count)"
        case .dictionary(let entries): return "a dictionary of \(entries.count)"
        case .uid(let n): return "uid \(n)"
        }
    }
}
