import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `prefs exec DOMAIN… -- COMMAND…`: COMMAND replaces prefs with the suites' values in its
/// environment; its status and signals are its own; nothing runs when a value cannot be given.
@Suite(.runsProcesses) struct ExecTests {
    static func sandbox() async throws -> ProcessSandbox {
        let sandbox = try ProcessSandbox()
        let pairs = EnvironmentExportTests.hostile.flatMap { [$0.0, "-string", $0.1] }
        try check(await runProcess(Paths.binary, ["write", "hostile"] + pairs, environment: sandbox.environment))
        return sandbox
    }

    static func check(_ run: ProcessResult) throws {
        guard run.status == 0 else { throw TestFailure(run.error) }
    }

    static func run(_ sandbox: ProcessSandbox, _ arguments: [String], in directory: String? = nil) async throws -> ProcessResult {
        try await runProcess(Paths.binary, arguments, environment: sandbox.environment, workingDirectory: directory)
    }

    static func environment(_ output: [UInt8]) -> [String: String] {
        var variables: [String: String] = [:]
        for entry in output.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return variables
    }

    /// Every value reaches COMMAND exactly, and a shell that expands them (bash, dash) runs nothing.
    @Test(arguments: ["/bin/bash", "/bin/dash"])
    func hostileValuesReachTheCommandExactly(shell: String) async throws {
        let sandbox = try await ExecTests.sandbox()
        let work = try TemporaryDirectory()
        let names = EnvironmentExportTests.hostile.map { "\"$\($0.0)\"" }.joined(separator: " ")
        let run = try await ExecTests.run(sandbox, ["exec", "hostile", "--", shell, "-c", "printf '%s\\0' \(names); env -0 > env.out"], in: work.path)
        #expect(run.status == 0, "\(run.error)")
        let printed = run.output.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
        #expect(printed == EnvironmentExportTests.hostile.map(\.1))
        let environment = ExecTests.environment(try Fixtures.bytes(work.file("env.out")))
        for (name, value) in EnvironmentExportTests.hostile { #expect(environment[name] == value, "\(name)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path) == ["env.out"], "something ran")
    }

    /// Layered values (what an application sees); a later DOMAIN wins; the rest of the environment stays.
    @Test func laterDomainsWinAndLayersShow() async throws {
        let sandbox = try ProcessSandbox()
        try await ExecTests.check(try ExecTests.run(sandbox, ["register", "first", "theme", "light"]))
        try await ExecTests.check(try ExecTests.run(sandbox, ["write", "first", "A", "1", "B", "1"]))
        try await ExecTests.check(try ExecTests.run(sandbox, ["write", "second", "B", "2", "flag", "-bool", "yes"]))
        let run = try await ExecTests.run(sandbox, ["exec", "first", "second", "--", "/usr/bin/env", "-0"])
        #expect(run.status == 0, "\(run.error)")
        let environment = ExecTests.environment(run.output)
        #expect(environment["A"] == "1" && environment["B"] == "2" && environment["theme"] == "light" && environment["flag"] == "true")
        #expect(environment["XDG_CONFIG_HOME"] == sandbox.config)
    }

    /// prefs is replaced: COMMAND has prefs' process ID, its exit status and its signals are its own,
    /// SIGPIPE is not left ignored, and words after `--` are COMMAND's even when spelled like options.
    @Test func theCommandReplacesPrefs() async throws {
        let sandbox = try ProcessSandbox()
        try await ExecTests.check(try ExecTests.run(sandbox, ["write", "s", "k", "v"]))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.binary)
        process.arguments = ["exec", "s", "--", "/bin/sh", "-c", "echo $$ > \(sandbox.directory.file("pid")); exit 42"]
        process.environment = sandbox.environment
        try process.run()
        await process.exited()
        #expect(process.terminationStatus == 42)
        #expect(try String(contentsOfFile: sandbox.directory.file("pid"), encoding: .utf8) == "\(process.processIdentifier)\n")
        let killed = Process()
        killed.executableURL = URL(fileURLWithPath: Paths.binary)
        // SIGKILL: the test runner's children inherit a mask blocking most other signals.
        killed.arguments = ["exec", "s", "--", "/bin/sh", "-c", "kill -KILL $$"]
        killed.environment = sandbox.environment
        try killed.run()
        await killed.exited()
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL)
        let ignored = try await ExecTests.run(sandbox, ["exec", "s", "--", "/usr/bin/grep", "SigIgn", "/proc/self/status"])
        let mask = UInt64(ignored.outputText.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", radix: 16)
        #expect(mask.map { $0 & (1 << (UInt64(SIGPIPE) - 1)) == 0 } == true, "\(ignored.outputText)")
        #expect(try await ExecTests.run(sandbox, ["exec", "s", "--", "/bin/echo", "--help", "-h", "--"]).outputText == "--help -h --\n")
    }

    /// Nothing runs when a value cannot be given (a NUL byte, a key that is no name) or a suite is
    /// missing; a COMMAND not found is 127, one that cannot run 126, as env(1) exits.
    @Test func refusalsRunNothing() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        try await ExecTests.check(try ExecTests.run(sandbox, ["write", "s", "fine", "1"]))
        try await ExecTests.check(try ExecTests.run(sandbox, ["write", "dots", "a.b", "1"]))
        let json = try work.write("nul.json", #"{"ok": "x", "nul": "a\u0000b"}"#)
        let touch = ["--", "/usr/bin/touch", work.file("ran")]
        let cases: [([String], Int32, String)] = [
            (["exec", "s", json] + touch, 65, "prefs: \(json): nul: holds a NUL byte, which no environment value can hold\n"),
            (["exec", "s", "dots"] + touch, 65, "prefs: dots: a.b: not a valid environment variable name (letters, digits and _, not starting with a digit); pick keys with --keys\n"),
            (["exec", "s", "missing"] + touch, 1, "prefs: missing: no such suite\n"),
            (["exec", "s", "-"] + touch, 64, "prefs: exec: name a suite or a file, not standard input\n"),
            (["exec", "s", "/usr/bin/touch", work.file("ran")], 64, "prefs: exec: no -- before the COMMAND (usage: prefs exec DOMAIN [DOMAIN...] -- COMMAND [ARG...])\n"),
            (["exec", "s", "s", "--"], 64, "prefs: exec: no COMMAND given (usage: prefs exec DOMAIN [DOMAIN...] -- COMMAND [ARG...])\n"),
            (["exec", "s", "--"], 64, "prefs: usage: prefs exec DOMAIN [DOMAIN...] -- COMMAND [ARG...]\n"),
            (["exec", "s", "--", "no-such-command-\(getpid())"], 127, "prefs: exec: no-such-command-\(getpid()): command not found\n"),
            (["exec", "s", "--", json], 126, "prefs: exec: \(json): cannot run: permission denied\n"),
        ]
        for (arguments, status, message) in cases {
            let run = try await ExecTests.run(sandbox, arguments)
            #expect(run.status == status, "\(arguments)")
            #expect(run.error == message, "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")))
    }

    /// `--keys`: only those keys, from whichever DOMAIN has them; one none has is 1, nothing run.
    @Test func keysPickFromEveryDomain() async throws {
        let sandbox = try ProcessSandbox()
        try await ExecTests.check(try ExecTests.run(sandbox, ["write", "dots", "a.b", "1", "fine", "yes"]))
        try await ExecTests.check(try ExecTests.run(sandbox, ["write", "other", "more", "2", "x.y", "3"]))
        let run = try await ExecTests.run(sandbox, ["exec", "dots", "other", "--keys", "fine", "--keys", "more", "--", "/usr/bin/env", "-0"])
        #expect(run.status == 0, "\(run.error)")
        let environment = ExecTests.environment(run.output)
        #expect(environment["fine"] == "yes" && environment["more"] == "2" && environment["a.b"] == nil)
        let missing = try await ExecTests.run(sandbox, ["exec", "dots", "other", "--keys", "fine,nope", "--", "/usr/bin/touch", sandbox.directory.file("ran")])
        #expect(missing.status == 1 && missing.error == "prefs: dots, other: no key nope\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.directory.file("ran")))
    }

    /// Keys from layers other than the suite's own: the global suite's are left out (it is named
    /// with -g, or its keys with --keys), and so are keys of the suite's other layers (managed values,
    /// system and registered defaults) that are no names, counted in one line on standard error, so
    /// `exec APP` and `export APP --effective --format sh` work, in bash and dash alike; a key the
    /// suite stores itself, or one named in `--keys`, is still refused (65) naming it.
    @Test(arguments: ["/bin/bash", "/bin/dash"])
    func keysFromOtherLayersThatAreNoNamesAreLeftOut(shell: String) async throws {
        let sandbox = try ProcessSandbox()
        try ExecTests.check(try await ExecTests.run(sandbox, ["write", "-g", "com.apple.swipescrolldirection", "-bool", "false", "AppleLocale", "en_GB"]))
        try ExecTests.check(try await ExecTests.run(sandbox, ["register", "app", "ui.theme", "dark", "retries", "-int", "3"]))
        try FileManager.default.createDirectory(atPath: sandbox.administered + "/prefs/managed", withIntermediateDirectories: true)
        _ = try sandbox.directory.write("xdg/prefs/managed/app.json", #"{"policy.url": "https://example.com", "proxy": "none"}"#)
        try ExecTests.check(try await ExecTests.run(sandbox, ["write", "app", "timeout", "-int", "30"]))
        let work = try TemporaryDirectory()
        let script = #"printf '%s|%s|%s|%s|%s' "$timeout" "${AppleLocale-unset}" "$retries" "$proxy" "${policy_url-unset}"; env -0 > env.out"#
        let run = try await ExecTests.run(sandbox, ["exec", "app", "--", shell, "-c", script], in: work.path)
        #expect(run.status == 0 && run.error == "prefs: exec: 2 keys of app are no variable names and were left out\n", "\(run.error)")
        #expect(run.outputText == "30|unset|3|none|unset")
        let environment = ExecTests.environment(try Fixtures.bytes(work.file("env.out")))
        #expect(environment["timeout"] == "30" && environment["AppleLocale"] == nil)
        #expect(!environment.keys.contains { $0.contains(".") }, "\(environment.keys.sorted())")
        let exported = try await runProcess(shell, ["-c", #"eval "$(prefs export app - --effective --format sh)" && printf '%s|%s|%s' "$timeout" "${AppleLocale-unset}" "$retries""#],
                                      environment: sandbox.environment)
        #expect(exported.status == 0 && exported.outputText == "30|unset|3", "\(exported.error)")
        #expect(exported.error == "prefs: export: 2 keys of app are no variable names and were left out\n")
        // Asked for by name, a key that is no name is refused, wherever it comes from.
        let named = try await ExecTests.run(sandbox, ["exec", "app", "--keys", "timeout,com.apple.swipescrolldirection", "--", "/usr/bin/touch", work.file("ran")])
        #expect(named.status == 65 && named.error.hasPrefix("prefs: app: com.apple.swipescrolldirection: not a valid environment variable name"), "\(named.error)")
        // The suite's own key that is no name is refused, even when the global suite has it too.
        try ExecTests.check(try await ExecTests.run(sandbox, ["write", "app", "com.apple.swipescrolldirection", "-bool", "true"]))
        for arguments in [["exec", "app", "--", "/usr/bin/touch", work.file("ran")], ["export", "app", "-", "--effective", "--format", "sh"]] {
            let refused = try await ExecTests.run(sandbox, arguments)
            #expect(refused.status == 65 && refused.output.isEmpty, "\(arguments)")
            #expect(refused.error == "prefs: app: com.apple.swipescrolldirection: not a valid environment variable name (letters, digits and _, not starting with a digit); pick keys with --keys\n")
        }
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")))
    }

    /// On etcd the same: the suite's values, and `export --format sh` evaluates to them.
    @Test func worksOnEtcd() async throws {
        let fleet = try FleetSandbox(try await SharedCluster.oneMember.get())
        try #require(await fleet.prefs("write", "s", "greeting", "-string", "it's $(touch pwned)", "n", "-int", "3").status == 0)
        let run = try await fleet.prefs("exec", "s", "--", "/usr/bin/env", "-0")
        #expect(run.status == 0, "\(run.error)")
        let environment = ExecTests.environment(run.output)
        #expect(environment["greeting"] == "it's $(touch pwned)" && environment["n"] == "3")
        let shell = try await fleet.shell(#"eval "$(prefs export s - --format sh)" && printf '%s|%s' "$greeting" "$n""#)
        #expect(shell.outputText == "it's $(touch pwned)|3", "\(shell.error)")
    }

    /// In-process (as tests run commands), exec refuses instead of replacing the test runner.
    @Test func inProcessItNeverReplacesTheProcess() {
        let home = InMemoryHome()
        home.run("write", "s", "k", "v")
        #expect(home.run("exec", "s", "--", "/bin/true").status == .internalError)
    }
}
