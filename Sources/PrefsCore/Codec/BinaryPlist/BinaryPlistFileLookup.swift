import CPrefsSystem
/// Reading one top-level key of a binary plist through a `FileReader`, with memory that does not grow
/// with the file: the format allows random access, so only the trailer, the offset table (read through
/// in pieces and checked whole, as `BinaryPlistParser.init` checks it), the top dictionary's key
/// references the binary search visits, those keys, and the objects of the value asked for are read.
/// The checks are the in-memory lookup's (`BinaryPlistParser.lookup`): the value is decoded by
/// `BinaryPlistDecoder` itself, from a small document made of its objects (see `extract`). Anything
/// that check would refuse makes it `Undecided`, and the caller reads the file whole for the exact
/// error.
struct BinaryPlistFileLookup {
    let blocks: CachedFileBlocks
    let size: Int
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTable: Int

    static func lookup(_ key: String, in reader: FileReader) throws -> PrefValue? {
        var file = try BinaryPlistFileLookup(reader)
        return try file.lookup(key)
    }

    /// The trailer's checks, then every offset-table entry's.
    init(_ reader: FileReader) throws {
        size = reader.size
        guard size >= 8 + 1 + 1 + 32, let header = try reader.bytes(at: 0, count: 8), header.elementsEqual("bplist00".utf8),
            let trailer = try reader.bytes(at: size - 32, count: 32)
        else { throw Undecided() }
        func number(_ at: Int) -> UInt64 { trailer[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        offsetSize = Int(trailer[6])
        refSize = Int(trailer[7])
        let objects = number(8), top = number(16), table = number(24)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize), objects >= 1, objects <= UInt64(size - 32), top < objects,
            table >= 9, table < UInt64(size - 32)
        else { throw Undecided() }
        let (tableBytes, overflow) = objects.multipliedReportingOverflow(by: UInt64(offsetSize))
        guard !overflow, tableBytes <= UInt64(size) - table, refSize == 8 || objects <= UInt64(1) << (8 * UInt64(refSize)) else {
            throw Undecided()
        }
        objectCount = Int(objects)
        topObject = Int(top)
        offsetTable = Int(table)
        blocks = CachedFileBlocks(reader)
        try checkOffsetTable(reader)
    }

    /// Every entry points into the object area (8..<offsetTable), read 64 KiB at a time.
    func checkOffsetTable(_ reader: FileReader) throws {
        let chunk = (65536 / offsetSize) * offsetSize
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var position = offsetTable
        let end = offsetTable + objectCount * offsetSize
        var lowest = UInt64.max, highest: UInt64 = 0
        while position < end {
            let wanted = Swift.min(chunk, end - position)
            guard try reader.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted])) == wanted else { throw Undecided() }
            let (low, high) = BinaryPlistFileLookup.range(of: UnsafeRawBufferPointer(rebasing: buffer[..<wanted]), width: offsetSize)
            lowest = Swift.min(lowest, low)
            highest = Swift.max(highest, high)
            position += wanted
        }
        guard lowest >= 8, highest < UInt64(offsetTable) else { throw Undecided() }
    }

    /// The smallest and largest of the big-endian numbers of `width` bytes that fill `bytes`.
    static func range(of bytes: UnsafeRawBufferPointer, width: Int) -> (UInt64, UInt64) {
        var lowest = UInt64.max, highest: UInt64 = 0
        let base = bytes.baseAddress!
        let count = bytes.count / width
        switch width {
        case 1:
            for i in 0..<count { let v = UInt64(base.load(fromByteOffset: i, as: UInt8.self)); lowest = Swift.min(lowest, v); highest = Swift.max(highest, v) }
        case 2:
            for i in 0..<count {
                let v = UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)))
                lowest = Swift.min(lowest, v); highest = Swift.max(highest, v)
            }
        case 3:
            for i in 0..<count {
                let p = 3 * i
                let v = UInt64(base.load(fromByteOffset: p, as: UInt8.self)) << 16 | UInt64(base.load(fromByteOffset: p + 1, as: UInt8.self)) << 8
                    | UInt64(base.load(fromByteOffset: p + 2, as: UInt8.self))
                lowest = Swift.min(lowest, v); highest = Swift.max(highest, v)
            }
        case 4:
            var low: UInt32 = 0, high: UInt32 = 0
            prefs_be32_range(base.assumingMemoryBound(to: UInt8.self), count, &low, &high)
            if count > 0 { (lowest, highest) = (UInt64(low), UInt64(high)) }
        default:
            for i in 0..<count {
                var v: UInt64 = 0
                for j in 0..<width { v = v << 8 | UInt64(base.load(fromByteOffset: width * i + j, as: UInt8.self)) }
                lowest = Swift.min(lowest, v); highest = Swift.max(highest, v)
            }
        }
        return (lowest, highest)
    }

    /// A big-endian number of `width` bytes at `offset`.
    mutating func number(at offset: Int, width: Int) throws -> UInt64 {
        guard let bytes = try blocks.bytes(at: offset, count: width) else { throw Undecided() }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func offset(of ref: Int) throws -> Int {
        Int(try number(at: offsetTable + ref * offsetSize, width: offsetSize))  // checked with the whole table
    }

    mutating func ref(at position: Int) throws -> Int {
        let ref = try number(at: position, width: refSize)
        guard ref < UInt64(objectCount) else { throw Undecided() }
        return Int(ref)
    }

    /// An object's marker, and for data, strings and containers its count and where its payload
    /// starts — with `BinaryPlistParser.length`'s checks (`elementSize` is a payload element's size).
    mutating func header(at start: Int, elementSize: Int) throws -> (marker: UInt8, count: Int, first: Int) {
        guard let head = try blocks.bytes(at: start, count: Swift.min(10, offsetTable - start)) else { throw Undecided() }
        let marker = head[0]
        var count = UInt64(marker & 0x0F)
        var first = start + 1
        if count == 0x0F {
            guard head.count > 1, head[1] >> 4 == 0x1, head[1] & 0x0F <= 3 else { throw Undecided() }
            let width = 1 << Int(head[1] & 0x0F)
            guard first + 1 + width <= offsetTable else { throw Undecided() }
            count = head[2..<2 + width].reduce(0) { $0 << 8 | UInt64($1) }
            first += 1 + width
        }
        guard count <= UInt64(offsetTable - first) / UInt64(elementSize) else { throw Undecided() }
        return (marker, Int(count), first)
    }
}

extension BinaryPlistFileLookup {
    /// The in-memory lookup's search (`BinaryPlistParser.keyIndex`).
    mutating func lookup(_ key: String) throws -> PrefValue? {
        let start = try offset(of: topObject)
        let (marker, count, first) = try header(at: start, elementSize: 2 * refSize)
        guard marker >> 4 == 0xD else { throw Undecided() }
        let needle = Array(key.utf8)
        guard let index = try BinaryPlistParser.keyIndex(count: count, { i in try compareKey(try ref(at: first + i * refSize), needle) }) else {
            return nil
        }
        let document = try extract(try ref(at: first + (count + index) * refSize))
        guard case .array(let wrapped)? = try? BinaryPlistDecoder.decode(document), wrapped.count == 1 else { throw Undecided() }
        return wrapped[0]
    }

    /// How key object `keyRef` orders against `needle` in UTF-8 byte order, once checked to be a
    /// string as `BinaryPlistParser.compareKey` checks it.
    mutating func compareKey(_ keyRef: Int, _ needle: [UInt8]) throws -> Int {
        let start = try offset(of: keyRef)
        guard let marker = try blocks.bytes(at: start, count: 1)?[0] else { throw Undecided() }
        switch marker >> 4 {
        case 0x5:
            let (_, count, first) = try header(at: start, elementSize: 1)
            guard let text = try blocks.bytes(at: first, count: count), !text.contains(where: { $0 >= 0x80 }) else { throw Undecided() }
            return needle.withUnsafeBufferPointer { BinaryPlistParser.compare(text.assumingMemoryBound(to: UInt8.self), $0) }
        case 0x6:
            let (_, units, first) = try header(at: start, elementSize: 2)
            guard let text = try blocks.bytes(at: first, count: 2 * units) else { throw Undecided() }
            guard var utf8 = BinaryPlistFileLookup.utf8(fromUTF16BigEndian: text) else { throw Undecided() }
            return utf8.withUTF8 { candidate in needle.withUnsafeBufferPointer { BinaryPlistParser.compare(candidate, $0) } }
        default:
            throw Undecided()
        }
    }

    /// Big-endian UTF-16 as a String; nil with an unpaired surrogate (which the decoder refuses).
    static func utf8(fromUTF16BigEndian bytes: UnsafeRawBufferPointer) -> String? {
        let units = (0..<bytes.count / 2).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var i = 0
        while i < units.count {
            let unit = units[i]
            i += 1
            guard unit & 0xF800 == 0xD800 else { continue }
            guard unit <= 0xDBFF, i < units.count, units[i] & 0xFC00 == 0xDC00 else { return nil }
            i += 1
        }
        return String(decoding: units, as: UTF16.self)
    }
}

extension BinaryPlistFileLookup {
    /// A small binary plist holding the objects reachable from `ref` (byte for byte, but for their
    /// renumbered references) under a one-element array — so the value sits at depth 1, as it does
    /// under the top dictionary — for `BinaryPlistDecoder` to decode with all its checks. Each
    /// object's extent is found with `BinaryPlistParser.object`'s bounds checks.
    mutating func extract(_ ref: Int) throws -> [UInt8] {
        var order = [ref]
        // The number of each object in the extract but `ref` (1); left empty for a scalar, so a
        // one-key read does not build a dictionary type's metadata at all.
        var number: [Int: Int] = [:]
        var objects: [(bytes: [UInt8], children: [Int])] = []
        var next = 0
        while next < order.count {
            let object = try self.object(order[next])
            next += 1
            for child in object.children where child != ref && number[child] == nil {
                number[child] = order.count + 1
                order.append(child)
            }
            objects.append(object)
        }
        let count = objects.count + 1
        let refSize = BinaryPlistWriter.width(UInt64(count))
        var out = Array("bplist00".utf8)
        var offsets = [out.count]
        out.append(0xA1)
        BinaryPlistWriter.appendUInt(1, width: refSize, to: &out)
        for object in objects {
            offsets.append(out.count)
            out.append(contentsOf: object.bytes)
            for child in object.children { BinaryPlistWriter.appendUInt(UInt64(child == ref ? 1 : number[child]!), width: refSize, to: &out) }
        }
        BinaryPlistWriter.appendTable(offsets, to: &out, refSize: refSize, top: 0)
        return out
    }

    /// Object `ref`'s bytes (for a container, its marker and count only) and the objects it refers to.
    mutating func object(_ ref: Int) throws -> (bytes: [UInt8], children: [Int]) {
        let start = try offset(of: ref)
        guard let marker = try blocks.bytes(at: start, count: 1)?[0] else { throw Undecided() }
        let low = Int(marker & 0x0F)
        var length: Int
        switch marker >> 4 {
        case 0x0 where low == 0x8 || low == 0x9: length = 1
        case 0x1 where low <= 4: length = 1 + (1 << low)
        case 0x2 where low == 2 || low == 3: length = 1 + (1 << low)
        case 0x3 where low == 3: length = 9
        case 0x8 where low < 8: length = 2 + low
        case 0x4, 0x5:
            let (_, count, first) = try header(at: start, elementSize: 1)
            length = first - start + count
        case 0x6:
            let (_, count, first) = try header(at: start, elementSize: 2)
            length = first - start + 2 * count
        case 0xA, 0xD:
            let isDictionary = marker >> 4 == 0xD
            let (_, count, first) = try header(at: start, elementSize: isDictionary ? 2 * refSize : refSize)
            let refs = isDictionary ? 2 * count : count
            var children: [Int] = []
            children.reserveCapacity(refs)
            for i in 0..<refs { children.append(try self.ref(at: first + i * refSize)) }
            guard let head = try blocks.bytes(at: start, count: first - start) else { throw Undecided() }
            return (Array(head), children)
        default:
            throw Undecided()
        }
        guard length <= offsetTable - start, let bytes = try blocks.bytes(at: start, count: length) else { throw Undecided() }
        return (Array(bytes), [])
    }
}
