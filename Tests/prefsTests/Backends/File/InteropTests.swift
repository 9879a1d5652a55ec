import Foundation
import Testing
@testable import PrefsCore

/// Foundation's UserDefaults (a real Swift program, XDG_CONFIG_HOME on a temporary directory) and
/// prefs read what the other wrote, with the right types.
@Suite(.runsProcesses) struct UserDefaultsInteropTests {
    @Test func userDefaultsReadsWhatPrefsWrote() async throws {
        let sandbox = try ProcessSandbox()
        try #require(await sandbox.prefs("write", "shared", "integer", "-int", "42", "double", "-float", "1.5", "boolean", "-bool", "yes",
                               "string", "hello world", "date", "-date", "2026-01-02T03:04:05Z", "data", "-data", "0a0bff",
                               "dictionary", "-json", "{\"title\": \"main\", \"width\": 640}").status == 0)
        try #require(await sandbox.prefs("write", "shared", "array", "-array", "a", "-int", "2", "-bool", "no").status == 0)
        let read = try await runProcess(Paths.userDefaultsHelper, ["read", "shared"], environment: sandbox.environment)
        #expect(read.status == 0, "\(read.error)")
        #expect(read.outputText == """
            array\tarray\ta,2,false
            boolean\tboolean\ttrue
            data\tdata\t0a0bff
            date\tdate\t789015845.0
            dictionary\tdictionary\ttitle=main,width=640
            double\tdouble\t1.5
            integer\tinteger\t42
            string\tstring\thello world

            """)
    }

    @Test func prefsReadsWhatUserDefaultsWrote() async throws {
        let sandbox = try ProcessSandbox()
        let write = try await runProcess(Paths.userDefaultsHelper, ["write", "app"], environment: sandbox.environment)
        try #require(write.status == 0, "\(write.error)")
        let expected: [(String, String, String)] = [
            ("integer", "integer", "42"), ("double", "float", "1.5"), ("boolean", "boolean", "true"),
            ("string", "string", "hello world"), ("date", "date", "2026-01-01T03:04:05Z"), ("data", "data", "0a0bff"),
            ("array", "array", "(\n    a,\n    b\n)"), ("dictionary", "dictionary", "{\n    title = main;\n    width = 640;\n}"),
        ]
        for (key, type, text) in expected {
            #expect(try await sandbox.prefs("read-type", "app", key).outputText == type + "\n", "\(key)")
            #expect(try await sandbox.prefs("read", "app", key).outputText == text + "\n", "\(key)")
        }
        // prefs keeps the file UserDefaults reads: XML, mode 0600, and it is still readable after prefs writes.
        try #require(await sandbox.prefs("write", "app", "added", "-int", "7").status == 0)
        #expect(try PropertyList.decode(try Fixtures.bytes(sandbox.config + "/app.plist")).format == .xml)
        let again = try await runProcess(Paths.userDefaultsHelper, ["read", "app"], environment: sandbox.environment)
        #expect(again.outputText.contains("added\tinteger\t7\n") && again.outputText.contains("integer\tinteger\t42\n"))
    }
}
