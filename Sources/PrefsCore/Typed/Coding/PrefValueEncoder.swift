/// Encodes an `Encodable` value as property-list structure: a struct or a `[String: T]` becomes a
/// dictionary, an array an array, a number an integer or a real, a `Bool` a boolean — what `prefs
/// read` shows and Foundation's `PropertyListDecoder` and `UserDefaults` read back. `PrefDate`
/// becomes a date; so do Foundation's `Date` and `Data` (a date and data), recognised by name, so
/// this module needs no Foundation (`FoundationBridge`). A `URL` is a string when it is the whole
/// value (as `UserDefaults` stores a URL), and inside a struct, array or dictionary what
/// Foundation's `PropertyListEncoder` writes (`{relative = "file:///srv/a"; }`, with `base` when it
/// has one), so `PropertyListDecoder` reads the stored struct.
///
/// A property list has no null: an optional that is nil at the top level encodes as `nil` (nothing to
/// store), and one inside an array is refused; a nil member of a struct is left out, as Swift's
/// synthesized `Codable` does.
public struct PrefValueEncoder: Sendable {
    /// An encoder (it has no options).
    public init() {}

    /// The property-list value of `value`; nil when it encodes nothing (an optional that is nil).
    public func encode<T: Encodable>(_ value: T) throws -> PrefValue? {
        let slot = EncodingSlot()
        try slot.store(value, path: [])
        return try slot.value(path: [])
    }
}

/// A value being encoded: empty, a finished value, or a container whose members are still slots.
final class EncodingSlot {
    enum Content {
        case empty
        case null
        case value(PrefValue)
        /// A dictionary: its members are `members`.
        case keyed
        /// An array: its elements are `elements`, or `bytes` while every one so far is a `UInt8`
        /// (`Data` encodes itself byte by byte).
        case unkeyed
        /// Foundation's `Date`, `Data` or `URL`, encoded through its own `Codable` into `slot`.
        case bridged(FoundationBridge, EncodingSlot)
    }

    var content = Content.empty
    var members: [(key: String, slot: EncodingSlot)] = []
    var elements: [EncodingSlot] = []
    var bytes: [UInt8] = []

    func store<T: Encodable>(_ value: T, path: [any CodingKey]) throws {
        if let date = value as? PrefDate {
            content = .value(.date(date))
        } else if let bridge = FoundationBridge(T.self), bridge != .url || path.isEmpty {
            let inner = EncodingSlot()
            try value.encode(to: SlotEncoder(slot: inner, codingPath: path))
            content = .bridged(bridge, inner)
        } else {
            try value.encode(to: SlotEncoder(slot: self, codingPath: path))
        }
    }

    /// The finished value (nil: encoded nil, or nothing at all).
    func value(path: [any CodingKey]) throws -> PrefValue? {
        switch content {
        case .empty, .null: return nil
        case .value(let value): return value
        case .keyed:
            var dictionary = PrefDictionary()
            for member in members {
                dictionary[member.key] = try member.slot.member(path: path + [PrefCodingKey(member.key)])
            }
            return .dictionary(dictionary)
        case .unkeyed:
            if elements.isEmpty { return .array(bytes.map { .integer(Int64($0)) }) }
            return .array(try elements.enumerated().map { try $0.element.member(path: path + [PrefCodingKey($0.offset)]) })
        case .bridged(.data, let inner) where inner.elements.isEmpty:
            if case .unkeyed = inner.content { return .data(inner.bytes) }
            return try FoundationBridge.data.prefValue(from: inner.value(path: path), path: path)
        case .bridged(let bridge, let inner):
            return try bridge.prefValue(from: inner.value(path: path), path: path)
        }
    }

    /// A member's value: a nil one cannot be stored.
    func member(path: [any CodingKey]) throws -> PrefValue {
        guard let value = try value(path: path) else {
            throw PrefCodingError(path: path, reason: "nil cannot be stored inside a property list")
        }
        return value
    }

    /// The slot of `key` in this keyed container (a key encoded again replaces the first).
    func member(_ key: String) -> EncodingSlot {
        let slot = EncodingSlot()
        content = .keyed
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].slot = slot
        } else {
            members.append((key, slot))
        }
        return slot
    }

    /// A new element's slot in this unkeyed container.
    func appended() -> EncodingSlot {
        content = .unkeyed
        if elements.isEmpty && !bytes.isEmpty {
            elements = bytes.map { byte in
                let slot = EncodingSlot()
                slot.set(integer: byte)
                return slot
            }
            bytes = []
        }
        let slot = EncodingSlot()
        elements.append(slot)
        return slot
    }

    /// A `UInt8` element, kept as a byte while every element is one.
    func append(byte: UInt8) {
        if elements.isEmpty {
            content = .unkeyed
            bytes.append(byte)
        } else {
            appended().set(integer: byte)
        }
    }
}

/// A coding key for dictionary keys and array indices.
struct PrefCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) { (stringValue, intValue) = (string, nil) }
    init(_ index: Int) { (stringValue, intValue) = (String(index), index) }
    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(intValue) }
}

/// Why a value could not be encoded or decoded, and where in it (`retries`, `window.frames.0`).
struct PrefCodingError: Error {
    let path: [any CodingKey]
    let reason: String

    var place: String { path.map(\.stringValue).joined(separator: ".") }
}

/// The `Encoder` handed to `encode(to:)`: its containers write into `slot`.
struct SlotEncoder: Encoder {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = slot.content { slot.content = .keyed }
        return KeyedEncodingContainer(KeyedSlotContainer<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .empty = slot.content { slot.content = .unkeyed }
        return UnkeyedSlotContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleSlotContainer(slot: slot, codingPath: codingPath) }
}
