import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// Host scope under attack, with the real binary: a host NAME or `PREFS_HOST_ID` that could leave
/// the ByHost directory, bytes that are not UTF-8, shell metacharacters in names and keys, symlinks
/// at ByHost paths, empty keys, and a machine with no `/etc/machine-id`.
@Suite(.runsProcesses) struct ByHostConfinementTests {
    /// Every file and directory under the sandbox, relative to it (`defaults` is the link to the binary).
    static func everything(_ sandbox: ProcessSandbox) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: sandbox.directory.path).sorted()
    }

    static let badHosts = ["..", "../x", "../../../x", "a/b", "/x", ".hidden", "", "a b", "$(touch pwned)", "`touch pwned`",
                           "x;touch pwned", "ü", String(repeating: "h", count: 201)]

    /// A host that is not a plain name is refused before any file is touched: as `-host NAME` (64;
    /// 1 with the `defaults` message when run as `defaults`) and as `PREFS_HOST_ID` (64).
    @Test(arguments: badHosts)
    func aHostNameCannotLeaveTheByHostDirectory(name: String) async throws {
        let sandbox = try ProcessSandbox()
        try FileManager.default.createSymbolicLink(atPath: sandbox.directory.file("defaults"), withDestinationPath: Paths.binary)
        let before = try ByHostConfinementTests.everything(sandbox)
        let prefs = try await runProcess(Paths.binary, ["-host", name, "write", "app", "k", "v"], environment: sandbox.environment)
        #expect(prefs.status == 64 && prefs.error.hasPrefix("prefs: -host "), "\(prefs.error)")
        let defaults = try await runProcess(sandbox.directory.file("defaults"), ["-host", name, "write", "app", "k", "v"], environment: sandbox.environment)
        #expect(defaults.status == 1 && defaults.error.contains("-host "), "\(defaults.error)")
        // An empty PREFS_HOST_ID is unset (this machine's ID then comes from /etc/machine-id).
        if !name.isEmpty {
            var environment = sandbox.environment
            environment["PREFS_HOST_ID"] = name
            let variable = try await runProcess(Paths.binary, ["-currentHost", "write", "app", "k", "v"], environment: environment)
            #expect(variable.status == 64 && variable.error.hasPrefix("prefs: PREFS_HOST_ID="), "\(variable.error)")
            let reading = try await runProcess(Paths.binary, ["read", "app", "k"], environment: environment)
            #expect(reading.status == 64 && reading.error.hasPrefix("prefs: PREFS_HOST_ID="), "\(reading.error)")
        }
        #expect(try ByHostConfinementTests.everything(sandbox) == before)
    }

    /// Dots inside a host name are part of the file name: `a..b` stays in ByHost.
    @Test func dotsInsideAHostNameStayInTheFileName() async throws {
        let sandbox = try ProcessSandbox()
        #expect(try await sandbox.prefs("-host", "a..b", "write", "app", "k", "v").status == 0)
        #expect(try await sandbox.prefs("-host", "x.-_9", "write", "-g", "k", "v").status == 0)
        #expect(try ByHostConfinementTests.everything(sandbox) == ["config", "config/ByHost", "config/ByHost/.GlobalPreferences.x.-_9.plist",
                                                             "config/ByHost/app.a..b.plist"])
    }

    /// Bytes that are not UTF-8 in `-host` or `PREFS_HOST_ID` are refused (64), nothing created.
    @Test func bytesThatAreNotUTF8AreRefused() async throws {
        let sandbox = try ProcessSandbox()
        let argument = try await sandbox.shell(#"prefs -host $'h\xff' write app k v"#)
        #expect(argument.status == 64 && argument.error.contains("not valid UTF-8"), "\(argument.error)")
        let variable = try await sandbox.shell(#"PREFS_HOST_ID=$'h\xff' prefs -currentHost write app k v"#)
        #expect(variable.status == 64 && variable.error.contains("PREFS_HOST_ID"), "\(variable.error)")
        #expect(try ByHostConfinementTests.everything(sandbox).isEmpty)
    }

    /// Suite names, keys and values full of shell metacharacters are data: each lands in its own
    /// ByHost file, exactly as typed, and nothing runs — neither in prefs nor in the completions,
    /// which pass the host option on to the prefs calls that list names.
    @Test(arguments: CompletionShell.allCases)
    func metacharactersAreData(shell: CompletionShell) async throws {
        let sandbox = try ProcessSandbox()
        let pwned = sandbox.directory.file("pwned")
        // Suite names hold no / (that would make them paths): the shells run in `work`, in the sandbox.
        let suites = ["a;b $(touch pwned-1)", "`touch pwned-2`", "x|y&z", "*", "it's"]
        for suite in suites {
            let write = try await sandbox.prefs("-currentHost", "write", "--", suite, "$(touch \(pwned)-3)", "-string", "`touch \(pwned)-4` ${HOME}")
            try #require(write.status == 0, "\(suite): \(write.error)")
            let file = sandbox.config + "/ByHost/" + suite + ".sandbox.plist"
            #expect(try PropertyList.decode(try Fixtures.bytes(file)).value == ["$(touch \(pwned)-3)": .string("`touch \(pwned)-4` ${HOME}")])
        }
        #expect(try await sandbox.prefs("-currentHost", "domains").outputText == suites.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .map { $0 + "\n" }.joined())
        let work = sandbox.directory.file("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let results = try await shell.complete([("prefs -currentHost read ", .single), ("prefs -host '$(touch \(pwned)-5)' read ", .single),
                                          ("prefs -host \"`touch \(pwned)-6`\" domains ", .single)], in: sandbox, directory: work)
        let offered = shell == .bash ? try await shell.words(of: results[0].offers, in: sandbox, directory: work).map { $0.joined(separator: " ") }
                                     : results[0].offers
        #expect(Set(offered).isSuperset(of: CompletionQuotingTests.offerable(suites, shell)), "\(offered)")
        let ran = try FileManager.default.subpathsOfDirectory(atPath: sandbox.directory.path).filter { ($0 as NSString).lastPathComponent.hasPrefix("pwned") }
        #expect(ran.isEmpty)
    }

    /// A ByHost file that is a symlink is followed as a suite's is (the target changes, the link
    /// stays); a symlink loop is a read error (74) naming it, for a write too, and `domains` skips
    /// it with a warning and lists the others.
    @Test func symlinksAtByHostPathsAreFollowedAsForSuites() async throws {
        let sandbox = try ProcessSandbox()
        let byHost = sandbox.config + "/ByHost"
        try FileManager.default.createDirectory(atPath: byHost, withIntermediateDirectories: true)
        let target = sandbox.directory.file("dotfiles/app.plist")
        try FileManager.default.createDirectory(atPath: sandbox.directory.file("dotfiles"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: byHost + "/app.sandbox.plist", withDestinationPath: target)
        try FileManager.default.createSymbolicLink(atPath: byHost + "/loop.sandbox.plist", withDestinationPath: "loop.sandbox.plist")
        #expect(try await sandbox.prefs("-currentHost", "write", "app", "k", "v").status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: byHost + "/app.sandbox.plist") == target)
        #expect(try PropertyList.decode(try Fixtures.bytes(target)).value == ["k": "v"])
        #expect(try await sandbox.prefs("read", "app", "k", "--origin").outputText == "byhost\tv\n")
        for arguments in [["-currentHost", "write", "loop", "k", "v"], ["-currentHost", "read", "loop", "k"], ["read", "loop", "k"]] {
            let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
            #expect(run.status == 74 && run.error == "prefs: \(byHost)/loop.sandbox.plist: cannot read: too many levels of symbolic links\n",
                    "\(arguments): \(run.error)")
        }
        let domains = try await sandbox.prefs("-currentHost", "domains")
        #expect(domains.status == 0 && domains.outputText == "app\n")
        #expect(domains.error == "prefs: warning: \(byHost)/loop.sandbox.plist: too many levels of symbolic links; skipped\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: byHost).sorted() == ["app.sandbox.plist", "loop.sandbox.plist"])
    }

    /// Keys are checked as for any suite: an empty key is refused (prefs 64; `defaults` 1, its
    /// message), a key that looks like a path is just a key in the ByHost file (whose values stay
    /// inline, so no key ever names a file), and an import holding an empty key or one with NUL
    /// changes nothing (65; 1 as `defaults`).
    @Test func keysAreCheckedAsForAnySuite() async throws {
        let sandbox = try ProcessSandbox()
        try FileManager.default.createSymbolicLink(atPath: sandbox.directory.file("defaults"), withDestinationPath: Paths.binary)
        #expect(try await sandbox.prefs("-currentHost", "write", "app", "", "v").status == 64)
        let defaults = try await runProcess(sandbox.directory.file("defaults"), ["-currentHost", "write", "app", "", "v"], environment: sandbox.environment)
        #expect(defaults.status == 1 && defaults.error.contains("an empty key cannot be stored"), "\(defaults.error)")
        #expect(try ByHostConfinementTests.everything(sandbox) == ["defaults"])
        let path = "../../../" + String(repeating: "x", count: 300)
        #expect(try await sandbox.prefs("-currentHost", "write", "app", path, "-string", String(repeating: "v", count: 70_000)).status == 0)
        #expect(try ByHostConfinementTests.everything(sandbox) == ["config", "config/ByHost", "config/ByHost/app.sandbox.plist", "defaults"])
        let before = try Fixtures.bytes(sandbox.config + "/ByHost/app.sandbox.plist")
        let refused: [(name: String, key: String, message: String)] = [("empty", "", #"key "": an empty key cannot be stored"#),
                                                                        ("nul", "a\u{0}b", #"key :a\0b: a key cannot contain NUL"#)]
        for (name, key, message) in refused {
            let contents = PrefDictionary([(key, PrefValue.string("x")), ("ok", PrefValue.integer(1))])
            let document = try sandbox.directory.write(name + ".plist", try PropertyList.encode(.dictionary(contents), as: .binary))
            let importing = try await sandbox.prefs("-currentHost", "import", "app", document)
            #expect(importing.status == 65 && importing.error == "prefs: app: \(message); nothing changed\n", "\(importing.error)")
            let viaDefaults = try await runProcess(sandbox.directory.file("defaults"), ["-currentHost", "import", "app", document], environment: sandbox.environment)
            #expect(viaDefaults.status == 1 && viaDefaults.error.hasSuffix("] app: \(message); nothing changed\n"), "\(viaDefaults.error)")
        }
        #expect(try Fixtures.bytes(sandbox.config + "/ByHost/app.sandbox.plist") == before)
    }
}

/// A machine without a usable `/etc/machine-id` (an in-memory one here) and no `PREFS_HOST_ID`.
@Suite struct MachineIDTests {
    static let environment = ["XDG_CONFIG_HOME": "/home/u/.config", "HOME": "/home/u"]

    static func defaults(_ arguments: [String], _ fileSystem: any FileSystem) -> (status: Int32, output: String, error: String) {
        let captured = Captured()
        let status = DefaultsTool.run(arguments, context: captured.context(MachineIDTests.environment, fileSystem: fileSystem))
        return (status, captured.output, captured.error)
    }

    /// Run as `defaults` with no machine ID: `-currentHost` and `printHostIdentifier` fail (1) saying
    /// what to set, `-host NAME` works, and reads without a host see the suites.
    @Test func defaultsWithoutAMachineID() throws {
        let memory = InMemoryFileSystem()
        #expect(MachineIDTests.defaults(["write", "app", "k", "-int", "1"], memory).status == 0)
        for arguments in [["-currentHost", "read", "app", "k"], ["-currentHost", "write", "app", "k", "2"], ["printHostIdentifier"]] {
            let run = MachineIDTests.defaults(arguments, memory)
            #expect(run.status == 1 && run.output.isEmpty && run.error.contains("/etc/machine-id is missing or empty); set PREFS_HOST_ID"),
                    "\(arguments): \(run.error)")
        }
        #expect(MachineIDTests.defaults(["-host", "studio", "write", "app", "k", "-int", "3"], memory).status == 0)
        #expect(try PropertyList.decode(memory.contents(of: "/home/u/.config/ByHost/app.studio.plist")).value == ["k": 3])
        #expect(MachineIDTests.defaults(["read", "app", "k"], memory).output == "1\n")
        #expect(try memory.contents(of: "/home/u/.config/app.plist").count > 0)
    }

    /// A machine ID file that cannot name a host (bytes that are not UTF-8, a path) is a data error
    /// (65) naming it, for reads too: prefs never guesses which ByHost suites are this machine's.
    /// One that cannot be read is a read error (74).
    @Test(arguments: [[0x66, 0xFF, 0x0A], Array("../../etc\n".utf8), Array("a b\n".utf8)])
    func aMachineIDThatCannotNameAHost(bytes: [UInt8]) throws {
        let memory = InMemoryFileSystem()
        try memory.write("/etc/machine-id", bytes)
        for arguments in [["-currentHost", "write", "app", "k", "v"], ["read", "app", "k"]] {
            let run = prefs(arguments, environment: MachineIDTests.environment, fileSystem: memory)
            #expect(run.status == .dataError && run.error.hasPrefix("prefs: /etc/machine-id: not a machine ID; set PREFS_HOST_ID"),
                    "\(arguments): \(run.error)")
        }
        #expect(try memory.contentsOfDirectory("/home/u").isEmpty)
        try memory.removeFile("/etc/machine-id")
        try memory.createDirectory("/etc/machine-id", mode: 0o755)
        #expect(prefs(["read", "app", "k"], environment: MachineIDTests.environment, fileSystem: memory).status == .cannotRead)
    }
}

/// `/etc/machine-id` is read at most 256 bytes (a machine ID is 32 hex digits and a newline), and a
/// FIFO or device there is refused unopened: either could hold every read forever (before, a read
/// of `/dev/zero` grew without bound).
@Suite struct MachineIDBoundTests {
    static func environment(_ file: String) -> Environment {
        var environment = Environment(["HOME": "/nonexistent"])
        environment.machineIDFile = file
        return environment
    }

    @Test func aFileLargerThanAMachineIDIsRefusedAfterReadingTheBound() throws {
        let directory = try TemporaryDirectory()
        let id = try directory.write("id", "0123456789abcdef0123456789abcdef\n")
        #expect(try MachineIDBoundTests.environment(id).hostID(fileSystem: LocalFileSystem()) == "0123456789abcdef0123456789abcdef")
        let longest = try directory.write("longest", String(repeating: "a", count: 200) + String(repeating: "\n", count: 56))
        #expect(try MachineIDBoundTests.environment(longest).hostID(fileSystem: LocalFileSystem()) == String(repeating: "a", count: 200))
        let long = try directory.write("long", String(repeating: "a", count: 257))
        let huge = directory.file("huge")
        #expect(FileManager.default.createFile(atPath: huge, contents: nil) && truncate(huge, 1 << 40) == 0, "a sparse 1 TiB file")
        for path in [long, huge] {
            #expect(throws: PrefsError.malformed(source: path, format: nil,
                                                 reason: "not a machine ID (larger than 256 bytes); set PREFS_HOST_ID to \(Environment.hostIDRule)")) {
                try MachineIDBoundTests.environment(path).hostID(fileSystem: LocalFileSystem())
            }
        }
    }

    /// For real: in a private mount namespace `/dev/zero`, then a FIFO no one writes to, then a
    /// sparse 1 TiB file, is bound over `/etc/machine-id`; `read` and `-currentHost write` exit 65
    /// at once naming the file, and `PREFS_HOST_ID` still works.
    @Test(.enabled(if: getuid() == 0, "needs root: unshare -m and mount --bind"))
    func devicesAndFIFOsAreNeverRead() async throws {
        let sandbox = try ProcessSandbox()
        sandbox.extraEnvironment = [:]
        let fifo = sandbox.directory.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let huge = sandbox.directory.file("huge")
        #expect(FileManager.default.createFile(atPath: huge, contents: nil) && truncate(huge, 1 << 40) == 0)
        let script = """
            for source in /dev/zero '\(fifo)' '\(huge)'; do
              mount --bind "$source" /etc/machine-id || exit 99
              prefs read s k; echo "read $?"
              prefs -currentHost write s k v; echo "write $?"
              PREFS_HOST_ID=h prefs -currentHost write s k v; echo "given $?"
            done
            """
        let run = try await runProcess("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/bash", "-c", script],
                                 environment: sandbox.environment, timeout: 60)
        #expect(run.outputText == String(repeating: "read 65\nwrite 65\ngiven 0\n", count: 3), "\(run.outputText) \(run.error)")
        let reasons = ["not a regular file", "not a regular file", "larger than 256 bytes"]
        let expected = reasons.flatMap { reason in
            Array(repeating: "prefs: /etc/machine-id: not a machine ID (\(reason)); set PREFS_HOST_ID to \(Environment.hostIDRule)", count: 2)
        }
        #expect(run.error.split(separator: "\n").map(String.init) == expected, "\(run.error)")
    }
}
