import Foundation
import PrefsCore

/// Foundation's values in and out of PrefsCore's, stored as `UserDefaults` stores them. (Typed keys
/// need none of this: `Prefs.Key<Date>`, `<Data>` and `<URL>` work with PrefsCore alone.)
extension PrefDate {
    /// The same instant as `date`.
    public init(_ date: Date) { self.init(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate) }
}

extension Date {
    /// The same instant as `date`.
    public init(_ date: PrefDate) { self.init(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate) }
}

extension PrefValue {
    /// A date.
    public init(_ date: Date) { self = .date(PrefDate(date)) }

    /// Data.
    public init(_ data: Data) { self = .data([UInt8](data)) }

    /// A URL as a `Prefs.Key<URL>` stores it: a file URL as its path (as `UserDefaults` does), any
    /// other as its URL string.
    public init(_ url: URL) {
        self = (try? PrefValueEncoder().encode(url)) ?? .string(url.absoluteString)
    }

    /// The date, if this is one.
    public var dateValue: Date? {
        guard case .date(let date) = self else { return nil }
        return Date(date)
    }

    /// The bytes, if this is data.
    public var dataValue: Data? {
        guard case .data(let bytes) = self else { return nil }
        return Data(bytes)
    }

    /// The URL a string (or a stored URL dictionary) stands for: a path (`/…`, `~/…`) as a file
    /// URL, as `UserDefaults.url(forKey:)` reads it; nil for anything else.
    public var urlValue: URL? { try? PrefValueDecoder().decode(URL.self, from: self) }

    /// A property-list object as Foundation hands them (`UserDefaults.dictionaryRepresentation()`,
    /// `PropertyListSerialization`, `JSONSerialization`): `String`, `Bool`, any integer or floating
    /// type or `NSNumber`, `Date`, `Data`, `URL`, arrays and `[String: Any]` dictionaries of them,
    /// or a `PrefValue`. Anything else (`NSNull`, a nil optional) is `PrefsError.invalidValue`.
    public init(propertyList object: Any) throws {
        if let value = object as? PrefValue {
            self = value
            return
        }
        let mirror = Mirror(reflecting: object)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { throw PrefValue.notPropertyList("nil") }
            self = try PrefValue(propertyList: wrapped)
            return
        }
        switch object {
        case let string as String: self = .string(string)
        case let date as Date: self = PrefValue(date)
        case let data as Data: self = PrefValue(data)
        case let url as URL: self = PrefValue(url)
        case let array as [Any]: self = .array(try array.map { try PrefValue(propertyList: $0) })
        case let dictionary as [String: Any]: self = .dictionary(try PrefDictionary(propertyList: dictionary))
        default:
            guard let number = PrefValue.number(object) else { throw PrefValue.notPropertyList(String(describing: type(of: object))) }
            self = number
        }
    }

    /// A Swift number or `Bool`, or an `NSNumber` (a boolean one is `__NSCFBoolean`).
    static func number(_ object: Any) -> PrefValue? {
        switch object {
        case let value as Bool where type(of: object) == Bool.self: return .bool(value)
        case let value as Int where type(of: object) == Int.self: return .integer(Int64(value))
        case let value as Double where type(of: object) == Double.self: return .real(value)
        case let value as Float where type(of: object) == Float.self: return .real(Double(value))
        case let value as any BinaryInteger where !(type(of: object) is NSNumber.Type):
            if let signed = Int64(exactly: value) { return .integer(signed) }
            return UInt64(exactly: value).map { .unsignedInteger($0) }
        case let number as NSNumber:
            if String(describing: type(of: number)).contains("Boolean") { return .bool(number.boolValue) }
            switch String(cString: number.objCType) {
            case "d", "f": return .real(number.doubleValue)
            case "Q", "L", "I", "S", "C": return .unsigned(number.uint64Value)
            default: return .integer(number.int64Value)
            }
        default: return nil
        }
    }

    static func notPropertyList(_ what: String) -> PrefsError {
        .invalidValue(domain: nil, key: nil, flag: nil, given: nil, reason: "\(what) is not a property-list value")
    }

    /// The value as Foundation's property-list objects: `String`, `Int`, `UInt64` (above
    /// `Int64.max`), `Double`, `Bool`, `Date`, `Data`, `[Any]`, `[String: Any]`; a keyed
    /// archiver's UID as `["CF$UID": UInt64]`.
    public var propertyList: Any {
        switch self {
        case .string(let string): return string
        case .integer(let integer): return Int(integer)
        case .unsignedInteger(let integer): return integer
        case .real(let real): return real
        case .bool(let bool): return bool
        case .date(let date): return Date(date)
        case .data(let bytes): return Data(bytes)
        case .array(let elements): return elements.map(\.propertyList)
        case .dictionary(let dictionary): return dictionary.propertyList
        case .uid(let uid): return ["CF$UID": uid]
        }
    }
}

extension PrefDictionary {
    /// A `[String: Any]` of property-list objects (see `PrefValue.init(propertyList:)`), such as
    /// `UserDefaults.register(defaults:)` takes: `suite.register(defaults: try PrefDictionary(propertyList: …))`.
    public init(propertyList dictionary: [String: Any]) throws {
        self.init()
        for (key, value) in dictionary { self[key] = try PrefValue(propertyList: value) }
    }

    /// The dictionary as `[String: Any]` of Foundation's property-list objects.
    public var propertyList: [String: Any] {
        var result: [String: Any] = [:]
        for entry in self { result[entry.key] = entry.value.propertyList }
        return result
    }
}
