extension BinaryPlistParser {
    /// An object as its marker describes it, with every check that needs no look at other objects
    /// done (sizes, ranges, ASCII, dates); UTF-16 text is checked when it is read or validated.
    enum Object {
        case scalar(PrefValue)
        case data(first: Int, count: Int)
        case ascii(first: Int, count: Int)
        case utf16(first: Int, units: Int)
        case array(count: Int, refsAt: Int)
        case dictionary(count: Int, refsAt: Int)
    }

    func object(ref: Int, at start: Int) throws -> Object {
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        let place = Place(ref: ref, byte: start)
        switch marker >> 4 {
        case 0x0:
            switch low {
            case 0x8: return .scalar(.bool(false))
            case 0x9: return .scalar(.bool(true))
            case 0x0: throw BinaryPlistParser.failure("\(place): null has no property-list value")
            default: throw BinaryPlistParser.failure("\(place): unknown marker 0x\(String(marker, radix: 16))")
            }
        case 0x1:
            return .scalar(try integer(at: start + 1, widthCode: low, place: place))
        case 0x2:
            let width = low == 2 ? 4 : low == 3 ? 8 : 0
            guard width > 0 else { throw BinaryPlistParser.failure("\(place): real of unsupported size code \(low)") }
            let raw = try fixed(at: start + 1, width: width, place: place)
            return .scalar(.real(width == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw)))
        case 0x3:
            guard low == 3 else { throw BinaryPlistParser.failure("\(place): date of unsupported size code \(low)") }
            let date = PrefDate(secondsSinceReferenceDate: Double(bitPattern: try fixed(at: start + 1, width: 8, place: place)))
            guard date.isInSupportedRange else {
                throw BinaryPlistParser.failure("\(place): date \(date.secondsSinceReferenceDate) is outside the years 0001–9999")
            }
            return .scalar(.date(date))
        case 0x4:
            let (count, first) = try length(marker: marker, at: start, elementSize: 1, place: place)
            return .data(first: first, count: count)
        case 0x5:
            let (count, first) = try length(marker: marker, at: start, elementSize: 1, place: place)
            guard !UnsafeBufferPointer(rebasing: bytes[first..<first + count]).contains(where: { $0 >= 0x80 }) else {
                throw BinaryPlistParser.failure("\(place): ASCII string contains a non-ASCII byte")
            }
            return .ascii(first: first, count: count)
        case 0x6:
            let (count, first) = try length(marker: marker, at: start, elementSize: 2, place: place)
            return .utf16(first: first, units: count)
        case 0x8:
            guard low < 8 else { throw BinaryPlistParser.failure("\(place): UID wider than 8 bytes") }
            return .scalar(.uid(try fixed(at: start + 1, width: low + 1, place: place)))
        case 0xA:
            let (count, first) = try length(marker: marker, at: start, elementSize: refSize, place: place)
            return .array(count: count, refsAt: first)
        case 0xD:
            let (count, first) = try length(marker: marker, at: start, elementSize: 2 * refSize, place: place)
            return .dictionary(count: count, refsAt: first)
        default:
            throw BinaryPlistParser.failure("\(place): unsupported object type 0x\(String(marker, radix: 16))")
        }
    }

    /// Decodes the object whose marker byte is at `start`; returns it and its expanded value count.
    mutating func decodeObject(ref: Int, at start: Int, depth: Int) throws -> (PrefValue, Int) {
        switch try object(ref: ref, at: start) {
        case .scalar(let value): return (value, 1)
        case .data(let first, let count): return (.data(Array(bytes[first..<first + count])), 1)
        case .ascii(let first, let count):
            return (.string(String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<first + count]), as: UTF8.self)), 1)
        case .utf16(let first, let units):
            return (.string(try utf16String(at: first, units: units, place: Place(ref: ref, byte: start))), 1)
        case .array(let count, let first): return try array(count: count, refsAt: first, depth: depth)
        case .dictionary(let count, let first):
            return try dictionary(count: count, refsAt: first, depth: depth, place: Place(ref: ref, byte: start))
        }
    }

    /// `width` bytes after `index`, big-endian, within the object area.
    func fixed(at index: Int, width: Int, place: Place) throws -> UInt64 {
        guard index + width <= offsetTable else { throw BinaryPlistParser.failure("\(place): runs past the object area") }
        return BinaryPlistParser.readUInt(bytes, at: index, width: width)
    }

    func integer(at index: Int, widthCode: Int, place: Place) throws -> PrefValue {
        switch widthCode {
        case 0, 1, 2: return .integer(Int64(try fixed(at: index, width: 1 << widthCode, place: place)))
        case 3: return .integer(Int64(bitPattern: try fixed(at: index, width: 8, place: place)))
        case 4:
            let high = Int64(bitPattern: try fixed(at: index, width: 8, place: place))
            let low = try fixed(at: index + 8, width: 8, place: place)
            if high == 0 { return .unsigned(low) }
            if high == -1 && low >= 1 << 63 { return .integer(Int64(bitPattern: low)) }
            throw BinaryPlistParser.failure("\(place): 128-bit integer outside the 64-bit range")
        default:
            throw BinaryPlistParser.failure("\(place): integer of unsupported size code \(widthCode)")
        }
    }

    /// The element count of a data/string/container object and where its payload starts, checked so
    /// that `count * elementSize` bytes fit in the object area.
    func length(marker: UInt8, at start: Int, elementSize: Int, place: Place) throws -> (Int, Int) {
        var count = UInt64(marker & 0x0F)
        var first = start + 1
        if count == 0x0F {
            guard first < offsetTable, bytes[first] >> 4 == 0x1, bytes[first] & 0x0F <= 3 else {
                throw BinaryPlistParser.failure("\(place): length is not a 1–8 byte integer")
            }
            let width = 1 << Int(bytes[first] & 0x0F)
            count = try fixed(at: first + 1, width: width, place: place)
            first += 1 + width
        }
        let available = UInt64(offsetTable - first)
        guard count <= available / UInt64(elementSize) else {
            throw BinaryPlistParser.failure("\(place): length \(count) runs past the object area")
        }
        return (Int(count), first)
    }

    /// Big-endian UTF-16 transcoded straight into a String's UTF-8 storage; an unpaired surrogate
    /// is an error (never replaced).
    func utf16String(at first: Int, units: Int, place: Place) throws -> String {
        var valid = true
        let string = String(unsafeUninitializedCapacity: units * 3) { out in
            var written = 0
            var i = 0
            while i < units {
                let unit = UInt32(bytes[first + 2 * i]) << 8 | UInt32(bytes[first + 2 * i + 1])
                i += 1
                var scalar = unit
                if unit >= 0xD800 && unit <= 0xDFFF {
                    guard unit <= 0xDBFF, i < units else { valid = false; return 0 }
                    let low = UInt32(bytes[first + 2 * i]) << 8 | UInt32(bytes[first + 2 * i + 1])
                    guard low >= 0xDC00 && low <= 0xDFFF else { valid = false; return 0 }
                    i += 1
                    scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                }
                written += UTF8Writer.write(scalar, into: out, at: written)
            }
            return written
        }
        guard valid else { throw BinaryPlistParser.failure("\(place): UTF-16 string has an unpaired surrogate") }
        return string
    }

    func ref(at index: Int) throws -> Int {
        let ref = BinaryPlistParser.readUInt(bytes, at: index, width: refSize)
        guard ref < UInt64(objectCount) else {
            throw BinaryPlistParser.failure("reference \(ref) at byte \(index) is not below the object count \(objectCount)")
        }
        return Int(ref)
    }

    mutating func child(ref: Int, depth: Int, total: inout Int) throws -> PrefValue {
        let (value, size) = try value(ref: ref, depth: depth + 1)
        total += size
        guard total <= DecodingLimits.maxExpandedValues else {
            throw BinaryPlistParser.failure("shared objects expand to more than \(DecodingLimits.maxExpandedValues) values")
        }
        return value
    }

    func checkDepth(_ depth: Int) throws {
        guard depth < DecodingLimits.maxDepth else {
            throw BinaryPlistParser.failure("containers nested deeper than \(DecodingLimits.maxDepth) levels")
        }
    }

    mutating func array(count: Int, refsAt first: Int, depth: Int) throws -> (PrefValue, Int) {
        try checkDepth(depth)
        var elements = [PrefValue]()
        elements.reserveCapacity(count)
        var total = 1
        for i in 0..<count {
            elements.append(try child(ref: try ref(at: first + i * refSize), depth: depth, total: &total))
        }
        return (.array(elements), total)
    }

    mutating func dictionary(count: Int, refsAt first: Int, depth: Int, place: Place) throws -> (PrefValue, Int) {
        try checkDepth(depth)
        var entries = [PrefDictionary.Entry]()
        entries.reserveCapacity(count)
        var total = 1
        for i in 0..<count {
            let keyRef = try ref(at: first + i * refSize)
            guard case .string(let key) = try child(ref: keyRef, depth: depth, total: &total) else {
                throw BinaryPlistParser.failure("\(place): dictionary key (object \(keyRef)) is not a string")
            }
            let value = try child(ref: try ref(at: first + (count + i) * refSize), depth: depth, total: &total)
            entries.append(PrefDictionary.Entry(key: key, value: value))
        }
        return (.dictionary(PrefDictionary(unsortedEntries: entries)), total)
    }
}

/// Where an object is, for error messages (formatted only when an error is thrown).
struct Place: CustomStringConvertible {
    let ref: Int
    let byte: Int
    var description: String { "object \(ref) at byte \(byte)" }
}
