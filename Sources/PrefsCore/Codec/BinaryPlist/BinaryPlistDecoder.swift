/// Reads `bplist00` documents.
///
/// Every width, offset, reference, count and size is checked against the file before it is used, so
/// no allocation is sized by an unchecked number. A container that contains itself is an error; shared
/// objects (a DAG, which is legal) are decoded once and reused, and the expanded tree is capped so a
/// few hundred bytes cannot describe billions of values.
package enum BinaryPlistDecoder {
    package static func decode(_ bytes: [UInt8]) throws -> PrefValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = try BinaryPlistParser(buffer, decodingWhole: true)
            return try parser.value(ref: parser.topObject, depth: 0).value
        }
    }

    /// The value of one top-level key, reading only what leads to it (see `BinaryPlistParser.lookup`).
    package static func lookup(_ key: String, in bytes: UnsafeBufferPointer<UInt8>) throws -> PrefValue? {
        var parser = try BinaryPlistParser(bytes, decodingWhole: false)
        return try parser.lookup(key)
    }
}

/// Limits shared by all decoders.
package enum DecodingLimits {
    /// Containers nested deeper than this are refused (JSONTestSuite's 500 levels pass).
    package static let maxDepth = 512
    /// The most values a binary plist may expand to once shared objects are counted at each use.
    package static let maxExpandedValues = 1 << 24
}

struct BinaryPlistParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTable: Int
    var memo: DecodeMemo

    init(_ bytes: UnsafeBufferPointer<UInt8>, decodingWhole: Bool) throws {
        self.bytes = bytes
        let count = bytes.count
        guard count >= 8 + 1 + 1 + 32 else { throw BinaryPlistParser.failure("file too short (\(count) bytes)") }
        guard bytes.starts(with: "bplist00".utf8) else {
            throw BinaryPlistParser.failure("unsupported header \"\(String(decoding: bytes[0..<8], as: UTF8.self))\"; only bplist00 is supported")
        }
        let trailer = count - 32
        offsetSize = Int(bytes[trailer + 6])
        refSize = Int(bytes[trailer + 7])
        let objects = BinaryPlistParser.readUInt64(bytes, at: trailer + 8)
        let top = BinaryPlistParser.readUInt64(bytes, at: trailer + 16)
        let table = BinaryPlistParser.readUInt64(bytes, at: trailer + 24)
        guard (1...8).contains(offsetSize) else { throw BinaryPlistParser.failure("trailer: offset size \(offsetSize) is not 1–8") }
        guard (1...8).contains(refSize) else { throw BinaryPlistParser.failure("trailer: reference size \(refSize) is not 1–8") }
        guard objects >= 1, objects <= UInt64(trailer) else {
            throw BinaryPlistParser.failure("trailer: object count \(objects) does not fit the file")
        }
        guard top < objects else { throw BinaryPlistParser.failure("trailer: top object \(top) is not below the object count \(objects)") }
        guard table >= 9, table < UInt64(trailer) else {
            throw BinaryPlistParser.failure("trailer: offset table at byte \(table) is outside the file")
        }
        let (tableBytes, overflow) = objects.multipliedReportingOverflow(by: UInt64(offsetSize))
        guard !overflow, tableBytes <= UInt64(count) - table else {
            throw BinaryPlistParser.failure("trailer: offset table of \(objects) entries runs past the end of the file")
        }
        if refSize < 8 && objects > (UInt64(1) << (8 * UInt64(refSize))) {
            throw BinaryPlistParser.failure("trailer: \(objects) objects cannot be addressed with \(refSize)-byte references")
        }
        objectCount = Int(objects)
        topObject = Int(top)
        offsetTable = Int(table)
        memo = DecodeMemo(objectCount: objectCount, dense: decodingWhole || objectCount <= DecodeMemo.alwaysDense)
        try checkOffsetTable()
    }

    /// Every entry of the offset table points into the object area, used or not (a reader that
    /// looks at only some objects then accepts exactly the files a full decode accepts).
    func checkOffsetTable() throws {
        var highest: UInt64 = 0, lowest = UInt64.max
        for ref in 0..<objectCount {
            let offset = BinaryPlistParser.readUInt(bytes, at: offsetTable + ref * offsetSize, width: offsetSize)
            highest = Swift.max(highest, offset)
            lowest = Swift.min(lowest, offset)
        }
        if lowest < 8 || highest >= UInt64(offsetTable) {
            for ref in 0..<objectCount { _ = try offset(of: ref) }  // names the first bad entry
        }
    }

    static func failure(_ reason: String) -> PrefsError {
        .malformed(source: nil, format: .binary, reason: reason)
    }

    static func readUInt64(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt64 {
        readUInt(bytes, at: index, width: 8)
    }

    /// A big-endian unsigned integer of `width` bytes; the caller has checked the range.
    @inline(__always)
    static func readUInt(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, width: Int) -> UInt64 {
        let pointer = UnsafeRawPointer(bytes.baseAddress! + index)
        switch width {
        case 1: return UInt64(pointer.load(as: UInt8.self))
        case 2: return UInt64(UInt16(bigEndian: pointer.loadUnaligned(as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: pointer.loadUnaligned(as: UInt32.self)))
        case 8: return UInt64(bigEndian: pointer.loadUnaligned(as: UInt64.self))
        default:
            var value: UInt64 = 0
            for i in index..<index + width { value = value << 8 | UInt64(bytes[i]) }
            return value
        }
    }

    func offset(of ref: Int) throws -> Int {
        let offset = BinaryPlistParser.readUInt(bytes, at: offsetTable + ref * offsetSize, width: offsetSize)
        guard offset >= 8, offset < UInt64(offsetTable) else {
            throw BinaryPlistParser.failure("object \(ref): offset \(offset) is outside the object area (8..<\(offsetTable))")
        }
        return Int(offset)
    }

    /// The value of object `ref` and its expanded value count, decoding it on first use.
    mutating func value(ref: Int, depth: Int) throws -> (value: PrefValue, size: Int) {
        if let cached = memo.cached(ref) { return cached }
        guard !memo.isBusy(ref) else { throw BinaryPlistParser.failure("object \(ref) contains itself") }
        memo.setBusy(ref, true)
        defer { memo.setBusy(ref, false) }
        let start = try offset(of: ref)
        let (value, size) = try decodeObject(ref: ref, at: start, depth: depth)
        memo.store(ref, value, size: size)
        return (value, size)
    }
}

/// What the decoder remembers per object: each decoded object (so shared objects are decoded once),
/// its expanded value count, and whether it is being decoded (to catch a container that contains
/// itself). Dense arrays when a whole document is decoded, or a small one; dictionaries when only one
/// value of a large document is.
struct DecodeMemo {
    /// Up to this many objects the arrays are used even for one value: they cost a few kilobytes,
    /// where the first `Set<Int>` and `Dictionary<Int, …>` of a run cost about 70k instructions each
    /// (the runtime looks for `Int`'s `Hashable` conformance through every record of the binary).
    static let alwaysDense = 1024

    private let dense: Bool
    private var values: [PrefValue?] = []
    private var sizes: [Int] = []
    private var busy: [Bool] = []
    private var sparse: [Int: (PrefValue, Int)] = [:]
    private var sparseBusy: Set<Int> = []

    init(objectCount: Int, dense: Bool) {
        self.dense = dense
        if dense {
            values = Array(repeating: nil, count: objectCount)
            sizes = Array(repeating: 0, count: objectCount)
            busy = Array(repeating: false, count: objectCount)
        }
    }

    func cached(_ ref: Int) -> (value: PrefValue, size: Int)? {
        if dense { return values[ref].map { ($0, sizes[ref]) } }
        return sparse[ref].map { ($0.0, $0.1) }
    }

    mutating func store(_ ref: Int, _ value: PrefValue, size: Int) {
        if dense {
            values[ref] = value
            sizes[ref] = size
        } else {
            sparse[ref] = (value, size)
        }
    }

    func isBusy(_ ref: Int) -> Bool { dense ? busy[ref] : sparseBusy.contains(ref) }

    mutating func setBusy(_ ref: Int, _ flag: Bool) {
        if dense {
            busy[ref] = flag
        } else if flag {
            sparseBusy.insert(ref)
        } else {
            sparseBusy.remove(ref)
        }
    }
}
