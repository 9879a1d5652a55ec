/// The encoding containers of `PrefValueEncoder`: each writes into an `EncodingSlot`.
extension EncodingSlot {
    func set(_ value: PrefValue) { content = .value(value) }

    func set<T: BinaryInteger>(integer value: T) {
        content = .value(value < 0 ? .integer(Int64(value)) : .unsigned(UInt64(value)))
    }
}

struct KeyedSlotContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    mutating func encodeNil(forKey key: Key) throws { slot.member(key.stringValue).content = .null }
    mutating func encode(_ value: Bool, forKey key: Key) throws { slot.member(key.stringValue).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { slot.member(key.stringValue).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { slot.member(key.stringValue).set(.real(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { slot.member(key.stringValue).set(.real(Double(value))) }
    mutating func encode(_ value: Int, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { slot.member(key.stringValue).set(integer: value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try slot.member(key.stringValue).store(value, path: path(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        SlotEncoder(slot: slot.member(key.stringValue), codingPath: path(key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        SlotEncoder(slot: slot.member(key.stringValue), codingPath: path(key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        SlotEncoder(slot: slot.member("super"), codingPath: codingPath + [PrefCodingKey("super")])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        SlotEncoder(slot: slot.member(key.stringValue), codingPath: path(key))
    }
}

struct UnkeyedSlotContainer: UnkeyedEncodingContainer {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    var count: Int { slot.elements.isEmpty ? slot.bytes.count : slot.elements.count }

    var nextPath: [any CodingKey] { codingPath + [PrefCodingKey(count)] }

    mutating func encodeNil() throws { slot.appended().content = .null }
    mutating func encode(_ value: Bool) throws { slot.appended().set(.bool(value)) }
    mutating func encode(_ value: String) throws { slot.appended().set(.string(value)) }
    mutating func encode(_ value: Double) throws { slot.appended().set(.real(value)) }
    mutating func encode(_ value: Float) throws { slot.appended().set(.real(Double(value))) }
    mutating func encode(_ value: Int) throws { slot.appended().set(integer: value) }
    mutating func encode(_ value: Int8) throws { slot.appended().set(integer: value) }
    mutating func encode(_ value: Int16) throws { slot.appended().set(integer: value) }
    mutating func encode(_ value: Int32) throws { slot.appended().set(integer: value) }
    mutating func encode(_ value: Int64) throws { slot.appended().set(integer: value) }
    mutating func encode(_ value: UInt) throws { slot.appended().set(integer: value) }
    mutating func encode(_ value: UInt8) throws { slot.append(byte: value) }
    mutating func encode(_ value: UInt16) throws { slot.appended().set(integer: value) }
    mutating func encode(_ value: UInt32) throws { slot.appended().set(integer: value) }
    mutating func encode(_ value: UInt64) throws { slot.appended().set(integer: value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try slot.appended().store(value, path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        return SlotEncoder(slot: slot.appended(), codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return SlotEncoder(slot: slot.appended(), codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return SlotEncoder(slot: slot.appended(), codingPath: path)
    }
}

struct SingleSlotContainer: SingleValueEncodingContainer {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.content = .null }
    mutating func encode(_ value: Bool) throws { slot.set(.bool(value)) }
    mutating func encode(_ value: String) throws { slot.set(.string(value)) }
    mutating func encode(_ value: Double) throws { slot.set(.real(value)) }
    mutating func encode(_ value: Float) throws { slot.set(.real(Double(value))) }
    mutating func encode(_ value: Int) throws { slot.set(integer: value) }
    mutating func encode(_ value: Int8) throws { slot.set(integer: value) }
    mutating func encode(_ value: Int16) throws { slot.set(integer: value) }
    mutating func encode(_ value: Int32) throws { slot.set(integer: value) }
    mutating func encode(_ value: Int64) throws { slot.set(integer: value) }
    mutating func encode(_ value: UInt) throws { slot.set(integer: value) }
    mutating func encode(_ value: UInt8) throws { slot.set(integer: value) }
    mutating func encode(_ value: UInt16) throws { slot.set(integer: value) }
    mutating func encode(_ value: UInt32) throws { slot.set(integer: value) }
    mutating func encode(_ value: UInt64) throws { slot.set(integer: value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try slot.store(value, path: codingPath) }
}
