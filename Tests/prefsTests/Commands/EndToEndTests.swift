import Foundation
import Testing
@testable import PrefsCore

/// The real binary, as scripts run it: exit statuses, stdout for data, one stderr line for errors.
@Suite(.runsProcesses) struct EndToEndTests {
    @Test func lintsTheConformanceCorpus() async throws {
        let good = try Fixtures.conformance("plist/cpython-plistlib/valid/testdata.xml.plist")
        let bad = try Fixtures.conformance("plist/cpython-plistlib/invalid-binary/19-too-large-reference-index.bplist")
        let ok = try await runBinary(["lint", good])
        #expect(ok.status == 0)
        #expect(ok.outputText == "\(good): OK\n")
        let failed = try await runBinary(["lint", bad])
        #expect(failed.status == 65)
        #expect(failed.outputText.isEmpty)
        #expect(failed.error == "prefs: \(bad): binary plist: reference 2 at byte 9 is not below the object count 2\n")
    }

    @Test func convertsStandardInputToStandardOutput() async throws {
        let run = try await runBinary(["export", "-", "-", "--format", "openstep"], input: Array("{\"a\": [\"x\", \"y z\"]}".utf8))
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputText == "{\n  a = (\n    x,\n    \"y z\"\n  );\n}\n")
        let lint = try await runBinary(["lint", "-"], input: Array("[1, 2".utf8))
        #expect(lint.status == 65)
        #expect(lint.error == "prefs: standard input: JSON: line 1, column 6: unterminated array\n")
    }

    @Test func binaryRoundTripThroughTheCommandIsExact() async throws {
        let source = try Fixtures.conformance("plist/cpython-plistlib/valid/keyed_archive.bin.plist")
        let binary = try await runBinary(["export", source, "-", "--format", "binary"])
        #expect(binary.status == 0)
        let original = try PropertyList.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))).value
        #expect(try PropertyList.decode(binary.output).value == original)
    }

    @Test func usageErrorsExit64() async throws {
        let run = try await runBinary(["import", "only-one-operand.plist"])
        #expect(run.status == 64)
        #expect(run.error == "prefs: usage: prefs import DOMAIN PATH|-\n")
        #expect(try await runBinary([]).status == 64)
        #expect(try await runBinary(["--version"]).outputText.hasPrefix("prefs "))
    }
}

/// The storage promises seen from outside, with the real binary on a real directory.
@Suite(.runsProcesses) struct StoragePromiseEndToEndTests {
    @Test func readingCreatesNothingAndWritingCreatesAPrivateStore() async throws {
        let sandbox = try ProcessSandbox()
        #expect(try await sandbox.prefs("read", "app", "k").status == 1)
        #expect(try await sandbox.prefs("read", "app").status == 1)
        #expect(try await sandbox.prefs("domains").outputText.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.config))
        #expect(try await sandbox.prefs("write", "app", "k", "v").status == 0)
        let directory = try FileManager.default.attributesOfItem(atPath: sandbox.config)
        let file = try FileManager.default.attributesOfItem(atPath: sandbox.config + "/app.plist")
        #expect((directory[.posixPermissions] as? Int) == 0o700)
        #expect((file[.posixPermissions] as? Int) == 0o600)
        #expect(try sandbox.files() == ["app.plist"])
    }

    @Test func aNoOpWriteKeepsTheInodeAndTime() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "-int", "1", "list", "-array", "a")
        var before = stat()
        stat(sandbox.config + "/app.plist", &before)
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await sandbox.prefs("write", "app", "k", "-int", "1").status == 0)
        #expect(try await sandbox.prefs("write", "app", "list", "-array", "a").status == 0)
        var after = stat()
        stat(sandbox.config + "/app.plist", &after)
        #expect(before.st_ino == after.st_ino)
        #expect(before.st_mtim.tv_sec == after.st_mtim.tv_sec && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec)
    }

    @Test func aCorruptSuiteStaysByteIdentical() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let corrupt = Array("<?xml version=\"1.0\"?><plist><dict><key>k</key><string>v</string>".utf8)
        try Data(corrupt).write(to: URL(fileURLWithPath: sandbox.config + "/app.plist"))
        for arguments in [["write", "app", "k", "w"], ["write", "app", "other", "1"], ["delete", "app", "k"], ["rename", "app", "k", "j"],
                          ["write", "app", "{ a = 1; }"], ["read", "app"], ["read", "app", "k"]] {
            let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
            #expect(run.status == 65, "\(arguments)")
            #expect(run.error.contains("app.plist"), "\(arguments): \(run.error)")
        }
        #expect(try Fixtures.bytes(sandbox.config + "/app.plist") == corrupt)
        #expect(try sandbox.files() == ["app.plist"])
    }
}
