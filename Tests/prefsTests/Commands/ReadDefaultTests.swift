import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `read DOMAIN KEY --default [TYPE] VALUE`: the fallback a script needs, without hiding real errors.
@Suite(.runsProcesses) struct ReadDefaultTests {
    @Test(arguments: [
        (["--default", "30"], "30\n"),
        (["--default", "-int", "30"], "30\n"),
        (["--default=-int", "30"], "30\n"),
        (["--default", "-bool", "no"], "false\n"),
        (["--default", "-float", "1"], "1.0\n"),
        (["--default", "-date", "2026-01-02"], "2026-01-02T00:00:00Z\n"),
        (["--default", "-data", "0a0B"], "0a0b\n"),
        (["--default", "(a, b)"], "(\n    a,\n    b\n)\n"),
        (["--default", "-json", #"{"w": 640}"#], "{\n    w = 640;\n}\n"),
        (["--default", "-string", "-int"], "-int\n"),
        (["--default", "-5"], "-5\n"),
        (["--default", "x", "--default", "-int", "7"], "7\n"),
    ])
    func anAbsentKeyPrintsTheDefault(options: [String], output: String) throws {
        let home = InMemoryHome()
        home.run("write", "app", "other", "1")
        #expect(home.run(["read", "app", "timeout"] + options) == (.success, output, ""))
        // A suite that is not there at all: the key is absent too.
        #expect(home.run(["read", "nosuch", "timeout"] + options) == (.success, output, ""))
    }

    @Test func aStoredValueWinsOverTheDefault() throws {
        let home = InMemoryHome()
        home.run("write", "app", "timeout", "-int", "60")
        #expect(home.run("read", "app", "timeout", "--default", "-int", "30") == (.success, "60\n", ""))
        home.run("register", "app", "theme", "light")
        #expect(home.run("read", "app", "theme", "--default", "dark") == (.success, "light\n", ""))
        #expect(home.run("read", "app", "theme", "--default", "dark", "--origin").output.hasPrefix("registered:"))
    }

    @Test func theDefaultWorksWithTheOutputOptions() throws {
        let home = InMemoryHome()
        #expect(home.run("read", "app", "k", "--default", "-int", "5", "--json") == (.success, "5\n", ""))
        #expect(home.run("read", "app", "k", "--default", "-int", "5", "--origin") == (.success, "command-line\t5\n", ""))
        #expect(home.run("read", "app", ":a:b", "--default", "x", "--raw") == (.success, "x", ""))
        #expect(home.run("read", "app", "k", "--default", "-int", "5", "--raw").status == .dataError)
        #expect(home.run("read", "app", "k", "--default", "{ a = 1; b = 2; }", "--keys") == (.success, "a\nb\n", ""))
    }

    /// Real errors still fail: a bad default (65, before anything is read), a malformed suite (65), a
    /// path through a scalar (65), a file named by its path that is missing (66).
    @Test func realErrorsStillFail() throws {
        let home = InMemoryHome()
        home.run("write", "app", "s", "text")
        #expect(home.run("read", "app", "s", "--default", "-int", "abc") ==
            (.dataError, "", "prefs: --default -int \"abc\": not a decimal integer from -9223372036854775808 to 18446744073709551615\n"))
        #expect(home.run("read", "app", ":s:inner", "--default", "x").status == .dataError)
        try home.fileSystem.createDirectory("/home/u/.config", mode: 0o700)
        try home.fileSystem.replace("/home/u/.config/broken.plist", with: Array("<plist><dict>".utf8), newFileMode: 0o600)
        #expect(home.run("read", "broken", "k", "--default", "x").status == .dataError)
        #expect(home.run("read", "/home/u/missing.plist", "k", "--default", "x").status == .noInput)
        #expect(home.run("read", "app", "k", "--default", "-int").status == .usage)
    }

    /// Scripts: the value, the default, or a real failure told apart by the exit status.
    @Test func theReadmeIdiomFailsOnARealError() async throws {
        let sandbox = try ProcessSandbox()
        let script = #"timeout=$(prefs read com.example.app timeout --default -int 30) && echo "timeout $timeout" || echo "failed $?""#
        #expect(try await sandbox.shell(script).outputText == "timeout 30\n")
        try await sandbox.prefs("write", "com.example.app", "timeout", "-int", "60")
        #expect(try await sandbox.shell(script).outputText == "timeout 60\n")
        try FileManager.default.removeItem(atPath: sandbox.config + "/com.example.app.plist")
        try "<plist><dict>".write(toFile: sandbox.config + "/com.example.app.plist", atomically: true, encoding: .utf8)
        #expect(try await sandbox.shell(script).outputText == "failed 65\n")
    }

    @Test(arguments: [
        (["read", "s", "k", "--default", "-int", "30"], ["default": ["-int", "30"]], ["s", "k"]),
        (["read", "s", "k", "--default", "30"], ["default": ["30"]], ["s", "k"]),
        (["read", "s", "k", "--default", "-x"], ["default": ["-x"]], ["s", "k"]),
        (["read", "s", "--default", "-json", "[1]", "k"], ["default": ["-json", "[1]"]], ["s", "k"]),
    ] as [([String], [String: [String]], [String])])
    func theDefaultTakesATypeFlagAndItsValue(arguments: [String], options: [String: [String]], operands: [String]) throws {
        #expect(try Arguments.parse(arguments) == Invocation(action: .verb("read"), options: options, operands: operands))
        #expect(TypedText.occurrences(["-int", "30", "x", "-bool", "-int"]) ==
            [TypedText(flag: "-int", text: "30"), TypedText(flag: nil, text: "x"), TypedText(flag: "-bool", text: "-int")])
    }
}
