import Testing
@testable import PrefsCore
import PrefsTestSupport

/// Patching a few top-level keys must give exactly what decoding, changing and re-encoding gives, and
/// must refuse exactly the documents decoding refuses.
@Suite struct TopLevelPatchTests {
    /// Applies `edits` (nil: remove) through the patch; nil when the patch declines.
    static func patch(_ document: [UInt8], _ edits: [String: PrefValue?]) throws -> TopLevelPatch.Result {
        try document.withUnsafeBufferPointer { bytes in
            try TopLevelPatch.apply(to: bytes, keys: KeySet(edits.keys)) { contents in
                for (key, value) in edits { contents[key] = value }
            }
        }
    }

    static func applied(_ value: PrefDictionary, _ edits: [String: PrefValue?]) -> PrefDictionary {
        var result = value
        for (key, new) in edits { result[key] = new }
        return result
    }

    /// Random documents and random edits of existing and new keys.
    static func cases(seed: UInt64, count: Int) -> [(PrefDictionary, [String: PrefValue?])] {
        var random = RandomValues(seed: seed)
        return (0..<count).map { _ in
            guard case .dictionary(var dictionary) = random.dictionary() else { fatalError() }
            if dictionary.isEmpty { dictionary["seed"] = "x" }
            var edits: [String: PrefValue?] = [:]
            for _ in 0..<random.int(1...3) {
                switch random.int(0...2) {
                case 0: edits[dictionary.keys[random.int(0...dictionary.count - 1)]] = random.value()
                case 1: edits[dictionary.keys[random.int(0...dictionary.count - 1)]] = .some(nil)
                default: edits[random.key() + "new"] = random.value()
                }
            }
            return (dictionary, edits)
        }
    }

    /// Keys spelled in NFC and NFD are two keys: a patch of one never touches the other.
    @Test(arguments: [PlistFormat.xml, .binary])
    func keysThatDifferOnlyInNormalizationArePatchedApart(format: PlistFormat) throws {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let document: PrefDictionary = [nfc: 1, nfd: 2, "other": "x"]
        let bytes = try PropertyList.encode(.dictionary(document), as: format)
        for (keys, change, expected) in [
            ([nfc, nfd], { (d: inout PrefDictionary) in d[nfc] = 10; d[nfd] = 20 }, [nfc: 10, nfd: 20, "other": "x"] as PrefDictionary),
            ([nfc], { (d: inout PrefDictionary) in d[nfc] = 10 }, [nfc: 10, nfd: 2, "other": "x"]),
            ([nfd], { (d: inout PrefDictionary) in d[nfd] = nil }, [nfc: 1, "other": "x"]),
        ] as [([String], (inout PrefDictionary) -> Void, PrefDictionary)] {
            let result = try bytes.withUnsafeBufferPointer { try TopLevelPatch.apply(to: $0, keys: KeySet(keys), change: change) }
            guard case .patched(let patched) = result else { Issue.record("\(format) \(keys): \(result)"); continue }
            #expect(try PropertyList.decode(patched).value == .dictionary(expected), "\(format) \(keys)")
        }
        #expect(KeySet([nfc, nfd, nfc]).count == 2)
    }

    @Test(arguments: [UInt64(11), TestSeed.run])
    func xmlPatchIsByteForByteAFullReencode(seed: UInt64) throws {
        for (i, (dictionary, edits)) in TopLevelPatchTests.cases(seed: seed, count: 300).enumerated() {
            let document = try XMLPlistEncoder.encode(.dictionary(dictionary))
            let expected = TopLevelPatchTests.applied(dictionary, edits)
            switch try TopLevelPatchTests.patch(document, edits) {
            case .patched(let bytes):
                if expected.isEmpty {
                    #expect(try XMLPlistDecoder.decode(bytes) == .dictionary(expected), "\(TestSeed.reproduce(seed)) case \(i)")
                } else {
                    #expect(bytes == (try XMLPlistEncoder.encode(.dictionary(expected))), "\(TestSeed.reproduce(seed)) case \(i)")
                }
            case .unchanged:
                #expect(RoundTripTests.xmlMapping(.dictionary(expected)) == RoundTripTests.xmlMapping(.dictionary(dictionary)), "\(TestSeed.reproduce(seed)) case \(i)")
            case .unsupported:
                // Declined only when one entry would be left (it might spell a UID in XML).
                #expect(expected.count == 1, "\(TestSeed.reproduce(seed)) case \(i): declined a canonical document")
            }
        }
    }

    @Test(arguments: [UInt64(12), TestSeed.run])
    func binaryPatchDecodesToTheChangedValue(seed: UInt64) throws {
        for (i, (dictionary, edits)) in TopLevelPatchTests.cases(seed: seed, count: 300).enumerated() {
            let document = try BinaryPlistEncoder.encode(.dictionary(dictionary))
            let expected = TopLevelPatchTests.applied(dictionary, edits)
            switch try TopLevelPatchTests.patch(document, edits) {
            case .patched(let bytes):
                let decoded = try BinaryPlistDecoder.decode(bytes)
                #expect(decoded == .dictionary(expected), "\(TestSeed.reproduce(seed)) case \(i): \(firstDifference(decoded, .dictionary(expected)))")
                #expect(try PropertyList.decode(bytes).format == .binary)
            case .unchanged:
                #expect(expected == dictionary, "\(TestSeed.reproduce(seed)) case \(i)")
            case .unsupported:
                // Small documents may need wider references or carry too much garbage: re-encoded.
                break
            }
        }
    }

    /// Files other programs wrote (other indentation, comments, entities) patch to the right value.
    @Test func foreignXMLLayoutsPatchCorrectly() throws {
        let documents = [
            "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n    <key>a</key>\n    <string>x</string>\n    <key>b&amp;c</key>\n    <integer>2</integer>\n</dict>\n</plist>\n",
            "<plist><dict><key>a</key><string>x</string><!-- note --><key>b&amp;c</key><integer>2</integer></dict></plist>",
            "<plist>\r\n<dict>\r\n\t<key>a</key>\r\n\t<string>x</string>\r\n\t<key>b&amp;c</key>\r\n\t<integer>2</integer>\r\n</dict>\r\n</plist>\r\n",
        ]
        let edits: [[String: PrefValue?]] = [["a": "y"], ["b&c": nil], ["0": 1, "zz": ["n": [true]]], ["a": nil, "b&c": nil]]
        for document in documents {
            for edit in edits {
                let expected = TopLevelPatchTests.applied(["a": "x", "b&c": 2], edit)
                guard case .patched(let bytes) = try TopLevelPatchTests.patch(Array(document.utf8), edit) else {
                    #expect(expected.count == 1, "not patched: \(edit)")
                    continue
                }
                #expect(try XMLPlistDecoder.decode(bytes) == .dictionary(expected), "\(edit)")
            }
        }
    }

    @Test func declinesWhatItCannotPatch() throws {
        let duplicate = Array("<plist><dict><key>a</key><true/><key>a</key><false/></dict></plist>".utf8)
        #expect(try TopLevelPatchTests.patch(duplicate, ["a": 1]) == .unsupported)
        #expect(try TopLevelPatchTests.patch(Array("<plist><dict/></plist>".utf8), ["a": 1]) == .unsupported)
        #expect(try TopLevelPatchTests.patch(Array("{\"a\": 1}".utf8), ["a": 2]) == .unsupported)
        #expect(try TopLevelPatchTests.patch(Array("{ a = 1; }".utf8), ["a": "2"]) == .unsupported)
        #expect(throws: PrefsError.self) { try TopLevelPatchTests.patch(Array("<plist><array/></plist>".utf8), ["a": 1]) }
        #expect(throws: PrefsError.self) { try TopLevelPatchTests.patch(Array("<plist><dict><key>CF$UID</key><integer>1</integer></dict></plist>".utf8), ["a": 1]) }
    }

    /// A patch checks the whole document exactly as decoding does: every truncation and every
    /// single-byte change of a document is refused by both or by neither.
    @Test(arguments: [PlistFormat.xml, .binary])
    func refusesExactlyWhatDecodingRefuses(format: PlistFormat) throws {
        let value: PrefValue = ["a": "text", "n": [1, 2.5, true], "d": .date(PrefDate(secondsSinceReferenceDate: 5)), "x": .data([1, 2]),
                                "nested": ["k": ["deep": "v"]], "z": -1]
        let document = try PropertyList.encode(value, as: format)
        var variants = (0..<document.count).map { Array(document[0..<$0]) }
        var random = SeededGenerator(seed: 99)
        for _ in 0..<3000 {
            var mutated = document
            mutated[Int.random(in: 0..<mutated.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            variants.append(mutated)
        }
        var compared = 0, refused = 0
        for (i, variant) in variants.enumerated() {
            let decodes = (try? PropertyList.decode(variant, as: format)).map { value -> Bool in
                if case .dictionary = value { return true } else { return false }
            } ?? false
            let patches = (try? TopLevelPatchTests.patch(variant, ["a": "text"])) != nil
            guard PlistFormat.detect(variant) == format else { continue }
            #expect(decodes == patches, "\(format) variant \(i)")
            compared += 1
            if !decodes { refused += 1 }
        }
        // Proof that most variants were compared, and that both verdicts occurred.
        #expect(compared * 2 > variants.count && refused > 0 && refused < compared, "\(compared) of \(variants.count), \(refused) refused")
    }

    /// Appending never lets garbage pass a quarter of the file: the patch declines, and the caller's
    /// full re-encode compacts it.
    @Test func binaryGarbageStaysBounded() throws {
        var document = try BinaryPlistEncoder.encode(.dictionary(PrefDictionary((0..<2000).map { ("key\($0)", PrefValue.string("value \($0)")) })))
        let compact = document.count
        var reencoded = 0
        for round in 0..<300 {
            let edits: [String: PrefValue?] = round % 3 == 0 ? ["new\(round)": .integer(Int64(round))] : ["key\(round % 2000)": .string("changed \(round)")]
            switch try TopLevelPatchTests.patch(document, edits) {
            case .patched(let bytes): document = bytes
            case .unsupported:
                reencoded += 1
                var value = try BinaryPlistDecoder.decode(document)
                if case .dictionary(var d) = value { for (k, v) in edits { d[k] = v }; value = .dictionary(d) }
                document = try BinaryPlistEncoder.encode(value)
            case .unchanged: Issue.record("a real change was seen as no change")
            }
            #expect(document.count < compact * 2, "round \(round)")
        }
        #expect(reencoded > 0)
        #expect(reencoded < 150)
    }
}

/// An object may lie over the bytes of the top dictionary's value references (a valid binary plist
/// can overlap objects); changing those references in place would change that object too.
@Suite struct BinaryPatchOverlapTests {
    /// {a: 1, b: <01 02>} where b's data object starts on the dictionary's second key reference
    /// (object 66, byte 0x42 = "data of 2 bytes"), so its two bytes are the two value references.
    static func overlappingDocument() -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        bytes += [0xD2, 3, 0x42, 1, 2]   // 8: object 0, {obj3: obj1, obj66: obj2}; object 2 starts at 10
        bytes += [0x10, 0x01]            // 13: object 1, 1
        bytes += [0x51, 0x61]            // 15: object 3, "a"
        bytes += [0x09]                  // 17: objects 4…65, true (unused)
        bytes += [0x51, 0x62]            // 18: object 66, "b"
        let table = bytes.count
        var offsets = [8, 13, 10, 15] + Array(repeating: 17, count: 62) + [18]
        bytes += offsets.map(UInt8.init)
        offsets.removeAll()
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        BinaryPlistWriter.appendUInt(67, width: 8, to: &bytes)
        BinaryPlistWriter.appendUInt(0, width: 8, to: &bytes)
        BinaryPlistWriter.appendUInt(UInt64(table), width: 8, to: &bytes)
        return bytes
    }

    @Test func overlappingObjectsAreNotChangedByAPatch() throws {
        let document = BinaryPatchOverlapTests.overlappingDocument()
        #expect(try BinaryPlistDecoder.decode(document) == ["a": 1, "b": .data([1, 2])])
        guard case .patched(let patched) = try TopLevelPatchTests.patch(document, ["a": 5]) else {
            Issue.record("not patched")
            return
        }
        #expect(try BinaryPlistDecoder.decode(patched) == ["a": 5, "b": .data([1, 2])])
    }
}
