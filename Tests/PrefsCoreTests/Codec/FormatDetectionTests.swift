import Testing
@testable import PrefsCore

@Suite struct FormatDetectionTests {
    @Test(arguments: [
        ("bplist00\u{0}", PlistFormat.binary), ("bplist15", .binary),
        ("<?xml version=\"1.0\"?><plist/>", .xml), ("<!DOCTYPE plist><plist/>", .xml), ("  <plist>", .xml),
        ("<dict/>", .xml), ("<array>", .xml), ("\u{FEFF}<plist>", .xml),
        ("<dead beef>", .openStep), ("<0102>", .openStep), ("(a, b)", .openStep), ("{ a = b; }", .openStep),
        ("{a=b;}", .openStep), ("{ \"a\" = \"b\"; }", .openStep), ("\"k\" = \"v\";", .openStep), ("\"k\";", .openStep),
        ("// c\n{}", .openStep), ("word", .openStep), ("true_ish", .openStep),
        ("{}", .json), ("{\"a\": 1}", .json), ("  {\n\"a\"\n:1}", .json), ("[1]", .json), ("\"s\"", .json),
        ("-1", .json), ("12", .json), ("true", .json), ("null ", .json), ("false\n", .json),
    ] as [(String, PlistFormat)])
    func detects(text: String, format: PlistFormat) {
        #expect(PlistFormat.detect(Array(text.utf8)) == format)
    }

    @Test func emptyAndBlankDocumentsHaveNoFormat() {
        #expect(PlistFormat.detect([]) == nil)
        #expect(PlistFormat.detect(Array(" \n\t".utf8)) == nil)
        #expect(throws: PrefsError.malformed(source: nil, format: nil, reason: "empty document")) { try PropertyList.decode([]) }
    }

    @Test func utf16TextIsRefusedWithAClearMessage() {
        let utf16: [UInt8] = [0xFF, 0xFE, UInt8(ascii: "{"), 0, UInt8(ascii: "}"), 0]
        #expect(throws: PrefsError.malformed(source: nil, format: nil, reason: "UTF-16 or UTF-32 text is not supported (prefs reads UTF-8)")) {
            try PropertyList.decode(utf16)
        }
    }

    /// The file name never matters: a binary plist called .json is read as binary.
    @Test func contentNotNameDecides() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("misleading.json", try BinaryPlistEncoder.encode(["a": 1]))
        #expect(try PropertyList.decode(try LocalFileSystem().contents(of: path)) == (["a": 1], .binary))
    }
}
