import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `export --format sh|env|github`: a suite as environment variables, read back by real shells
/// (bash and dash) and by readers that follow systemd's, docker's and GitHub's documented rules.
@Suite(.runsProcesses) struct EnvironmentExportTests {
    /// Values that break naive quoting: quotes, command substitutions, backquotes, backslashes,
    /// line breaks, globs, control characters, leading dashes.
    static let hostile: [(String, String)] = [
        ("quotes", #"it's "quoted" ''"#), ("substitution", "$(touch pwned)"), ("backquotes", "`touch pwned`"),
        ("backslashes", #"back\slash\\ \n\'"#), ("lines", "line1\nline2\n\n"), ("spaces", "  spaced  out  "),
        ("dollars", "$HOME ${PATH} $1 $$"), ("semicolon", "; touch pwned; echo '"), ("glob", "*"), ("empty", ""),
        ("unicode", "héllo ✓ 日本"), ("control", "\u{1}\u{7F}tab\t\r"), ("bang", "!! !-1"), ("dash", "-n"),
        ("lone", "'"), ("_under9", "=a=b"),
    ]

    static func hostileSuite() async throws -> ProcessSandbox {
        let sandbox = try ProcessSandbox()
        let pairs = hostile.flatMap { [$0.0, "-string", $0.1] }
        let run = try await runProcess(Paths.binary, ["write", "hostile"] + pairs, environment: sandbox.environment)
        guard run.status == 0 else { throw TestFailure(run.error) }
        return sandbox
    }

    /// `eval "$(prefs export …)"` in bash and dash sets and exports each variable exactly, and runs nothing.
    @Test(arguments: ["/bin/bash", "/bin/dash"])
    func shFormatEvaluatesToTheValuesAndRunsNothing(shell: String) async throws {
        let sandbox = try await EnvironmentExportTests.hostileSuite()
        let work = try TemporaryDirectory()
        let script = #"eval "$(prefs export hostile - --format sh)" || exit 9; env -0"#
        let run = try await runProcess(shell, ["-c", script], environment: sandbox.environment, workingDirectory: work.path)
        #expect(run.status == 0, "\(run.error)")
        var exported: [String: String] = [:]
        for entry in run.output.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            exported[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        for (name, value) in EnvironmentExportTests.hostile {
            #expect(exported[name] == value, "\(shell): \(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty, "something ran")
    }

    @Test func shFormatQuotesEachValue() {
        let home = InMemoryHome()
        home.run("write", "s", "a", "it's", "b", "-int", "3")
        #expect(home.run("export", "s", "-", "--format", "sh").output == "export a='it'\\''s'\nexport b='3'\n")
    }

    /// Every type is written as `read` prints it bare; containers as compact JSON.
    @Test func typesAreWrittenAsReadPrintsThem() {
        let home = InMemoryHome()
        home.run("write", "s", "s", "text", "i", "-int", "-42", "f", "-float", "2.5", "b", "-bool", "yes", "d", "-date", "2026-01-02T03:04:05Z",
                "x", "-data", "0a0B", "l", "-json", #"["a", 1, true]"#, "m", "-dict", "k", "it's")
        let run = home.run("export", "s", "-", "--format", "env")
        #expect(run.status == .success, "\(run.error)")
        #expect(run.output == """
            b=true
            d=2026-01-02T03:04:05Z
            f=2.5
            i=-42
            l=["a",1,true]
            m={"k":"it's"}
            s=text
            x=0a0b

            """)
    }

    @Test(arguments: ["sh", "env", "github"])
    func keysAndEffectiveApply(format: String) throws {
        let home = InMemoryHome()
        home.run("register", "s", "theme", "light")
        home.run("write", "s", "a", "1", "b", "2")
        let prefix = format == "sh" ? "export " : ""
        let quote = format == "sh" ? "'" : ""
        #expect(home.run("export", "s", "-", "--format", format, "--keys", "b").output == "\(prefix)b=\(quote)2\(quote)\n")
        let effective = home.run("export", "s", "-", "--format", format, "--effective", "--keys", "a,theme")
        #expect(effective.output == "\(prefix)a=\(quote)1\(quote)\n\(prefix)theme=\(quote)light\(quote)\n")
        #expect(home.run("export", "s", "-", "--format", format, "--keys", "nope").status == .notFound)
    }

    /// A key that is no variable name, or a NUL byte, is refused naming the key; nothing is written.
    @Test(arguments: [
        (["k.dot", "1"], "prefs: s: k.dot: not a valid environment variable name"),
        (["9lives", "1"], "prefs: s: 9lives: not a valid environment variable name"),
        (["has space", "1"], "prefs: s: has space: not a valid environment variable name"),
        (["$(touch pwned)", "1"], "prefs: s: $(touch pwned): not a valid environment variable name"),
    ] as [([String], String)])
    func badNamesAndNULAreRefused(pair: [String], message: String) throws {
        for format in ["sh", "env", "github"] {
            let home = InMemoryHome()
            home.run(["write", "s", "ok", "fine"] + pair)
            let run = home.run("export", "s", "/home/u/out.env", "--format", format)
            #expect(run.status == .dataError)
            #expect(run.error.hasPrefix(message), "\(run.error)")
            #expect(run.error.split(separator: "\n").count == 1)
            #expect(throws: PrefsError.fileNotFound(path: "/home/u/out.env")) { try home.fileSystem.contents(of: "/home/u/out.env") }
        }
    }

    /// JSON can hold a NUL byte in a string; no environment can.
    @Test(arguments: ["sh", "env", "github"])
    func aNULByteIsRefused(format: String) throws {
        let home = InMemoryHome()
        home.run("write", "s", "a", "1")
        try home.fileSystem.writeFile("/home/u/.config/s.json", Array(#"{"ok": "fine", "nul": "a\u0000b"}"#.utf8), newFileMode: 0o600, lockTimeout: 1)
        let run = home.run("export", "/home/u/.config/s.json", "-", "--format", format)
        #expect(run.status == .dataError)
        #expect(run.error == "prefs: /home/u/.config/s.json: nul: holds a NUL byte, which no environment value can hold\n")
        #expect(run.output.isEmpty)
    }

    @Test(arguments: ["--lossy", "--compact"])
    func documentOptionsAreUsageErrors(option: String) {
        let home = InMemoryHome()
        home.run("write", "s", "a", "1")
        let run = home.run("export", "s", "-", "--format", "env", option)
        #expect(run.status == .usage)
        #expect(run.error == "prefs: export: \(option) is for --format json and typed-json, not env\n")
    }
}
