/// Writes `bplist00` documents: the top object first, equal scalars (strings, numbers, dates, data,
/// UIDs) stored once and shared, and the smallest integer, reference and offset widths that fit.
package enum BinaryPlistEncoder {
    package static func encode(_ value: PrefValue) throws -> [UInt8] {
        var writer = BinaryPlistWriter()
        let count = BinaryPlistWriter.countObjects(value)
        writer.objects.reserveCapacity(count)
        writer.shared.reserveCapacity(count)
        _ = try writer.flatten(value, depth: 0)
        return writer.serialize()
    }
}

struct BinaryPlistWriter {
    enum Object {
        case scalar(PrefValue)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    /// Identity of a scalar for sharing: strings by bytes, reals and dates by bit pattern.
    enum ScalarKey: Hashable {
        case string(ExactString), integer(Int64), unsigned(UInt64), real(UInt64), bool(Bool)
        case date(UInt64), data([UInt8]), uid(UInt64)
    }

    var objects: [Object] = []
    var shared: [ScalarKey: Int] = [:]
    /// The number of the first object this writer adds (non-zero when appending to a document).
    var indexBase = 0

    mutating func flatten(_ value: PrefValue, depth: Int) throws -> Int {
        switch value {
        case .array(let elements):
            try EncodingChecks.depth(depth, format: .binary)
            let index = reserve()
            var refs = [Int]()
            refs.reserveCapacity(elements.count)
            for (i, element) in elements.enumerated() {
                refs.append(try PrefKeyPath.locating(String(i)) { try flatten(element, depth: depth + 1) })
            }
            objects[index - indexBase] = .array(refs)
            return index
        case .dictionary(let dictionary):
            try EncodingChecks.depth(depth, format: .binary)
            let index = reserve()
            var keys = [Int](), values = [Int]()
            keys.reserveCapacity(dictionary.count)
            values.reserveCapacity(dictionary.count)
            for entry in dictionary { keys.append(try flatten(.string(entry.key), depth: depth + 1)) }
            for entry in dictionary {
                values.append(try PrefKeyPath.locating(entry.key) { try flatten(entry.value, depth: depth + 1) })
            }
            objects[index - indexBase] = .dictionary(keys: keys, values: values)
            return index
        default:
            try EncodingChecks.date(value, format: .binary)
            let key = BinaryPlistWriter.scalarKey(value)
            if let existing = shared[key] { return existing }
            objects.append(.scalar(value))
            shared[key] = indexBase + objects.count - 1
            return indexBase + objects.count - 1
        }
    }

    /// An upper bound of the objects `value` flattens to (every key and value counted once).
    static func countObjects(_ value: PrefValue) -> Int {
        switch value {
        case .array(let elements): return elements.reduce(1) { $0 + countObjects($1) }
        case .dictionary(let d): return d.reduce(1) { $0 + 1 + countObjects($1.value) }
        default: return 1
        }
    }

    mutating func reserve() -> Int {
        objects.append(.array([]))
        return indexBase + objects.count - 1
    }

    static func scalarKey(_ value: PrefValue) -> ScalarKey {
        switch value {
        case .string(let s): return .string(ExactString(s))
        case .integer(let i): return .integer(i)
        case .unsignedInteger(let u): return .unsigned(u)
        case .real(let r): return .real(r.bitPattern)
        case .bool(let b): return .bool(b)
        case .date(let d): return .date(d.secondsSinceReferenceDate.bitPattern)
        case .data(let d): return .data(d)
        case .uid(let u): return .uid(u)
        case .array, .dictionary: preconditionFailure("containers are never shared")
        }
    }

    /// The fewest bytes (1, 2, 4 or 8) that hold `value`.
    static func width(_ value: UInt64) -> Int {
        value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : value < 1 << 32 ? 4 : 8
    }

    func serialize() -> [UInt8] {
        let refSize = BinaryPlistWriter.width(UInt64(objects.count))
        var out = [UInt8]()
        out.reserveCapacity(64 + objects.count * 8)
        out.append(contentsOf: "bplist00".utf8)
        var offsets = [Int]()
        offsets.reserveCapacity(objects.count)
        appendObjects(to: &out, refSize: refSize, offsets: &offsets)
        BinaryPlistWriter.appendTable(offsets, to: &out, refSize: refSize, top: 0)
        return out
    }

    /// Writes this writer's objects at the end of `out`, recording where each starts.
    /// Appends the objects to `out`, which starts at file offset `base`, and their offsets to `offsets`.
    func appendObjects(to out: inout [UInt8], base: Int = 0, refSize: Int, offsets: inout [Int]) {
        for object in objects {
            offsets.append(base + out.count)
            switch object {
            case .scalar(let value): BinaryPlistWriter.appendScalar(value, to: &out)
            case .array(let refs):
                BinaryPlistWriter.appendHeader(0xA0, count: refs.count, to: &out)
                for ref in refs { BinaryPlistWriter.appendUInt(UInt64(ref), width: refSize, to: &out) }
            case .dictionary(let keys, let values):
                BinaryPlistWriter.appendHeader(0xD0, count: keys.count, to: &out)
                for ref in keys { BinaryPlistWriter.appendUInt(UInt64(ref), width: refSize, to: &out) }
                for ref in values { BinaryPlistWriter.appendUInt(UInt64(ref), width: refSize, to: &out) }
            }
        }
    }

    /// Appends the offset table and the trailer. CoreFoundation requires the offset width to hold the
    /// table's own offset, not only the largest object offset (CPython sizes it the same way).
    static func appendTable(_ offsets: [Int], to out: inout [UInt8], refSize: Int, top: Int) {
        let tableOffset = out.count
        let offsetSize = width(UInt64(tableOffset))
        for offset in offsets { appendUInt(UInt64(offset), width: offsetSize, to: &out) }
        appendTrailer(objectCount: offsets.count, offsetSize: offsetSize, refSize: refSize, top: top, tableOffset: tableOffset, to: &out)
    }

    /// The 32-byte trailer.
    static func appendTrailer(objectCount: Int, offsetSize: Int, refSize: Int, top: Int, tableOffset: Int, to out: inout [UInt8]) {
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
        appendUInt(UInt64(objectCount), width: 8, to: &out)
        appendUInt(UInt64(top), width: 8, to: &out)
        appendUInt(UInt64(tableOffset), width: 8, to: &out)
    }

    @inline(__always)
    static func appendUInt(_ value: UInt64, width: Int, to out: inout [UInt8]) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    /// A marker with the count in its low nibble, or 0xF and an integer object after it.
    static func appendHeader(_ marker: UInt8, count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            let width = BinaryPlistWriter.width(UInt64(count))
            out.append(0x10 | UInt8(width.trailingZeroBitCount))
            appendUInt(UInt64(count), width: width, to: &out)
        }
    }

    static func appendScalar(_ value: PrefValue, to out: inout [UInt8]) {
        switch value {
        case .bool(let b): out.append(b ? 0x09 : 0x08)
        case .integer(let i) where i >= 0:
            let width = BinaryPlistWriter.width(UInt64(i))
            out.append(0x10 | UInt8(width.trailingZeroBitCount))
            appendUInt(UInt64(i), width: width, to: &out)
        case .integer(let i):
            out.append(0x13)
            appendUInt(UInt64(bitPattern: i), width: 8, to: &out)
        case .unsignedInteger(let u):
            out.append(0x14)
            appendUInt(0, width: 8, to: &out)
            appendUInt(u, width: 8, to: &out)
        case .real(let r):
            out.append(0x23)
            appendUInt(r.bitPattern, width: 8, to: &out)
        case .date(let d):
            out.append(0x33)
            appendUInt(d.secondsSinceReferenceDate.bitPattern, width: 8, to: &out)
        case .data(let bytes):
            appendHeader(0x40, count: bytes.count, to: &out)
            out.append(contentsOf: bytes)
        case .string(let s):
            appendString(s, to: &out)
        case .uid(let u):
            let width = BinaryPlistWriter.width(u)
            out.append(0x80 | UInt8(width - 1))
            appendUInt(u, width: width, to: &out)
        case .array, .dictionary:
            preconditionFailure("containers are written by serialize()")
        }
    }

    static func appendString(_ string: String, to out: inout [UInt8]) {
        var s = string
        let ascii = s.withUTF8 { buffer in !buffer.contains(where: { $0 >= 0x80 }) }
        if ascii {
            appendHeader(0x50, count: s.utf8.count, to: &out)
            out.append(contentsOf: s.utf8)
        } else {
            appendHeader(0x60, count: s.utf16.count, to: &out)
            for unit in s.utf16 {
                out.append(UInt8(unit >> 8))
                out.append(UInt8(truncatingIfNeeded: unit))
            }
        }
    }
}
