import Testing
@testable import PrefsCore

@Suite struct BinaryPlistTests {
    /// A hand-assembled document: objects (each a byte array), then the offset table and trailer.
    static func document(_ objects: [[UInt8]], top: UInt64 = 0, offsetSize: Int = 1, refSize: UInt8 = 1) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets = [Int]()
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { BinaryPlistWriter.appendUInt(UInt64(offset), width: offsetSize, to: &bytes) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), refSize]
        BinaryPlistWriter.appendUInt(UInt64(objects.count), width: 8, to: &bytes)
        BinaryPlistWriter.appendUInt(top, width: 8, to: &bytes)
        BinaryPlistWriter.appendUInt(UInt64(table), width: 8, to: &bytes)
        return bytes
    }

    static func trailer(of bytes: [UInt8]) -> (offsetSize: UInt8, refSize: UInt8) {
        (bytes[bytes.count - 26], bytes[bytes.count - 25])
    }

    @Test func smallestWidthsAreChosen() throws {
        let small = try BinaryPlistEncoder.encode(["a": 1])
        #expect(BinaryPlistTests.trailer(of: small) == (1, 1))
        let manyObjects = try BinaryPlistEncoder.encode(.array((0..<300).map { PrefValue.integer(Int64($0) + 1000) }))
        #expect(BinaryPlistTests.trailer(of: manyObjects).refSize == 2)
        #expect(BinaryPlistTests.trailer(of: manyObjects).offsetSize == 2)
        let bigData = try BinaryPlistEncoder.encode(.array([.data([UInt8](repeating: 7, count: 70_000)), "end"]))
        #expect(BinaryPlistTests.trailer(of: bigData).offsetSize == 4)
        // Objects all start below byte 256 but the offset table does not: CoreFoundation needs 2 bytes.
        let tableAbove255 = try BinaryPlistEncoder.encode(.array([.data([UInt8](repeating: 1, count: 250)), 1]))
        #expect(BinaryPlistTests.trailer(of: tableAbove255).offsetSize == 2)
    }

    @Test(arguments: [
        (PrefValue.integer(0), [UInt8]([0x10, 0x00])), (.integer(255), [0x10, 0xFF]), (.integer(256), [0x11, 0x01, 0x00]),
        (.integer(65536), [0x12, 0x00, 0x01, 0x00, 0x00]), (.integer(1 << 32), [0x13, 0, 0, 0, 1, 0, 0, 0, 0]),
        (.integer(-1), [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (.unsignedInteger(.max), [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (.uid(5), [0x80, 0x05]), (.uid(300), [0x81, 0x01, 0x2C]), (.bool(true), [0x09]), (.bool(false), [0x08]),
    ])
    func scalarEncodings(value: PrefValue, object: [UInt8]) throws {
        let bytes = try BinaryPlistEncoder.encode(value)
        #expect(Array(bytes[8..<(8 + object.count)]) == object)
        #expect(try BinaryPlistDecoder.decode(bytes) == value)
    }

    @Test func equalScalarsAreStoredOnce() throws {
        let value: PrefValue = ["a": "same", "b": "same", "c": ["same", "same", 42, 42], "same": 42]
        let bytes = try BinaryPlistEncoder.encode(value)
        let objectCount = bytes[(bytes.count - 24)..<(bytes.count - 16)].reduce(0) { $0 << 8 | Int($1) }
        // root dict, inner array, keys a b c, "same", 42  → 7 objects
        #expect(objectCount == 7)
        #expect(try BinaryPlistDecoder.decode(bytes) == value)
    }

    @Test func nfcAndNfdStringsAreNotShared() throws {
        let value: PrefValue = ["\u{E9}": "\u{E9}", "e\u{301}": "e\u{301}"]
        #expect(try BinaryPlistDecoder.decode(try BinaryPlistEncoder.encode(value)) == value)
    }

    @Test func readsEveryIntegerAndFloatWidth() throws {
        let doc = BinaryPlistTests.document([
            [0xA6, 1, 2, 3, 4, 5, 6],
            [0x10, 0x7F], [0x11, 0x80, 0x00], [0x12, 0xFF, 0xFF, 0xFF, 0xFF],
            [0x13, 0x80, 0, 0, 0, 0, 0, 0, 0],
            [0x14, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0],
            [0x22, 0x3F, 0xC0, 0x00, 0x00],
        ])
        #expect(try BinaryPlistDecoder.decode(doc) == [127, 32768, 4_294_967_295, .integer(.min), .integer(.min), 1.5])
    }

    @Test func readsUTF16Strings() throws {
        let doc = BinaryPlistTests.document([[0x63, 0xD8, 0x3D, 0xDE, 0x00, 0x00, 0x41]])
        #expect(try BinaryPlistDecoder.decode(doc) == "😀A")
    }

    @Test func sharedContainersAreDecodedOnce() throws {
        // object 1 = ["x"], used twice by the root
        let doc = BinaryPlistTests.document([[0xA2, 1, 1], [0xA1, 2], [0x51, 0x78]])
        #expect(try BinaryPlistDecoder.decode(doc) == [["x"], ["x"]])
    }

    @Test func anExponentialDAGIsRefused() throws {
        // 40 arrays, each referencing the next one twice: 2^40 values once expanded.
        var objects = (0..<40).map { i -> [UInt8] in [0xA2, UInt8(i + 1), UInt8(i + 1)] }
        objects.append([0x09])
        let doc = BinaryPlistTests.document(objects)
        #expect(throws: PrefsError.self) { try BinaryPlistDecoder.decode(doc) }
    }

    @Test(arguments: [
        ("a container containing itself", [[0xA1, 0]]),
        ("an indirect cycle", [[0xA1, 1], [0xD1, 2, 0], [0x51, 0x6B]]),
        ("a dictionary key that is an integer", [[0xD1, 1, 1], [0x10, 1]]),
        ("null", [[0x00]]),
        ("fill byte", [[0x0F]]),
        ("a set", [[0xC0]]),
        ("a UTF-8 string marker (bplist15)", [[0x71, 0x41]]),
        ("a 3-byte real", [[0x21, 0, 0]]),
        ("a 32-byte integer", [[0x15]]),
        ("a 9-byte UID", [[0x88, 1, 2, 3, 4, 5, 6, 7, 8, 9]]),
        ("an integer past the object area", [[0x13, 1, 2]]),
        ("a length that is not an integer", [[0x5F, 0x51, 0x41]]),
        ("a 128-bit integer out of range", [[0x14, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]]),
        ("a NaN date", [[0x33, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]]),
        ("a lone surrogate", [[0x61, 0xD8, 0x00]]),
        ("non-ASCII in an ASCII string", [[0x51, 0xC3]]),
    ] as [(String, [[UInt8]])])
    func refuses(reason: String, objects: [[UInt8]]) {
        #expect(throws: PrefsError.self, "\(reason)") { try BinaryPlistDecoder.decode(BinaryPlistTests.document(objects)) }
    }

    /// `depth` arrays, each holding the next, around `true`.
    static func nestedArrays(_ depth: Int) -> [UInt8] {
        var objects = (0..<depth).map { i -> [UInt8] in [0xA1, UInt8((i + 1) >> 8), UInt8((i + 1) & 0xFF)] }
        objects.append([0x09])
        return document(objects, offsetSize: 2, refSize: 2)
    }

    @Test func nestingIsLimited() throws {
        #expect(throws: Never.self) { try BinaryPlistDecoder.decode(BinaryPlistTests.nestedArrays(DecodingLimits.maxDepth)) }
        #expect(throws: PrefsError.self) { try BinaryPlistDecoder.decode(BinaryPlistTests.nestedArrays(DecodingLimits.maxDepth + 1)) }
    }

    @Test func refusesOtherVersions() {
        var doc = BinaryPlistTests.document([[0x09]])
        doc[7] = UInt8(ascii: "1")
        #expect(throws: PrefsError.self) { try BinaryPlistDecoder.decode(doc) }
    }

    /// Every truncation of a valid document is refused cleanly (never a crash or a wrong value).
    @Test func everyTruncationIsRefused() throws {
        let value: PrefValue = ["key": [1, "two", 3.0, .data([1, 2, 3])], "date": .date(PrefDate(secondsSinceReferenceDate: 1))]
        let bytes = try BinaryPlistEncoder.encode(value)
        for length in 0..<bytes.count {
            #expect(throws: PrefsError.self) { try BinaryPlistDecoder.decode(Array(bytes[0..<length])) }
        }
    }
}
