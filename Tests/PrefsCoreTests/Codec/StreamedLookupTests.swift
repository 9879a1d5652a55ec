import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// The streaming one-key readers (`XMLPlistStreamLookup`, `BinaryPlistFileLookup`) against the
/// whole-document lookup (`PropertyList.lookup(_:in:)`): whenever a streaming reader answers, the
/// whole-document lookup gives the same answer; whenever that one refuses a document, the streaming
/// reader leaves it undecided (the store then reads the file whole for the exact error). And on the
/// documents prefs and other writers make, the streaming reader does answer.
@Suite struct StreamedLookupTests {
    /// What the streaming reader of `bytes`'s format says, through a window of `bufferSize` bytes. An
    /// XML document is read on one thread, and again with a second thread skipping entries from a
    /// third and from half of the way (`XMLPlistSpeculation`): all three must say the same.
    static func streamed(_ bytes: [UInt8], _ key: String, bufferSize: Int = 1 << 17,
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> StreamedLookup {
        // The format is told from the first 4 KiB as the store tells it (`PropertyList.lookup(_:reading:)`):
        // text that starts as UTF-16 or UTF-32 (a NUL in its first bytes) is left to the whole-document reader.
        switch Array(bytes.prefix(4096)).withUnsafeBufferPointer({ try? PropertyList.detect($0) }) {
        case .xml?, .binary?: break
        default: return .undecided
        }
        if bytes.starts(with: Array("bplist".utf8)) {
            return try bytes.withUnsafeBufferPointer { buffer in
                do { return .found(try BinaryPlistFileLookup.lookup(key, in: FileReader(buffer))) } catch is Undecided { return .undecided }
            }
        }
        let alone = try xml(bytes, key, bufferSize: bufferSize, split: .none).answer
        for split in [bytes.count / 3, bytes.count / 2] {
            #expect(try xml(bytes, key, bufferSize: bufferSize, split: .at(split)).answer == alone,
                    "key \(key.debugDescription) buffer \(bufferSize): a second thread from \(split) changes the answer", sourceLocation: sourceLocation)
        }
        return alone
    }

    /// The XML streaming lookup, and whether it took jumps from the second thread.
    static func xml(_ bytes: [UInt8], _ key: String, bufferSize: Int, split: XMLPlistStreamLookup.Split) throws -> (answer: StreamedLookup, tookAhead: Bool) {
        try bytes.withUnsafeBufferPointer { buffer in
            var tookAhead = false
            do {
                let value = try XMLPlistStreamLookup.lookup(key, in: FileReader(buffer), bufferSize: bufferSize, split: split, tookAhead: &tookAhead)
                return (.found(value), tookAhead)
            } catch is Undecided {
                return (.undecided, tookAhead)
            }
        }
    }

    static func exact(_ bytes: [UInt8], _ key: String) -> Result<PrefValue?, Error> {
        Result { try bytes.withUnsafeBufferPointer { try PropertyList.lookup(key, in: $0).value } }
    }

    /// The agreement: an answer is the whole-document lookup's; a refused document is undecided.
    /// Returns whether the streaming reader answered.
    @discardableResult
    static func agree(_ bytes: [UInt8], _ key: String, bufferSize: Int = 1 << 17, _ context: @autoclosure () -> String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
        let streamed = try streamed(bytes, key, bufferSize: bufferSize, sourceLocation: sourceLocation)
        switch (streamed, exact(bytes, key)) {
        case (.found(let value), .success(let expected)):
            #expect(value == expected, "\(context()) key \(key.debugDescription) buffer \(bufferSize)", sourceLocation: sourceLocation)
            return true
        case (.found(let value), .failure(let error)):
            Issue.record("\(context()) key \(key.debugDescription) buffer \(bufferSize): answered \(String(describing: value)) where the whole-document lookup fails: \(error)",
                         sourceLocation: sourceLocation)
            return true
        case (.undecided, _):
            return false
        }
    }

    /// Every top-level key of a document (when it decodes to a dictionary), and some that are not.
    static func keys(of bytes: [UInt8]) -> [String] {
        var keys = ["absent", "CF$UID", ""]
        if case .dictionary(let root)? = try? PropertyList.decode(bytes).value { keys += root.keys }
        return keys
    }

    static func corpus() throws -> [String] {
        let base = try Fixtures.conformance("plist")
        let enumerator = FileManager.default.enumerator(atPath: base)!
        var files: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(base + "/" + name) }
        }
        return files.sorted()
    }

    @Test func theConformanceCorporaAgree() throws {
        let files = try StreamedLookupTests.corpus()
        #expect(files.count > 150)
        var answered = 0
        for file in files {
            let bytes = try Fixtures.bytes(file)
            guard let format = PlistFormat.detect(bytes), format == .xml || format == .binary else { continue }
            for key in StreamedLookupTests.keys(of: bytes) {
                for size in [16, 61, 1 << 17] where try StreamedLookupTests.agree(bytes, key, bufferSize: size, file) { answered += 1 }
            }
        }
        #expect(answered > 1000)
    }

    @Test(arguments: [UInt64(21), TestSeed.run])
    func randomDocumentsAgreeAndAreAnswered(seed: UInt64) throws {
        var random = RandomValues(seed: seed)
        for i in 0..<200 {
            let document = random.dictionary()
            for format in [PlistFormat.xml, .binary] {
                let bytes = try PropertyList.encode(document, as: format)
                for key in StreamedLookupTests.keys(of: bytes) {
                    for size in [16, 100, 1 << 17] {
                        let answered = try StreamedLookupTests.agree(bytes, key, bufferSize: size, "\(TestSeed.reproduce(seed)) case \(i) \(format)")
                        // A single `CF$UID` entry with an integer is a UID, not a dictionary: refused.
                        if case .dictionary(let root) = document, root.count == 1, root.keys == ["CF$UID"] { continue }
                        #expect(answered, "\(TestSeed.reproduce(seed)) case \(i) \(format) key \(key.debugDescription) buffer \(size): not answered")
                    }
                }
            }
        }
    }

    /// Damaged copies (bytes changed, cut, inserted) are never answered differently.
    @Test(arguments: [UInt64(22), 17057385686378110210, TestSeed.run])
    func damagedDocumentsNeverGetAnotherAnswer(seed: UInt64) throws {
        var random = RandomValues(seed: seed)
        for i in 0..<300 {
            let document = random.dictionary()
            for format in [PlistFormat.xml, .binary] {
                var bytes = try PropertyList.encode(document, as: format)
                let keys = StreamedLookupTests.keys(of: bytes)
                for _ in 0..<random.int(1...3) {
                    guard !bytes.isEmpty else { break }
                    let at = random.int(0...bytes.count - 1)
                    switch random.int(0...3) {
                    case 0: bytes[at] = UInt8(random.int(0...255))
                    case 1: bytes.removeSubrange(at...)
                    case 2: bytes.insert(contentsOf: [UInt8](random.string().utf8), at: at)
                    default: bytes[at] = [UInt8]("<>/&;!?[]\"' \n".utf8)[random.int(0...12)]
                    }
                }
                for key in keys {
                    for size in [16, 1 << 17] { try StreamedLookupTests.agree(bytes, key, bufferSize: size, "\(TestSeed.reproduce(seed)) case \(i) \(format)") }
                }
            }
        }
    }

    /// XML that other programs write or people edit, and XML that is subtly wrong.
    static let xmlCases: [String] = [
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n\t<key>a</key>\n\t<string>1</string>\n\t<key>b</key>\n\t<integer>2</integer>\n</dict>\n</plist>\n",
        "<plist><dict><key>a</key><string>x</string><!-- note --><key>b</key><true/><key>c</key><false></false></dict></plist>",
        "<dict><key>a&amp;b</key><string>x</string><key>a</key><string>&lt;y&gt;</string></dict>",
        "<dict><key>a</key><string><![CDATA[<not a tag>]]></string><key>b</key><data>AAEC</data></dict>",
        "<dict><key>a</key><string>one</string><key>a</key><string>two</string></dict>",
        "<dict><key>CF$UID</key><integer>3</integer></dict>",
        "<dict><key>CF$UID</key><integer>3</integer><key>a</key><string>x</string></dict>",
        "<dict><key>a</key ><string >x</string ><key\n>b</key><date>2020-01-02T03:04:05Z</date></dict>",
        "<dict><key>a</key><dict><key>b</key><array><string>x</string><integer>0x10</integer></array></dict><key>c</key><real>1.5</real></dict>",
        "<dict/>", "<plist version=\"1.0\"><dict/></plist>", "\u{FEFF}<dict><key>a</key><string>x</string></dict>",
        "<dict><key></key><string>empty key</string></dict>",
        "<dict><key>a</key><string>x</string></dict><!-- after -->\n",
        // Refused:
        "<dict><key>a</key><string>x</string></dict>trailing", "<dict><key>a</key><string>x</string>",
        "<dict><key>a</key><strong>x</strong></dict>", "<dict><key>a</key><string>x</dict></string>",
        "<dict><key>a</key></dict>", "<dict><key>a</key><key>b</key></dict>", "<dict><string>x</string></dict>",
        "<dict><key>a&bogus;</key><string>x</string></dict>", "<dict><key>a</key><integer>x</integer></dict>",
        "<dict><key>a</key><true>x</true></dict>", "<array><string>x</string></array>", "<plist><dict/><dict/></plist>",
        "<?xml version=\"1.0\" encoding=\"UTF-16\"?><dict/>", "<dict><key>\u{FF}</key><string>x</string></dict>",
        "<dict><key>a</key><string>x</string><key>b</key><plist/></dict>", "<dict><key>a</key>text<string>x</string></dict>",
        "<dict><key>a</key><string>x<b/></string></dict>", "<dict><key>a</key><string>x</string><!-- unterminated</dict>",
    ]

    @Test func handWrittenXMLAgrees() throws {
        for (i, text) in StreamedLookupTests.xmlCases.enumerated() {
            var bytes = Array(text.utf8)
            if text.contains("\u{FF}") { bytes = bytes.map { $0 == 0xC3 ? 0xFF : $0 }.filter { $0 != 0xBF } }
            for key in ["a", "b", "c", "a&b", "CF$UID", "", "absent"] {
                for size in [16, 17, 23, 1 << 17] { try StreamedLookupTests.agree(bytes, key, bufferSize: size, "case \(i)") }
            }
        }
        // The plain forms are answered (not left to the whole-document reader).
        for i in [0, 1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13] {
            #expect(try StreamedLookupTests.streamed(Array(StreamedLookupTests.xmlCases[i].utf8), "a", bufferSize: 16) != .undecided, "case \(i)")
        }
    }

    /// A large suite through small windows: every key, and damage far from the key unnoticed only
    /// where the whole-document lookup does not notice it either (the text of other values).
    @Test(arguments: [PlistFormat.xml, .binary])
    func aLargeSuiteAgreesThroughSmallWindows(format: PlistFormat) throws {
        let bytes = try LargeSuite.bytes(format)
        let damaged = try LargeSuite.damaged(bytes)
        for i in stride(from: 0, to: LargeSuite.count, by: 97) {
            for size in [64, 4096] {
                #expect(try StreamedLookupTests.agree(bytes, LargeSuite.key(i), bufferSize: size, "\(format)"))
                #expect(try StreamedLookupTests.agree(damaged, LargeSuite.key(i), bufferSize: size, "\(format) damaged"))
            }
        }
        #expect(try StreamedLookupTests.streamed(damaged, LargeSuite.damageableKey) == .undecided)
        // Cut anywhere, the file is refused.
        for cut in stride(from: 1, to: bytes.count, by: bytes.count / 37) {
            #expect(try StreamedLookupTests.streamed(Array(bytes[..<cut]), LargeSuite.key(1), bufferSize: 512) == .undecided, "\(format) cut at \(cut)")
        }
    }

    /// The second thread of a large XML lookup (`XMLPlistSpeculation`), started anywhere — in a tag,
    /// in text, inside a nested dictionary, a comment or CDATA whose insides look like entries, just
    /// before the key asked for or between two entries of it, before entries it cannot skip — never
    /// changes the answer, and the lookup does take its jumps wherever it starts among plain entries.
    @Test func aSecondThreadNeverChangesTheAnswer() throws {
        func entry(_ key: String, _ value: String) -> String { "\t<key>\(key)</key>\n\t<string>\(value)</string>\n" }
        let plain = (0..<1500).map { entry(String(format: "k%05d", $0), "value \($0)") }
        let fake = (0..<100).map { entry("inner\($0)", "x") }.joined()
        let cases: [(String, [String])] = [
            ("plain", plain),
            ("twice", plain[..<500] + [entry("dup", "first")] + plain[500..<1000] + [entry("dup", "second")] + plain[1000...]),
            ("nested", plain[..<700] + ["\t<key>nested</key>\n\t<dict>\n" + fake + "\t</dict>\n"] + plain[700...]),
            ("comment", plain[..<700] + ["\t<!--\n" + fake + "\t-->\n"] + plain[700...]),
            ("cdata", plain[..<700] + ["\t<key>cdata</key>\n\t<string><![CDATA[\n" + fake + "]]></string>\n"] + plain[700...]),
            ("stops", plain[..<800] + [entry("CF$UID", "u"), "\t<key>a&amp;b</key>\n\t<string>x</string>\n",
                                       "\t<key>array</key>\n\t<array><string>1</string></array>\n"] + plain[800...]),
        ]
        let keys = ["k00000", "k00750", "k01499", "dup", "inner5", "nested", "cdata", "CF$UID", "a&b", "array", "absent"]
        for (name, entries) in cases {
            let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n" + entries.joined() + "</dict>\n</plist>\n"
            let bytes = Array(text.utf8)
            var took = 0, tried = 0
            for split in Array(stride(from: 1, to: bytes.count, by: bytes.count / 23)) + [bytes.count / 2, bytes.count - 30] {
                for key in keys {
                    let expected = try bytes.withUnsafeBufferPointer { try PropertyList.lookup(key, in: $0).value }
                    for size in [200, 1 << 17] {
                        let (answer, tookAhead) = try StreamedLookupTests.xml(bytes, key, bufferSize: size, split: .at(split))
                        #expect(answer == .found(expected), "\(name): key \(key) buffer \(size), second thread from \(split)")
                        tried += 1
                        if tookAhead { took += 1 }
                    }
                }
            }
            #expect(took * 10 >= tried * 8, "\(name): the second thread's jumps taken in only \(took) of \(tried) lookups")
        }
    }

    /// A file on disk read through the store's reader (a 128 KiB window): entries that straddle a
    /// window's end, a value and a key longer than a whole window (the window grows), the last key,
    /// and a file cut short are read as the whole-document lookup reads them.
    @Test func aFileOnDiskAgreesAcrossWindows() throws {
        var contents = LargeSuite.contents
        for i in 0..<30_000 { contents[String(format: "m%06d", i)] = .string(String(repeating: "x", count: i % 61)) }
        contents["huge"] = .string(String(repeating: "h", count: 2_500_000))
        contents["zz-last"] = .integer(7)
        let longKey = String(repeating: "k", count: 1_500_000)
        contents[longKey] = .integer(8)
        let bytes = try PropertyList.encode(.dictionary(contents), as: .xml)
        try #require(bytes.count > 4 << 20)
        let directory = try TemporaryDirectory()
        let whole = try directory.write("whole.plist", bytes)
        let short = try directory.write("short.plist", Array(bytes[..<(bytes.count - 5000)]))
        let keys = ["huge", "zz-last", longKey, "absent", "CF$UID", LargeSuite.key(0)] + stride(from: 0, to: 30_000, by: 331).map { String(format: "m%06d", $0) }
        for key in keys {
            let streamed = try LocalFileSystem().withFileReader(of: whole) { try PropertyList.lookup(key, reading: $0) }
            #expect(streamed == .found(contents[key]), "\(key.prefix(20))")
            let cut = try LocalFileSystem().withFileReader(of: short) { try PropertyList.lookup(key, reading: $0) }
            #expect(cut == .undecided, "\(key.prefix(20)) in the short file")
        }
    }

    /// Nesting at and past the decoders' depth limit, in the value asked for and in another one, and
    /// a binary array that holds itself: answered as the whole-document lookup answers, or refused.
    @Test func deepNestingAndCyclesAgree() throws {
        let limit = DecodingLimits.maxDepth
        for depth in [limit - 2, limit - 1, limit, limit + 1, 4 * limit] {
            let nested = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
            for text in ["<dict><key>a</key>\(nested)<key>b</key><string>x</string></dict>",
                         "<plist><dict><key>b</key><string>x</string><key>a</key>\(nested)</dict></plist>"] {
                for key in ["a", "b", "absent"] {
                    for size in [16, 1 << 17] { try StreamedLookupTests.agree(Array(text.utf8), key, bufferSize: size, "XML depth \(depth)") }
                }
            }
            var value = PrefValue.array([])
            for _ in 0..<depth - 1 { value = .array([value]) }
            guard let bytes = try? PropertyList.encode(.dictionary(["a": value, "b": .string("x")]), as: .binary) else { continue }
            for key in ["a", "b", "absent"] { try StreamedLookupTests.agree(bytes, key, "binary depth \(depth)") }
        }
        // {a: X} where X is an array whose only element is X.
        var cycle = Array("bplist00".utf8) + [0xD1, 0x01, 0x02, 0x51, 0x61, 0xA1, 0x02, 0x08, 0x0B, 0x0D]
        cycle += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 3] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 15]
        #expect(throws: (any Error).self) { try cycle.withUnsafeBufferPointer { try PropertyList.lookup("a", in: $0) } }
        #expect(try StreamedLookupTests.streamed(cycle, "a") == .undecided)
        for key in ["a", "absent"] { try StreamedLookupTests.agree(cycle, key, "binary cycle") }
    }
}
