import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// An administrator's layers with the real binary: managed values under `$XDG_CONFIG_DIRS` win
/// over everything and no verb changes them (77, nothing written); system defaults show under the
/// user's values.
@Suite(.runsProcesses) struct ManagedValuesTests {
    /// A sandbox whose suite `app` stores `mine = 1` and `locked = user`, and whose administrator
    /// manages `locked = policy`: the sandbox and the managed file.
    static func managedBox(format: PlistFormat = .xml, suffix: String = ".plist") async throws -> (ProcessSandbox, String) {
        let sandbox = try ProcessSandbox()
        #expect(try await sandbox.prefs("write", "app", "mine", "-int", "1", "locked", "user").status == 0)
        let file = try put(sandbox, "managed/app" + suffix, ["locked": "policy"], format: format)
        return (sandbox, file)
    }

    @discardableResult
    static func put(_ sandbox: ProcessSandbox, _ relative: String, _ contents: PrefDictionary, format: PlistFormat = .xml) throws -> String {
        let path = sandbox.administered + "/prefs/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(try PropertyList.encode(.dictionary(contents), as: format)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aManagedValueWinsAndSaysWhereItComesFrom() async throws {
        let (sandbox, file) = try await ManagedValuesTests.managedBox()
        #expect(try await sandbox.prefs("read", "app", "locked").outputText == "policy\n")
        #expect(try await sandbox.prefs("read", "app", "locked", "--origin").outputText == "managed:\(file)\tpolicy\n")
        #expect(try await sandbox.prefs("read", "app", "mine", "--origin").outputText == "stored\t1\n")
        #expect(try await sandbox.prefs("read", "--stored", "app", "locked").outputText == "user\n")
        #expect(try await sandbox.prefs("read", "app", "--origin").outputText == "managed:\(file)\tlocked\tpolicy\nstored\tmine\t1\n")
    }

    @Test func theFirstConfigDirectoryThatHasTheFileWinsInEitherFormat() async throws {
        let sandbox = try ProcessSandbox()
        let second = sandbox.directory.path + "/xdg2"
        sandbox.extraEnvironment["XDG_CONFIG_DIRS"] = sandbox.administered + ":" + second
        let path = second + "/prefs/managed/app.json"
        try FileManager.default.createDirectory(atPath: second + "/prefs/managed", withIntermediateDirectories: true)
        try Data(#"{"k": "from json"}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await sandbox.prefs("read", "app", "k", "--origin").outputText == "managed:\(path)\tfrom json\n")
        let first = try ManagedValuesTests.put(sandbox, "managed/app.plist", ["k": "first"])
        #expect(try await sandbox.prefs("read", "app", "k", "--origin").outputText == "managed:\(first)\tfirst\n")
        let global = try ManagedValuesTests.put(sandbox, "managed/.GlobalPreferences.plist", ["g": true])
        #expect(try await sandbox.prefs("read", "-g", "g", "--origin").outputText == "managed:\(global)\ttrue\n")
        #expect(try await sandbox.prefs("write", "-g", "g", "-bool", "false").status == 77)
    }

    /// Every verb that would change the managed key `locked` of `app` (whose user also stores
    /// `mine`): each write type flag, key paths, counters and conditions, dry runs, whole-domain
    /// writes, deletes, resets and renames to and from it.
    static let changesOfAManagedKey: [[String]] = [
        ["write", "app", "locked", "x"], ["write", "app", "locked", "-int", "2"], ["write", "app", "locked", "-bool", "true"],
        ["write", "app", "locked", "-float", "1.5"], ["write", "app", "locked", "-date", "2024-01-01T00:00:00Z"],
        ["write", "app", "locked", "-data", "00"], ["write", "app", "locked", "-array", "a"], ["write", "app", "locked", "-dict", "a", "b"],
        ["write", "app", "locked", "-array-add", "a"], ["write", "app", "locked", "-dict-add", "a", "b"], ["write", "app", "locked", "-int-add", "1"],
        ["write", "app", ":locked:sub", "x"], ["write", "app", "mine", "-int", "2", "locked", "x"],
        ["write", "app", "locked", "x", "--if-absent"], ["write", "app", "locked", "x", "--if-equals", "user"],
        ["write", "app", "locked", "x", "--dry-run"], ["write", "app", #"{"mine": 3}"#],
        ["delete", "app", "locked"], ["delete", "app", "mine", "locked"], ["delete", "app"], ["delete", "app", "--dry-run"],
        ["reset", "app", "locked"], ["reset", "app"], ["rename", "app", "locked", "other"], ["rename", "app", "mine", "locked"],
    ]

    /// Every verb that would change a managed key is refused whole: 77, one line naming the key and
    /// the file, the suite byte for byte as it was.
    @Test(arguments: ManagedValuesTests.changesOfAManagedKey)
    func everyChangeOfAManagedKeyIsRefusedWhole(arguments: [String]) async throws {
        let (sandbox, file) = try await ManagedValuesTests.managedBox()
        let before = try Fixtures.bytes(sandbox.config + "/app.plist")
        let result = try await sandbox.prefs(arguments)
        #expect(result.status == 77, "\(arguments): \(result.error)")
        #expect(result.error == "prefs: app: locked is managed by the administrator (\(file)) and cannot be changed; nothing changed\n")
        #expect(try Fixtures.bytes(sandbox.config + "/app.plist") == before)
        #expect(try await sandbox.prefs("write", "app", "mine", "-int", "7").status == 0)
    }

    @Test func importAndLoadThatTouchAManagedKeyAreRefused() async throws {
        let (sandbox, file) = try await ManagedValuesTests.managedBox()
        #expect(try await sandbox.prefs("import", "app", "-", input: Array(#"{"locked": "x", "mine": 5}"#.utf8)).status == 77)
        #expect(try await sandbox.prefs("import", "app", "-", input: Array(#"{"mine": 5}"#.utf8)).status == 0)
        let dump = try await sandbox.prefs("dump")
        #expect(dump.status == 0)
        #expect(dump.error == "prefs: warning: app: the managed values (\(file)) are the administrator's and not in the dump\n")
        #expect(!dump.outputText.contains("policy"))
        #expect(try await sandbox.prefs("import", "app", "-", "--replace", input: Array(#"{"mine": 5}"#.utf8)).status == 77)
        #expect(try await sandbox.prefs("load", "-", input: dump.output).status == 0)
        try FileManager.default.removeItem(atPath: sandbox.administered)
        #expect(try await sandbox.prefs("delete", "app", "locked").status == 0)
        _ = try ManagedValuesTests.put(sandbox, "managed/app.plist", ["locked": "policy"])
        let before = try Fixtures.bytes(sandbox.config + "/app.plist")
        #expect(try await sandbox.prefs("load", "-", input: dump.output).status == 77)
        #expect(try Fixtures.bytes(sandbox.config + "/app.plist") == before)
    }

    /// A managed file that is not a plain readable property list fails every read of its suite
    /// and every change, at once and never skipped.
    @Test(arguments: ["fifo", "device", "corrupt", "directory", "loop", "unreadable", "global"])
    func aHostileManagedFileIsAnErrorNeverSkipped(kind: String) async throws {
        let sandbox = try ProcessSandbox()
        #expect(try await sandbox.prefs("write", "app", "mine", "1").status == 0)
        let directory = sandbox.administered + "/prefs/managed"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The global suite's managed file binds every suite: a bad one fails them all.
        let path = directory + (kind == "global" ? "/.GlobalPreferences.plist" : "/app.plist")
        switch kind {
        case "fifo": #expect(mkfifo(path, 0o644) == 0)
        case "device": #expect(symlink("/dev/zero", path) == 0)
        case "corrupt", "global": try Data("<plist><dict><key>k".utf8).write(to: URL(fileURLWithPath: path))
        case "directory": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case "unreadable":
            try Data(try PropertyList.encode(["k": 1], as: .xml)).write(to: URL(fileURLWithPath: path))
            #expect(chmod(path, 0) == 0)
            guard access(path, R_OK) != 0 else { return }  // root reads it anyway
        default: #expect(symlink("app.plist", path) == 0)
        }
        let expected: Int32 = ["directory", "loop", "unreadable"].contains(kind) ? 74 : 65
        for arguments in [["read", "app", "mine"], ["read", "app"], ["write", "app", "mine", "2"]] {
            let result = try await sandbox.prefs(arguments, timeout: 20)
            #expect(result.status == expected, "\(arguments): \(result.error)")
            #expect(result.error.hasPrefix("prefs: \(path): "))
        }
        #expect(try await sandbox.prefs("read", "--stored", "app", "mine").outputText == "1\n")
    }

    /// `watch` reports a managed value that changes, and one that appears after the watch began.
    @Test func watchReportsAChangeOfAManagedValue() async throws {
        let sandbox = try ProcessSandbox()
        #expect(try await sandbox.prefs("write", "app", "k", "mine").status == 0)
        try FileManager.default.createDirectory(atPath: sandbox.administered + "/prefs/managed", withIntermediateDirectories: true)
        let watch = try WatchProcess(sandbox, ["app", "--initial"])
        #expect(await watch.nextLine() == "k (absent) -> mine")
        try ManagedValuesTests.put(sandbox, "managed/app.plist", ["k": "policy"])
        #expect(await watch.nextLine() == "k mine -> policy")
        try ManagedValuesTests.put(sandbox, "managed/app.plist", ["k": "policy 2"])
        #expect(await watch.nextLine() == "k policy -> policy 2")
        try FileManager.default.removeItem(atPath: sandbox.administered + "/prefs/managed/app.plist")
        #expect(await watch.nextLine() == "k policy 2 -> mine")
    }

    @Test func migrateThatTouchesAManagedKeyIsRefusedWhole() async throws {
        let (sandbox, _) = try await ManagedValuesTests.managedBox()
        let before = try Fixtures.bytes(sandbox.config + "/app.plist")
        let source = try sandbox.directory.write("old.json", #"{"locked": "x", "fresh": 1}"#)
        for extra in [[], ["--overwrite"], ["--dry-run"], ["--skip-errors"], ["--keys", "locked"]] {
            let result = try await sandbox.prefs(["migrate", "app", source] + extra)
            #expect(result.status == 77, "\(extra): \(result.outputText) \(result.error)")
        }
        let renamed = try sandbox.directory.write("renamed.json", #"{"old": "x"}"#)
        #expect(try await sandbox.prefs("migrate", "app", renamed, "--rename", "old=locked").status == 77)
        #expect(try Fixtures.bytes(sandbox.config + "/app.plist") == before)
        #expect(try await sandbox.prefs("migrate", "app", source, "--keys", "fresh").status == 0)
    }

    /// What `describe` says of a key an administrator manages, after its origin.
    static let managedLine = "  managed: yes, by the administrator; no change of it is allowed\n"

    /// `describe` names a managed key's origin, and marks it as managed.
    @Test func describeMarksAManagedKey() async throws {
        let (sandbox, file) = try await ManagedValuesTests.managedBox()
        let schema = try sandbox.directory.write("schema.json", #"{"keys": {"locked": {"type": "string"}, "mine": {"type": "integer"}}}"#)
        try #require(await sandbox.prefs("register", "app", "--schema", schema).status == 0)
        let described = try await sandbox.prefs("describe", "app")
        #expect(described.status == 0 && described.outputText.contains("  origin: managed:\(file)\n" + ManagedValuesTests.managedLine), "\(described.outputText)")
        #expect(described.outputText.contains("  origin: stored\n") && described.outputText.components(separatedBy: "  managed: ").count == 2)
        #expect(try await sandbox.prefs("describe", "app", "locked").outputText.hasSuffix("  origin: managed:\(file)\n" + ManagedValuesTests.managedLine))
        #expect(!(try await sandbox.prefs("describe", "app", "mine").outputText.contains("managed")))
    }

    /// Read order: managed, stored, global, system defaults, registered (the user's, then the
    /// packages'), schema.
    @Test func systemDefaultsShowUnderTheGlobalSuiteAndOverRegisteredDefaults() async throws {
        let sandbox = try ProcessSandbox()
        let system = try ManagedValuesTests.put(sandbox, "defaults/app.plist", ["a": "system", "b": "system", "c": "system"])
        #expect(try await sandbox.prefs("register", "app", "c", "registered", "d", "registered").status == 0)
        #expect(try await sandbox.prefs("write", "-g", "b", "global").status == 0)
        #expect(try await sandbox.prefs("write", "app", "a", "stored").status == 0)
        let read = try await sandbox.prefs("read", "app", "--origin")
        #expect(read.outputText.hasPrefix("stored\ta\tstored\nglobal\tb\tglobal\nsystem:\(system)\tc\tsystem\nregistered:"), "\(read.outputText)")
        #expect(try await sandbox.prefs("read", "app", "c", "--origin").outputText == "system:\(system)\tsystem\n")
        #expect(try await sandbox.prefs("reset", "app", "a").status == 0)
        #expect(try await sandbox.prefs("read", "app", "a").outputText == "system\n")
        #expect(try await sandbox.prefs("write", "app", "c", "mine").status == 0)
        #expect(try await sandbox.prefs("read", "app", "c").outputText == "mine\n")
    }
}

extension ProcessSandbox {
    func prefs(_ arguments: [String], input: [UInt8] = [], timeout: Double = defaultProcessTimeout) async throws -> ProcessResult {
        try await runProcess(Paths.binary, arguments, input: input, environment: environment, timeout: timeout)
    }
}
