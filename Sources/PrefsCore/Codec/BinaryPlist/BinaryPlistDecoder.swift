/// Reads `bplist00` documents.
///
/// Every width, offset, reference, count and size is checked against the file before it is used, so
/// no allocation is sized by an unchecked number. A container that contains itself is an error; shared
/// objects (a DAG, which is legal) are decoded once and reused, and the expanded tree is capped so a
/// few hundred bytes cannot describe billions of values.
public enum BinaryPlistDecoder {
    public static func decode(_ bytes: [UInt8]) throws -> PrefValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = try BinaryPlistParser(buffer)
            return try parser.value(ref: parser.topObject, depth: 0)
        }
    }
}

/// Limits shared by all decoders.
public enum DecodingLimits {
    /// Containers nested deeper than this are refused (JSONTestSuite's 500 levels pass).
    public static let maxDepth = 512
    /// The most values a binary plist may expand to once shared objects are counted at each use.
    public static let maxExpandedValues = 1 << 24
}

struct BinaryPlistParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTable: Int
    /// Decoded objects, filled as they are reached; `sizes` holds each one's expanded value count.
    var cache: [PrefValue?]
    var sizes: [Int]
    var inProgress: [Bool]

    init(_ bytes: UnsafeBufferPointer<UInt8>) throws {
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
        cache = Array(repeating: nil, count: objectCount)
        sizes = Array(repeating: 0, count: objectCount)
        inProgress = Array(repeating: false, count: objectCount)
    }

    static func failure(_ reason: String) -> PrefsError {
        .malformed(source: nil, format: .binary, reason: reason)
    }

    static func readUInt64(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt64 {
        readUInt(bytes, at: index, width: 8)
    }

    @inline(__always)
    static func readUInt(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in index..<index + width { value = value << 8 | UInt64(bytes[i]) }
        return value
    }

    func offset(of ref: Int) throws -> Int {
        let offset = BinaryPlistParser.readUInt(bytes, at: offsetTable + ref * offsetSize, width: offsetSize)
        guard offset >= 8, offset < UInt64(offsetTable) else {
            throw BinaryPlistParser.failure("object \(ref): offset \(offset) is outside the object area (8..<\(offsetTable))")
        }
        return Int(offset)
    }

    /// The value of object `ref`, decoding it on first use.
    mutating func value(ref: Int, depth: Int) throws -> PrefValue {
        if let cached = cache[ref] { return cached }
        guard !inProgress[ref] else { throw BinaryPlistParser.failure("object \(ref) contains itself") }
        inProgress[ref] = true
        defer { inProgress[ref] = false }
        let start = try offset(of: ref)
        let (value, size) = try decodeObject(ref: ref, at: start, depth: depth)
        cache[ref] = value
        sizes[ref] = size
        return value
    }
}
