import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// What `exec` and `export --format sh|env|github` hand a program comes from the named suites only,
/// never sets a name that changes how a program is loaded or a shell runs unless the user names it
/// in `--keys`, and fits in an environment; a refusal is 65, before anything runs or is written.
@Suite(.runsProcesses) struct EnvironmentTrustTests {
    static func run(_ sandbox: ProcessSandbox, _ arguments: [String], in directory: String? = nil) async throws -> ProcessResult {
        try await runProcess(Paths.binary, arguments, environment: sandbox.environment, workingDirectory: directory)
    }

    static func check(_ run: ProcessResult) throws {
        guard run.status == 0 else { throw TestFailure(run.error) }
    }

    /// A script that leaves the file `ran` beside it when a shell runs it.
    static func evil(_ work: TemporaryDirectory) throws -> String {
        try work.write("evil.sh", "touch \(work.file("ran"))\n")
    }

    /// How a shell is run so that it reads its start-up file: bash reads `$BASH_ENV` for a script,
    /// dash `$ENV` only when interactive.
    static func shellWords(_ shell: String, _ script: String) -> [String] {
        shell.hasSuffix("dash") ? [shell, "-i", "-c", script] : [shell, "-c", script]
    }

    /// `prefs write -g BASH_ENV evil.sh` (or `ENV`) runs nothing in `prefs exec app -- SHELL …`, nor
    /// after `eval "$(prefs export app - --effective --format sh)"`: the global suite's keys reach a
    /// command only when it is named (`-g`) or its keys are (`--keys`), and then BASH_ENV is still
    /// refused unless named.
    @Test(arguments: ["/bin/bash", "/bin/dash"])
    func theGlobalSuiteReachesACommandOnlyWhenNamed(shell: String) async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let evil = try EnvironmentTrustTests.evil(work)
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["write", "-g", "BASH_ENV", evil, "ENV", evil, "AppleLocale", "en_GB"]))
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["write", "app", "timeout", "-int", "30"]))
        let script = #"printf '%s|%s|%s|%s' "${timeout-unset}" "${AppleLocale-unset}" "${BASH_ENV-unset}" "${ENV-unset}""#
        let plain = try await EnvironmentTrustTests.run(sandbox, ["exec", "app", "--"] + EnvironmentTrustTests.shellWords(shell, script))
        #expect(plain.status == 0 && plain.outputText == "30|unset|unset|unset", "\(plain.outputText) \(plain.error)")
        let exported = try await runProcess(shell, ["-c", #"eval "$(prefs export app - --effective --format sh)" && "#
                                                    + "/bin/bash -c : && /bin/dash -i -c : </dev/null 2>/dev/null && " + script],
                                            environment: sandbox.environment)
        #expect(exported.status == 0 && exported.outputText == "30|unset|unset|unset", "\(exported.outputText) \(exported.error)")
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")), "the global suite's BASH_ENV or ENV ran")
        // Named: -g brings the global suite, whose BASH_ENV is refused (65) before anything runs.
        let global = try await EnvironmentTrustTests.run(sandbox, ["exec", "-g", "app", "--"] + EnvironmentTrustTests.shellWords(shell, script))
        #expect(global.status == 65 && global.output.isEmpty)
        #expect(global.error == "prefs: NSGlobalDomain: BASH_ENV: refused: a shell runs the file it names when it starts; name it in --keys to set it\n")
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")))
        // Its keys named in --keys come from it, with -g or without.
        for arguments in [["exec", "-g", "app", "--keys", "timeout,AppleLocale"], ["exec", "app", "--keys", "timeout", "--keys", "AppleLocale"]] {
            let named = try await EnvironmentTrustTests.run(sandbox, arguments + ["--"] + EnvironmentTrustTests.shellWords(shell, script))
            #expect(named.status == 0 && named.outputText == "30|en_GB|unset|unset", "\(arguments): \(named.outputText) \(named.error)")
        }
        let keyed = try await EnvironmentTrustTests.run(sandbox, ["export", "app", "-", "--effective", "--format", "sh", "--keys", "AppleLocale"])
        #expect(keyed.outputText == "export AppleLocale='en_GB'\n", "\(keyed.error)")
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")))
    }

    /// Names the loader or a shell obeys, one by one, stored in a suite.
    static let denied = ["LD_PRELOAD", "LD_LIBRARY_PATH", "PATH", "IFS", "PS4", "PS1", "PROMPT_COMMAND", "BASH_FUNC_greet", "BASH_ENV",
                         "ENV", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE", "GCONV_PATH", "GLIBC_TUNABLES", "TMPDIR", "HOME", "SHELL"]

    /// A denied name is refused (65, naming suite, key and reason) by `exec` and every `export`
    /// form before anything runs or is written (a file exported to stays as it was); named in
    /// `--keys` it is given.
    @Test(arguments: denied)
    func aDeniedNameIsRefusedUnlessNamed(name: String) async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["write", "s", "fine", "1", name, "-string", "given-\(name)"]))
        let reason = try #require(EnvironmentPolicy.danger(of: name))
        let message = "prefs: s: \(name): refused: \(reason); name it in --keys to set it\n"
        let exec = try await EnvironmentTrustTests.run(sandbox, ["exec", "s", "--", "/usr/bin/touch", work.file("ran")])
        #expect(exec.status == 65 && exec.error == message, "\(exec.error)")
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")), "COMMAND ran")
        let target = try work.write("out", "before\n")
        for format in ["sh", "env", "github"] {
            for path in ["-", target] {
                let export = try await EnvironmentTrustTests.run(sandbox, ["export", "s", path, "--format", format])
                #expect(export.status == 65 && export.error == message && export.output.isEmpty, "\(format) \(path): \(export.error)")
            }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "before\n")
        }
        let named = try await EnvironmentTrustTests.run(sandbox, ["exec", "s", "--keys", "fine,\(name)", "--", "/usr/bin/env", "-0"])
        #expect(named.status == 0, "\(named.error)")
        #expect(ExecTests.environment(named.output)[name] == "given-\(name)")
        let sh = try await EnvironmentTrustTests.run(sandbox, ["export", "s", "-", "--format", "sh", "--keys", name])
        #expect(sh.outputText == "export \(name)='given-\(name)'\n", "\(sh.error)")
    }

    /// The man page lists exactly the names refused (its "Names refused" list under export).
    @Test func theManPageListsTheDenyList() throws {
        let man = try Paths.text("man/prefs.1")
        let heading = try #require(man.range(of: ".B Names refused."))
        let start = try #require(man.range(of: "\n.RS\n", range: heading.upperBound..<man.endIndex))
        let end = try #require(man.range(of: "\n.RE\n", range: start.upperBound..<man.endIndex))
        let listed = man[start.upperBound..<end.lowerBound].split(separator: "\n").filter { $0.hasPrefix(".B ") }
            .flatMap { $0.dropFirst(3).split(separator: " ").map(String.init) }
        let expected = ["LD_*", "BASH_FUNC_*"] + EnvironmentPolicy.unsecure + EnvironmentPolicy.shell.keys
        #expect(listed.sorted() == expected.sorted())
        for name in listed {
            #expect(EnvironmentPolicy.danger(of: name.replacing("*", with: "X")) != nil, "\(name)")
        }
    }

    /// A denied name from another layer (a registered default) is refused as well; a key that can
    /// be no name, such as bash's exported function `BASH_FUNC_f%%`, is refused when stored and left
    /// out (counted) when it comes from another layer.
    @Test func deniedNamesFromEveryLayerAndFunctionsAreRefused() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["register", "app", "LD_PRELOAD", "/tmp/x.so"]))
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["write", "app", "k", "v"]))
        let touch = ["--", "/usr/bin/touch", work.file("ran")]
        let registered = try await EnvironmentTrustTests.run(sandbox, ["exec", "app"] + touch)
        #expect(registered.status == 65)
        #expect(registered.error == "prefs: app: LD_PRELOAD: refused: the dynamic loader obeys LD_* names; name it in --keys to set it\n")
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["register", "app", "--delete", "LD_PRELOAD"]))
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["register", "app", "BASH_FUNC_f%%", "-string", "() { touch pwned; }"]))
        let leftOut = try await EnvironmentTrustTests.run(sandbox, ["exec", "app", "--", "/usr/bin/env", "-0"])
        #expect(leftOut.status == 0 && leftOut.error == "prefs: exec: 1 key of app is no variable name and was left out\n", "\(leftOut.error)")
        #expect(ExecTests.environment(leftOut.output).keys.filter { $0.hasPrefix("BASH_FUNC") }.isEmpty)
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["write", "app", "BASH_FUNC_f%%", "-string", "() { touch pwned; }"]))
        let stored = try await EnvironmentTrustTests.run(sandbox, ["exec", "app"] + touch)
        #expect(stored.status == 65 && stored.error.hasPrefix("prefs: app: BASH_FUNC_f%%: not a valid environment variable name"), "\(stored.error)")
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")))
    }

    /// The sh form, evaluated by bash and by dash, never sets a denied name: the export is refused,
    /// so nothing is evaluated, and a shell started after runs nothing.
    @Test(arguments: ["/bin/bash", "/bin/dash"])
    func theShFormEvaluatedSetsNoDeniedName(shell: String) async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let evil = try EnvironmentTrustTests.evil(work)
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["write", "s", "fine", "1", "BASH_ENV", evil, "ENV", evil,
                                                                                  "IFS", "x", "PS4", "-string", "$(touch \(work.file("ran")))"]))
        let script = #"out=$(prefs export s - --format sh) || { echo "refused $?"; exit 0; }; eval "$out"; "#
            + "/bin/bash -c : ; /bin/dash -i -c : </dev/null 2>/dev/null; echo evaluated"
        let run = try await runProcess(shell, ["-c", script], environment: sandbox.environment)
        #expect(run.outputText == "refused 65\n", "\(run.outputText) \(run.error)")
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")))
        let named = try await runProcess(shell, ["-c", #"eval "$(prefs export s - --format sh --keys fine)" && echo "$fine""#], environment: sandbox.environment)
        #expect(named.outputText == "1\n", "\(named.error)")
    }

    /// A variable larger than an environment can hold (128 KiB as NAME=VALUE with its NUL) is
    /// refused by `exec` and `export` (65, naming the key); one just within it is given. A line
    /// longer than docker's --env-file reads (65,535 bytes) is refused by the env form only.
    @Test func oversizedValuesAreRefusedNamingTheKey() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let limit = 128 * 1024
        let fits = try work.write("fits.json", #"{"big": "\#(String(repeating: "x", count: limit - 5))"}"#)
        let over = try work.write("over.json", #"{"ok": "1", "big": "\#(String(repeating: "x", count: limit - 4))"}"#)
        let given = try await EnvironmentTrustTests.run(sandbox, ["exec", fits, "--", "/bin/sh", "-c", #"printf %s "${#big}""#])
        #expect(given.status == 0 && given.outputText == "\(limit - 5)", "\(given.error)")
        let message = "prefs: \(over): big: is \(limit + 1) bytes as NAME=VALUE, more than one environment variable can hold (128 KiB)\n"
        let refused = try await EnvironmentTrustTests.run(sandbox, ["exec", over, "--", "/usr/bin/touch", work.file("ran")])
        #expect(refused.status == 65 && refused.error == message, "\(refused.error)")
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")))
        for format in ["sh", "env", "github"] {
            let export = try await EnvironmentTrustTests.run(sandbox, ["export", over, "-", "--format", format])
            #expect(export.status == 65 && export.error == message && export.output.isEmpty, "\(format): \(export.error)")
        }
        let line = 64 * 1024 - 1
        let longest = try work.write("longest.json", #"{"mid": "\#(String(repeating: "x", count: line - 4))"}"#)
        let longer = try work.write("longer.json", #"{"mid": "\#(String(repeating: "x", count: line - 3))"}"#)
        #expect(try await EnvironmentTrustTests.run(sandbox, ["export", longest, "-", "--format", "env"]).output.count == line + 1)
        let env = try await EnvironmentTrustTests.run(sandbox, ["export", longer, "-", "--format", "env"])
        #expect(env.status == 65 && env.output.isEmpty)
        #expect(env.error.hasPrefix("prefs: \(longer): mid: is a line of \(line + 1) bytes, longer than docker's --env-file reads (\(line))"), "\(env.error)")
        #expect(try await EnvironmentTrustTests.run(sandbox, ["export", longer, "-", "--format", "sh"]).status == 0)
    }

    /// Variables that fit one by one but not together past ARG_MAX (here 256 KiB: a quarter of a
    /// 1 MiB stack) are refused (65) naming the suite and the largest key, before anything runs.
    @Test func aTotalPastArgMaxIsRefused() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let values = ["a": 90_000, "b": 100_000, "c": 90_000].map { #""\#($0.key)": "\#(String(repeating: "x", count: $0.value))""# }
        let suite = try work.write("three.json", "{" + values.joined(separator: ", ") + "}")
        let run = try await sandbox.shell("""
            ulimit -s 1024
            prefs exec \(suite) -- /usr/bin/touch \(work.file("ran")); echo "exec $?"
            prefs export \(suite) - --format sh >/dev/null; echo "export $?"
            prefs exec \(suite) --keys a,c -- /bin/true; echo "two $?"
            """)
        #expect(run.outputText == "exec 65\nexport 65\ntwo 0\n", "\(run.error)")
        let lines = run.error.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.hasPrefix("prefs: \(suite): b: the environment would be ") && $0.hasSuffix("more than a program can be given (ARG_MAX, 262144 bytes)") },
                "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")))
    }

    /// Without the global suite, a key it holds shows the suite's own registered default, as an
    /// application that never read the global suite would see it, and the global suite named as a
    /// DOMAIN (`-g`) leaves out its keys that are no names (a Mac's `com.apple.…`), counted, where a
    /// suite's own such key is refused.
    @Test func withoutTheGlobalSuiteTheSuitesOwnDefaultsShow() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let defaults = try work.write("defaults.json", #"{"theme": "light"}"#)
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["register", "app", defaults]))
        try EnvironmentTrustTests.check(await EnvironmentTrustTests.run(sandbox, ["write", "-g", "theme", "dark", "com.apple.swipescrolldirection", "-bool", "false"]))
        let script = #"printf '%s' "${theme-unset}""#
        let plain = try await EnvironmentTrustTests.run(sandbox, ["exec", "app", "--", "/bin/sh", "-c", script])
        #expect(plain.status == 0 && plain.outputText == "light", "\(plain.outputText) \(plain.error)")
        let exported = try await EnvironmentTrustTests.run(sandbox, ["export", "app", "-", "--effective", "--format", "env"])
        #expect(exported.status == 0 && exported.outputText == "theme=light\n", "\(exported.outputText) \(exported.error)")
        let global = try await EnvironmentTrustTests.run(sandbox, ["exec", "-g", "app", "--", "/bin/sh", "-c", script])
        #expect(global.status == 0 && global.outputText == "dark", "\(global.outputText) \(global.error)")
        #expect(global.error == "prefs: exec: 1 key of NSGlobalDomain is no variable name and was left out\n")
    }
}
