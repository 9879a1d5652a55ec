import Testing
@testable import PrefsCore

/// Patching a few top-level keys must give exactly what decoding, changing and re-encoding gives, and
/// must refuse exactly the documents decoding refuses.
@Suite struct TopLevelPatchTests {
    /// Applies `edits` (nil: remove) through the patch; nil when the patch declines.
    static func patch(_ document: [UInt8], _ edits: [String: PrefValue?]) throws -> TopLevelPatch.Result {
        try document.withUnsafeBufferPointer { bytes in
            try TopLevelPatch.apply(to: bytes, keys: Set(edits.keys)) { contents in
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

    @Test(arguments: [UInt64(11), UInt64.random(in: 1...UInt64.max)])
    func xmlPatchIsByteForByteAFullReencode(seed: UInt64) throws {
        for (i, (dictionary, edits)) in TopLevelPatchTests.cases(seed: seed, count: 300).enumerated() {
            let document = try XMLPlistEncoder.encode(.dictionary(dictionary))
            let expected = TopLevelPatchTests.applied(dictionary, edits)
            switch try TopLevelPatchTests.patch(document, edits) {
            case .patched(let bytes):
                if expected.isEmpty {
                    #expect(try XMLPlistDecoder.decode(bytes) == .dictionary(expected), "seed \(seed) case \(i)")
                } else {
                    #expect(bytes == (try XMLPlistEncoder.encode(.dictionary(expected))), "seed \(seed) case \(i)")
                }
            case .unchanged:
                #expect(RoundTripTests.xmlMapping(.dictionary(expected)) == RoundTripTests.xmlMapping(.dictionary(dictionary)), "seed \(seed) case \(i)")
            case .unsupported:
                Issue.record("seed \(seed) case \(i): declined a canonical document")
            }
        }
    }

    @Test(arguments: [UInt64(12), UInt64.random(in: 1...UInt64.max)])
    func binaryPatchDecodesToTheChangedValue(seed: UInt64) throws {
        for (i, (dictionary, edits)) in TopLevelPatchTests.cases(seed: seed, count: 300).enumerated() {
            let document = try BinaryPlistEncoder.encode(.dictionary(dictionary))
            let expected = TopLevelPatchTests.applied(dictionary, edits)
            switch try TopLevelPatchTests.patch(document, edits) {
            case .patched(let bytes):
                let decoded = try BinaryPlistDecoder.decode(bytes)
                #expect(decoded == .dictionary(expected), "seed \(seed) case \(i): \(firstDifference(decoded, .dictionary(expected)))")
                #expect(try PropertyList.decode(bytes).format == .binary)
            case .unchanged:
                #expect(expected == dictionary, "seed \(seed) case \(i)")
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
                guard case .patched(let bytes) = try TopLevelPatchTests.patch(Array(document.utf8), edit) else {
                    Issue.record("not patched: \(edit)")
                    continue
                }
                #expect(try XMLPlistDecoder.decode(bytes) == .dictionary(TopLevelPatchTests.applied(["a": "x", "b&c": 2], edit)), "\(edit)")
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
        for (i, variant) in variants.enumerated() {
            let decodes = (try? PropertyList.decode(variant, as: format)).map { value -> Bool in
                if case .dictionary = value { return true } else { return false }
            } ?? false
            let patches = (try? TopLevelPatchTests.patch(variant, ["a": "text"])) != nil
            guard PlistFormat.detect(variant) == format else { continue }
            #expect(decodes == patches, "\(format) variant \(i)")
        }
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
