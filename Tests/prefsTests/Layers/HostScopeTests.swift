import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `-currentHost` and `-host NAME` before the verb, with the real binary: every verb works on the
/// ByHost suites, where `defaults -currentHost` keeps them, and reads see them above the suites.
@Suite(.runsProcesses) struct HostScopeTests {
    static let host = "0123456789abcdef0123456789abcdef"

    /// Runs prefs in the sandbox with `PREFS_HOST_ID` set (nothing reads `/etc/machine-id`).
    static func run(_ sandbox: ProcessSandbox, _ arguments: String..., input: [UInt8] = [], host: String? = HostScopeTests.host) async throws -> ProcessResult {
        var environment = sandbox.environment
        environment["PREFS_HOST_ID"] = host
        return try await runProcess(Paths.binary, arguments, input: input, environment: environment)
    }

    static func byHost(_ sandbox: ProcessSandbox, _ suite: String, host: String = HostScopeTests.host) throws -> PrefValue? {
        let path = sandbox.config + "/ByHost/" + suite + "." + host + ".plist"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try PropertyList.decode(try Fixtures.bytes(path)).value
    }

    @Test func everyVerbWorksOnTheHostsSuites() async throws {
        let sandbox = try ProcessSandbox()
        let run = { (arguments: [String]) async throws -> ProcessResult in
            var environment = sandbox.environment
            environment["PREFS_HOST_ID"] = HostScopeTests.host
            return try await runProcess(Paths.binary, ["-currentHost"] + arguments, environment: environment)
        }
        #expect(try await run(["write", "com.apple.screensaver", "idleTime", "-int", "0", "a", "x"]).status == 0)
        #expect(try await run(["write", "-g", "AppleFontSmoothing", "-int", "1"]).status == 0)
        #expect(try HostScopeTests.byHost(sandbox, "com.apple.screensaver") == ["idleTime": 0, "a": "x"])
        #expect(try HostScopeTests.byHost(sandbox, ".GlobalPreferences") == ["AppleFontSmoothing": 1])
        #expect(try sandbox.files() == ["ByHost"])
        #expect(try await run(["read", "com.apple.screensaver", "idleTime"]).outputText == "0\n")
        #expect(try await run(["read-type", "com.apple.screensaver", "idleTime"]).outputText == "integer\n")
        #expect(try await run(["rename", "com.apple.screensaver", "a", "b"]).status == 0)
        #expect(try await run(["delete", "com.apple.screensaver", "b"]).status == 0)
        #expect(try await run(["delete", "com.apple.screensaver", "b"]).status == 1)
        #expect(try await run(["domains"]).outputText == "com.apple.screensaver\n")
        #expect(try await run(["find", "idle"]).outputText == "com.apple.screensaver\tidleTime\n")
        #expect(try await PropertyList.decode(try run(["export", "com.apple.screensaver", "-", "--format", "json"]).output).value == ["idleTime": 0])
        let scratch = try TemporaryDirectory()
        let document = try scratch.write("in.plist", try PropertyList.encode(["askForPassword": 1], as: .xml))
        #expect(try await run(["import", "com.apple.screensaver", document]).status == 0)
        #expect(try await run(["reset", "com.apple.screensaver", "idleTime"]).status == 0)
        #expect(try HostScopeTests.byHost(sandbox, "com.apple.screensaver") == ["askForPassword": 1])
        #expect(try await run(["migrate", "com.apple.screensaver", document, "--overwrite"]).status == 0)
        #expect(try await run(["read", "--stored", "com.apple.screensaver"]).status == 0)
        #expect(try await run(["delete", "com.apple.screensaver"]).status == 0)
        #expect(try HostScopeTests.byHost(sandbox, "com.apple.screensaver") == nil)
        // No suite outside ByHost was touched, and the suites themselves see nothing of it.
        #expect(try sandbox.files() == ["ByHost"])
        #expect(try await HostScopeTests.run(sandbox, "domains").outputText == "")
        // Registered defaults are the same on every host; ByHost suites have no external storage.
        #expect(try await run(["register", "com.apple.screensaver", "k", "1"]).status == 64)
        #expect(try await run(["check", "com.apple.screensaver"]).status == 64)
    }

    @Test func hostNamesAFileOfItsOwn() async throws {
        let sandbox = try ProcessSandbox()
        #expect(try await HostScopeTests.run(sandbox, "-host", "studio.local", "write", "app", "k", "studio").status == 0)
        #expect(try await HostScopeTests.run(sandbox, "-host", "laptop", "write", "app", "k", "laptop").status == 0)
        #expect(try HostScopeTests.byHost(sandbox, "app", host: "studio.local") == ["k": "studio"])
        #expect(try HostScopeTests.byHost(sandbox, "app", host: "laptop") == ["k": "laptop"])
        #expect(try await HostScopeTests.run(sandbox, "-host", "laptop", "read", "app", "k", "--origin").outputText == "byhost\tlaptop\n")
        // This machine has neither: the suite does not exist here.
        #expect(try await HostScopeTests.run(sandbox, "read", "app", "k").status == 1)
        #expect(try await HostScopeTests.run(sandbox, "-host", "studio.local", "domains").outputText == "app\n")
    }

    /// What an application sees: the suite for this host, the suite, the global suite for this host,
    /// the global suite, then registered defaults; `--origin` names each.
    @Test func readsSearchTheHostLayersFirst() async throws {
        let sandbox = try ProcessSandbox()
        #expect(try await HostScopeTests.run(sandbox, "write", "app", "a", "suite", "b", "suite").status == 0)
        #expect(try await HostScopeTests.run(sandbox, "-currentHost", "write", "app", "a", "host").status == 0)
        #expect(try await HostScopeTests.run(sandbox, "-currentHost", "write", "-g", "c", "global-host", "d", "global-host").status == 0)
        #expect(try await HostScopeTests.run(sandbox, "write", "-g", "d", "global", "e", "global").status == 0)
        #expect(try await HostScopeTests.run(sandbox, "register", "app", "e", "registered", "f", "registered").status == 0)
        let read = try await HostScopeTests.run(sandbox, "read", "app", "--origin")
        #expect(read.outputText == """
            byhost\ta\thost
            stored\tb\tsuite
            global-byhost\tc\tglobal-host
            global-byhost\td\tglobal-host
            global\te\tglobal
            registered:\(sandbox.data)/prefs/defaults/app.plist\tf\tregistered

            """, "\(read.error)")
        #expect(try await HostScopeTests.run(sandbox, "read", "app", "a").outputText == "host\n")
        #expect(try await HostScopeTests.run(sandbox, "read", "app", "a", "--stored").outputText == "suite\n")
        #expect(try await HostScopeTests.run(sandbox, "-currentHost", "read", "app", "b").outputText == "suite\n")
        #expect(try await HostScopeTests.run(sandbox, "-currentHost", "read", "app", "b", "--stored").status == 1)
        #expect(try await PropertyList.decode(try HostScopeTests.run(sandbox, "export", "app", "-", "--effective").output).value
                == ["a": "host", "b": "suite", "c": "global-host", "d": "global-host", "e": "global", "f": "registered"])
        // Another host sees its own ByHost suites, none here.
        #expect(try await HostScopeTests.run(sandbox, "read", "app", "a", host: "other").outputText == "suite\n")
    }

    @Test func aMissingOrBadHostIsAUsageError() async throws {
        let sandbox = try ProcessSandbox()
        for (arguments, message) in [(["-host"], "-host needs a value (NAME)"),
                                     (["-host", "a/b", "read", "x"], "-host a/b: give"),
                                     (["-currentHost", "-host", "x", "read", "x"], "give -currentHost or -host NAME once")] {
            var environment = sandbox.environment
            environment["PREFS_HOST_ID"] = HostScopeTests.host
            let result = try await runProcess(Paths.binary, arguments, environment: environment)
            #expect(result.status == 64 && result.error.contains(message), "\(arguments): \(result.error)")
        }
        let bad = try await HostScopeTests.run(sandbox, "-currentHost", "read", "x", host: "bad id")
        #expect(bad.status == 64 && bad.error == "prefs: PREFS_HOST_ID=bad id: give \(Environment.hostIDRule)\n")
    }

    /// Without `$PREFS_HOST_ID`, this machine is `/etc/machine-id` (an in-memory one here).
    @Test func theMachineIDFileNamesThisMachine() throws {
        let memory = InMemoryFileSystem()
        try memory.write("/etc/machine-id", Array("feedfacefeedfacefeedfacefeedface\n".utf8))
        let environment = ["XDG_CONFIG_HOME": "/home/u/.config", "HOME": "/home/u"]
        #expect(prefs(["-currentHost", "write", "app", "k", "v"], environment: environment, fileSystem: memory).status == .success)
        #expect(try PropertyList.decode(memory.contents(of: "/home/u/.config/ByHost/app.feedfacefeedfacefeedfacefeedface.plist")).value == ["k": "v"])
        #expect(prefs(["read", "app", "k", "--origin"], environment: environment, fileSystem: memory).output == "byhost\tv\n")
        try memory.removeFile("/etc/machine-id")
        let none = prefs(["-currentHost", "read", "app", "k"], environment: environment, fileSystem: memory)
        #expect(none.status == .usage && none.error.contains("set PREFS_HOST_ID"))
        #expect(prefs(["read", "app", "k"], environment: environment, fileSystem: memory).status == .notFound)
    }

    /// `watch` follows what an application sees: a value for this host over the suite's, and back.
    @Test func watchSeesTheHostsSuite() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "suite")
        let watch = try WatchProcess(sandbox, ["app", "k", "--initial"])
        #expect(await watch.nextLine() == "k (absent) -> suite")
        try await sandbox.prefs("-currentHost", "write", "app", "k", "host")
        #expect(await watch.nextLine() == "k suite -> host")
        try await sandbox.prefs("-currentHost", "delete", "app", "k")
        #expect(await watch.nextLine() == "k host -> suite")
        #expect(watch.errorText.isEmpty)
        watch.process.terminate()
    }

    /// The completions skip the host options when finding the verb, and pass them on to the prefs
    /// calls that list suites and keys.
    @Test(arguments: CompletionShell.allCases)
    func completionsListTheHostsSuitesAndKeys(shell: CompletionShell) async throws {
        let sandbox = try ProcessSandbox()
        sandbox.extraEnvironment["PREFS_HOST_ID"] = "H"
        try #require(await sandbox.prefs("write", "plain", "p", "1").status == 0)
        try #require(await sandbox.prefs("-currentHost", "write", "app", "alpha", "1", "beta", "2").status == 0)
        try #require(await sandbox.prefs("-host", "other", "write", "remote", "gamma", "3").status == 0)
        let work = sandbox.directory.file("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let cases: [(String, [String])] = [
            ("prefs -currentHost read ", ["app", "-g", "NSGlobalDomain"]),
            ("prefs -currentHost read app ", ["alpha", "beta"]),
            ("prefs -host other delete ", ["remote", "-g", "NSGlobalDomain"]),
            ("prefs -host other read remote ", ["gamma"]),
            ("prefs --store=x -currentHost rea", ["read", "read-type"]),
            ("prefs read ", ["plain", "-g", "NSGlobalDomain"]),
        ]
        let results = try await shell.complete(cases.map { ($0.0, .single) }, in: sandbox, directory: work)
        for ((line, expected), result) in zip(cases, results) {
            #expect(result.offers.filter { !$0.hasPrefix("/") && !$0.hasSuffix("/") }.sorted() == expected.sorted(), "\(shell) '\(line)': \(result.offers)")
        }
    }

    @Test func hostOptionsGoBeforeTheVerbInAnyOrderWithStore() throws {
        #expect(try Arguments.parse(["-currentHost", "read", "x"]).host == .current)
        #expect(try Arguments.parse(["-host", "h", "--store=etcd://x", "read", "x"]) == {
            var invocation = Invocation(action: .verb("read"), operands: ["x"], store: "etcd://x")
            invocation.host = .named("h")
            return invocation
        }())
        #expect(try Arguments.parse(["read", "-currentHost", "x"]).operands == ["-currentHost", "x"])
    }
}
