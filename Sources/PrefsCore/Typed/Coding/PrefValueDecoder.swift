/// Decodes a `Decodable` value from property-list structure, the inverse of `PrefValueEncoder`: a
/// dictionary into a struct or a `[String: T]`, an array into an array, a date into `PrefDate` or
/// Foundation's `Date`, data into `Data`. Numbers convert only exactly (an integer 3 reads as the
/// `Double` 3.0, a real 2.5 never as an `Int`); a boolean is never a number; a missing member of a
/// struct reads as nil when it is optional, as with Foundation's decoders. A value of the wrong
/// type is an error naming where it is (`window.frames.0`).
public struct PrefValueDecoder: Sendable {
    /// A decoder (it has no options).
    public init() {}

    /// A `T` from `value`. The error, read as text, names where in the value it went wrong:
    /// `at window.frame.0: expected a real, found a string`.
    public func decode<T: Decodable>(_ type: T.Type, from value: PrefValue) throws -> T {
        try ValueDecoder(value: value, codingPath: []).decode(type)
    }
}

/// The `Decoder` handed to `init(from:)`, over one value.
struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: PrefValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ expected: String) -> PrefCodingError {
        PrefCodingError(path: codingPath, reason: "expected \(expected), found \(value.typeNameWithArticle)")
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let dictionary) = value else { throw mismatch("a dictionary") }
        return KeyedDecodingContainer(KeyedValueContainer<Key>(dictionary: dictionary, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch("an array") }
        return UnkeyedValueContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { false }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch("a boolean") }
        return bool
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let string) = value else { throw mismatch("a string") }
        return string
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch value {
        case .real(let real): return real
        case .integer(let integer): if let real = Double(exactly: integer) { return real }
        case .unsignedInteger(let integer): if let real = Double(exactly: integer) { return real }
        default: break
        }
        throw mismatch("a real")
    }

    func decode(_ type: Float.Type) throws -> Float {
        let real = try decode(Double.self)
        guard !real.isFinite || abs(real) <= Double(Float.greatestFiniteMagnitude) else { throw mismatch("a real within Float's range") }
        return Float(real)
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let converted: T?
        switch value {
        case .integer(let integer): converted = T(exactly: integer)
        case .unsignedInteger(let integer): converted = T(exactly: integer)
        case .real(let real): converted = T(exactly: real)
        default: throw mismatch("an integer")
        }
        guard let converted else { throw mismatch("an integer from \(T.min) to \(T.max)") }
        return converted
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == PrefDate.self {
            guard case .date(let date) = value else { throw mismatch("a date") }
            return date as! T
        }
        if let bridge = FoundationBridge(T.self) {
            if bridge == .data, case .data(let bytes) = value {
                return try T(from: BytesDecoder(bytes: bytes, codingPath: codingPath))
            }
            guard let encoded = bridge.encodedForm(of: value) else { throw mismatch(bridge.expected) }
            do {
                return try T(from: ValueDecoder(value: encoded, codingPath: codingPath))
            } catch let error as PrefCodingError {
                throw error
            } catch {
                // Foundation's own refusal (a string that is no URL).
                throw PrefCodingError(path: codingPath, reason: "expected \(bridge.expected), found \(ReadableText.line(value)), which is not one")
            }
        }
        return try T(from: self)
    }
}

struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let dictionary: PrefDictionary
    let codingPath: [any CodingKey]

    var allKeys: [Key] { dictionary.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { dictionary[key.stringValue] != nil }

    func member(_ key: Key) throws -> ValueDecoder {
        guard let value = dictionary[key.stringValue] else {
            throw PrefCodingError(path: codingPath + [key], reason: "missing")
        }
        return ValueDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { !contains(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try member(key).unkeyedContainer() }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: dictionary["super"] ?? .dictionary(PrefDictionary()), codingPath: codingPath + [PrefCodingKey("super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try member(key) }
}

struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let elements: [PrefValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [PrefValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func next() throws -> ValueDecoder {
        let path = codingPath + [PrefCodingKey(currentIndex)]
        guard !isAtEnd else { throw PrefCodingError(path: path, reason: "missing: the array has \(elements.count) elements") }
        defer { currentIndex += 1 }
        return ValueDecoder(value: elements[currentIndex], codingPath: path)
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

/// What `Data`'s own decoding reads from stored data: its bytes, one `UInt8` at a time.
struct BytesDecoder: Decoder, UnkeyedDecodingContainer {
    let bytes: [UInt8]
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var currentIndex = 0

    init(bytes: [UInt8], codingPath: [any CodingKey]) {
        self.bytes = bytes
        self.codingPath = codingPath
    }

    var count: Int? { bytes.count }
    var isAtEnd: Bool { currentIndex >= bytes.count }

    func refuse(_ expected: String) -> PrefCodingError {
        PrefCodingError(path: codingPath, reason: "expected \(expected), found data")
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw refuse("a dictionary") }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { self }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw refuse("a single value") }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        guard !isAtEnd else { throw PrefCodingError(path: codingPath, reason: "missing: the data has \(bytes.count) bytes") }
        defer { currentIndex += 1 }
        return bytes[currentIndex]
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let byte = try decode(UInt8.self) as? T else { throw refuse("bytes") }
        return byte
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw refuse("a dictionary")
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw refuse("an array") }
    mutating func superDecoder() throws -> any Decoder { throw refuse("a dictionary") }
}

/// A date codes as its seconds since 2001-01-01 in other coders; `PrefValueEncoder` and
/// `PrefValueDecoder` store it as a property-list date.
extension PrefDate: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(secondsSinceReferenceDate: try decoder.singleValueContainer().decode(Double.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(secondsSinceReferenceDate)
    }
}
