import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `export --format env` and `github`, read back by readers written from the documented rules:
/// systemd's `EnvironmentFile=` (systemd.exec(5)), `docker run --env-file` (each line `NAME=VALUE`,
/// VALUE verbatim, leading whitespace of a line dropped, `#` lines skipped) and GitHub Actions'
/// `$GITHUB_ENV` (`NAME=VALUE`, or `NAME<<DELIMITER`, lines, `DELIMITER`).
@Suite(.runsProcesses) struct EnvironmentFileTests {
    static let readers = #"""
        import json, sys
        def systemd(t):
            env, i, n = {}, 0, len(t)
            while i < n:
                while i < n and t[i] in ' \t\r\n': i += 1
                if i >= n: break
                if t[i] in '#;':
                    while i < n and t[i] != '\n': i += 1
                    continue
                j = t.index('=', i); name = t[i:j].strip(); i = j + 1
                while i < n and t[i] in ' \t\r': i += 1
                val = ''
                if i < n and t[i] == "'":
                    k = t.index("'", i + 1); val = t[i + 1:k]; i = k + 1
                elif i < n and t[i] == '"':
                    i += 1
                    while t[i] != '"':
                        if t[i] == '\\':
                            c = t[i + 1]
                            val += c if c in '"\\`$' else ('' if c == '\n' else '\\' + c); i += 2
                        else:
                            val += t[i]; i += 1
                    i += 1
                else:
                    while i < n and t[i] != '\n':
                        if t[i] == '\\':
                            if i + 1 < n and t[i + 1] != '\n': val += t[i + 1]
                            i += 2
                        else:
                            val += t[i]; i += 1
                    val = val.rstrip(' \t\r')
                while i < n and t[i] != '\n': i += 1
                env[name] = val
            return env
        def docker(t):
            env = {}
            for line in t.split('\n'):
                line = line.lstrip()
                if line and not line.startswith('#'):
                    name, _, val = line.partition('='); env[name] = val
            return env
        def github(t):
            env, lines, i = {}, t.split('\n'), 0
            while i < len(lines):
                line = lines[i]; i += 1
                if not line: continue
                if '<<' in line and ('=' not in line or line.index('<<') < line.index('=')):
                    name, delimiter = line.split('<<', 1); body = []
                    while lines[i] != delimiter: body.append(lines[i]); i += 1
                    i += 1; env[name] = '\n'.join(body)
                else:
                    name, val = line.split('=', 1); env[name] = val
            return env
        text = open(sys.argv[2], encoding='utf-8', newline='').read()
        print(json.dumps({r: globals()[r](text) for r in sys.argv[1].split(',')}))
        """#

    /// What each reader makes of the file.
    static func read(_ path: String, with readers: [String]) async throws -> [String: [String: String]] {
        let run = try await runProcess("/usr/bin/python3", ["-c", readers_, readers.joined(separator: ","), path])
        guard run.status == 0 else { throw TestFailure(run.error) }
        return try JSONDecoder().decode([String: [String: String]].self, from: Data(run.output))
    }
    static let readers_ = readers

    /// Values an env file can hold as they are: systemd and docker both read each one back exactly.
    static let holdable: [(String, String)] = [
        ("substitution", "$(touch pwned)"), ("backquotes", "`touch pwned`"), ("quotes", #"it's "x" '"#), ("equals", "a=b c"),
        ("hash", "#not a comment"), ("semicolon", ";x"), ("unicode", "héllo ✓"), ("empty", ""), ("inner", "a  \t b"),
        ("dollar", "${HOME}"), ("control", "\u{1}x"),
    ]

    static func write(_ sandbox: ProcessSandbox, _ values: [(String, String)]) async throws {
        let run = try await runProcess(Paths.binary, ["write", "s"] + values.flatMap { [$0.0, "-string", $0.1] }, environment: sandbox.environment)
        guard run.status == 0 else { throw TestFailure(run.error) }
    }

    @Test func envFormatReadsBackAlikeInSystemdAndDocker() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        try await EnvironmentFileTests.write(sandbox, EnvironmentFileTests.holdable)
        let run = try await sandbox.prefs("export", "s", work.file("app.env"), "--format", "env")
        #expect(run.status == 0, "\(run.error)")
        let read = try await EnvironmentFileTests.read(work.file("app.env"), with: ["systemd", "docker"])
        let expected = Dictionary(uniqueKeysWithValues: EnvironmentFileTests.holdable)
        #expect(read["systemd"] == expected)
        #expect(read["docker"] == expected)
    }

    /// What the two would read differently, or cannot hold, is refused naming the key: exit 65,
    /// nothing written.
    @Test(arguments: [
        ("a\nb", "holds a line break"), ("a\rb", "holds a line break"), (#"C:\dir"#, "holds a backslash"),
        ("\"x\"", "starts with a quote"), ("'x'", "starts with a quote"), (" x", "starts or ends with whitespace"),
        ("x\t", "starts or ends with whitespace"), (String(Unicode.Scalar(0xFEFF)!) + "x", "holds U+FEFF or a Unicode noncharacter"),
        (String(Unicode.Scalar(0xFDD0)!), "holds U+FEFF or a Unicode noncharacter"),
    ] as [(String, String)])
    func envFormatRefusesWhatItCannotHold(value: String, reason: String) throws {
        let home = InMemoryHome()
        home.run("write", "s", "fine", "ok", "bad_one", "-string", value)
        let run = home.run("export", "s", "/home/u/app.env", "--format", "env")
        #expect(run.status == .dataError)
        #expect(run.error == "prefs: s: bad_one: \(reason), which an env file (systemd's EnvironmentFile=, docker's --env-file) cannot hold as it is; use --format sh\n")
        #expect(throws: PrefsError.fileNotFound(path: "/home/u/app.env")) { try home.fileSystem.contents(of: "/home/u/app.env") }
    }

    @Test func githubFormatHoldsLinesAndPicksAFreeDelimiter() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let values = [("one", "single $(x) `y` \\"), ("multi", "first\n\nlast\n"), ("clash", "EOF_PREFS\nEOF_PREFS_1\nEOF_PREFS_2x"),
                      ("empty", ""), ("tricky", "a<<b=c")]
        try await EnvironmentFileTests.write(sandbox, values)
        #expect(try await sandbox.prefs("export", "s", work.file("github.env"), "--format", "github").status == 0)
        #expect(try await EnvironmentFileTests.read(work.file("github.env"), with: ["github"])["github"] == Dictionary(uniqueKeysWithValues: values))
        let text = try String(contentsOfFile: work.file("github.env"), encoding: .utf8)
        #expect(text.contains("clash<<EOF_PREFS_2\nEOF_PREFS\n"))
        let refused = InMemoryHome()
        refused.run("write", "s", "cr", "a\rb")
        #expect(refused.run("export", "s", "-", "--format", "github").error
                == "prefs: s: cr: holds a carriage return, which a GitHub Actions environment file cannot hold; use --format sh\n")
    }
}
