import Foundation
import Testing
@testable import PrefsCore

/// The real binary, as scripts run it: exit statuses, stdout for data, one stderr line for errors.
@Suite struct EndToEndTests {
    @Test func lintsTheConformanceCorpus() throws {
        let good = try Fixtures.conformance("plist/cpython-plistlib/valid/testdata.xml.plist")
        let bad = try Fixtures.conformance("plist/cpython-plistlib/invalid-binary/19-too-large-reference-index.bplist")
        let ok = try runBinary(["lint", good])
        #expect(ok.status == 0)
        #expect(ok.outputText == "\(good): OK\n")
        let failed = try runBinary(["lint", bad])
        #expect(failed.status == 65)
        #expect(failed.outputText.isEmpty)
        #expect(failed.error == "prefs: \(bad): binary plist: reference 2 at byte 9 is not below the object count 2\n")
    }

    @Test func convertsStandardInputToStandardOutput() throws {
        let run = try runBinary(["export", "-", "-", "--format", "openstep"], input: Array("{\"a\": [\"x\", \"y z\"]}".utf8))
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputText == "{\n  a = (\n    x,\n    \"y z\"\n  );\n}\n")
        let lint = try runBinary(["lint", "-"], input: Array("[1, 2".utf8))
        #expect(lint.status == 65)
        #expect(lint.error == "prefs: standard input: JSON: line 1, column 6: unterminated array\n")
    }

    @Test func binaryRoundTripThroughTheCommandIsExact() throws {
        let source = try Fixtures.conformance("plist/cpython-plistlib/valid/keyed_archive.bin.plist")
        let binary = try runBinary(["export", source, "-", "--format", "binary"])
        #expect(binary.status == 0)
        let original = try PropertyList.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))).value
        #expect(try PropertyList.decode(binary.output).value == original)
    }

    @Test func usageErrorsExit64() throws {
        let run = try runBinary(["export", "only-one-operand.plist"])
        #expect(run.status == 64)
        #expect(run.error == "prefs: usage: prefs export DOMAIN PATH|-\n")
        #expect(try runBinary([]).status == 64)
        #expect(try runBinary(["--version"]).outputText.hasPrefix("prefs "))
    }
}
