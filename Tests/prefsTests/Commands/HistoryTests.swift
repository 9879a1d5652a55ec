import Foundation
import Testing
@testable import PrefsCore

/// `history`, `diff` and `rollback` through the built binary, on files and on a real 3-member
/// cluster: a suite imported with a value of every type comes back byte for byte; the verbs'
/// output and statuses; a change the history did not see, and changes racing the rollbacks, make a
/// rollback exit 4 and change nothing, and no version is lost or made up.
@Suite(.runsProcesses) struct HistoryTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case files, etcd
        var testDescription: String { rawValue }
    }

    /// Runs `prefs` on the store, keeping its sandbox (and so its directory) alive.
    final class Runner: @unchecked Sendable {
        let environment: [String: String]
        let directory: String
        let sandbox: ProcessSandbox

        init(environment: [String: String], sandbox: ProcessSandbox) {
            self.environment = environment
            self.sandbox = sandbox
            directory = sandbox.directory.path
        }

        @discardableResult
        func callAsFunction(_ arguments: String..., environment extra: [String: String] = [:]) async throws -> ProcessResult {
            try await runProcess(Paths.binary, arguments, environment: environment.merging(extra) { $1 })
        }
    }

    static func runner(_ store: Store) async throws -> Runner {
        switch store {
        case .files:
            let sandbox = try ProcessSandbox()
            return Runner(environment: sandbox.environment, sandbox: sandbox)
        case .etcd:
            let fleet = try FleetSandbox(try await SharedCluster.threeMembers.get())
            return Runner(environment: fleet.environment, sandbox: fleet.sandbox)
        }
    }

    /// One value of every type, with their edges: what the suite starts as.
    static let everyType: PrefDictionary = [
        "string": "é \u{1F600} \"quoted\"\ttab", "empty": "", "integer": .integer(-42), "largest": .unsignedInteger(UInt64.max),
        "real": .real(0.1), "nan": .real(.nan), "bool": true, "date": .date(PrefDate(secondsSinceReferenceDate: 12_345.5)),
        "data": .data([0, 255, 1, 254]), "uid": .uid(7),
        "array": [1, "two", [3.5]], "dictionary": ["nested": ["deeper": .data([9])], "empty": .dictionary([:])],
    ]

    /// Each value as the binary property list that stores it.
    static func encoded(_ contents: PrefDictionary) throws -> [String: [UInt8]] {
        var bytes: [String: [UInt8]] = [:]
        for entry in contents { bytes[entry.key] = try PropertyList.encode(entry.value, as: .binary) }
        return bytes
    }

    @Test(arguments: Store.allCases)
    func everyValueComesBackByteForByte(store: Store) async throws {
        let prefs = try await Self.runner(store)
        let file = prefs.directory + "/every.plist"
        try Data(try PropertyList.encode(.dictionary(Self.everyType), as: .binary)).write(to: URL(fileURLWithPath: file))
        try #require(await prefs("import", "pool", file).status == 0)
        try #require(await prefs("write", "pool", "string", "changed", "integer", "-int", "1").status == 0)
        try #require(await prefs("delete", "pool", "data", "uid").status == 0)
        try #require(await prefs("write", "pool", "added", "-bool", "false").status == 0)

        let history = try await prefs("history", "pool")
        #expect(history.status == 0, "\(history.error)")
        let lines = history.outputText.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines.map { $0[0] } == ["4", "3", "2", "1"])
        #expect(lines.map { $0[3] } == ["write", "delete", "write", "import"])
        // Keys as a dry run prints them: quoted where the word would read as something else.
        #expect(lines.map { $0[4] } == ["added", "data \"uid\"", "integer string",
                                        "array bool data date dictionary empty integer largest \"nan\" real string \"uid\""])
        #expect(lines.allSatisfy { $0.count == 5 && $0[1].hasSuffix("Z") && $0[2].contains("@") }, "\(history.outputText)")
        #expect(try await prefs("history", "pool", "uid").outputText.hasPrefix("3\t"))
        let json = try await prefs("history", "pool", "--json")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.output)) as? [[String: Any]])
        #expect(parsed.map { $0["version"] as? Int } == [4, 3, 2, 1] && parsed[1]["keys"] as? [String] == ["data", "uid"], "\(json.outputText)")
        let diff = try await prefs("diff", "pool", "1", "3")
        #expect(diff.status == 0 && diff.outputText.split(separator: "\n").map { $0.prefix(9) } == ["- data = ", "~ integer", "~ string ", "- \"uid\" ="],
                "\(diff.outputText)")
        #expect(try await prefs("diff", "pool", "3", "1").outputText.split(separator: "\n").map { $0.prefix(2) } == ["+ ", "~ ", "~ ", "+ "])

        // A dry run shows the change and changes nothing.
        let before = try await prefs("export", "pool", "-", "--format", "binary").output
        let dry = try await prefs("rollback", "pool", "--to", "1", "--dry-run")
        #expect(dry.status == 0 && dry.outputText.hasPrefix("- added = false\n"), "\(dry.outputText)")
        #expect(try await prefs("export", "pool", "-", "--format", "binary").output == before)
        #expect(try await prefs("history", "pool").outputText.hasPrefix("4\t"))

        let rollback = try await prefs("rollback", "pool", "--to", "1", "--exit-code")
        #expect(rollback.status == 3, "\(rollback.error)")
        let exported = try await prefs("export", "pool", "-", "--format", "binary")
        guard case .dictionary(let contents) = try PropertyList.decode(exported.output).value else { Issue.record("not a dictionary"); return }
        #expect(try Self.encoded(contents) == Self.encoded(Self.everyType), "every value byte for byte as imported")
        #expect(try await prefs("history", "pool").outputText.split(separator: "\n").first?.split(separator: "\t")[3] == "rollback")
        #expect(try await prefs("rollback", "pool", "--to", "5", "--exit-code").status == 0, "already so")

        // Statuses: usage, a version not kept, a suite without history.
        #expect(try await prefs("rollback", "pool").status == 64)
        #expect(try await prefs("rollback", "pool", "--to", "x").status == 64)
        let missing = try await prefs("rollback", "pool", "--to", "99")
        #expect(missing.status == 1 && missing.error == "prefs: pool: no version 99 in its history (kept: 1 to 5)\n", "\(missing.error)")
        #expect(try await prefs("diff", "pool", "0").status == 64)
        #expect(try await prefs("history", "nosuch").status == 1)
        #expect(try await prefs("history", prefs.directory + "/every.plist").status == 64)
    }

    /// Who changed a suite is what `$USER` says, whatever it holds: a tab or newline in it never
    /// splits a version's line; `--json` gives it as it is. A bad `PREFS_HISTORY` is 64, nothing changed.
    @Test func aHostileUserNameStaysInItsField() async throws {
        let prefs = try await Self.runner(.files)
        try #require(await prefs("write", "who", "k", "v", environment: ["USER": "ada\tlovelace\nroot", "LOGNAME": "x"]).status == 0)
        let history = try await prefs("history", "who")
        #expect(history.outputText.split(separator: "\n").count == 1 && history.outputText.contains("\tada\\x09lovelace\\x0aroot@"), "\(history.outputText)")
        let json = try await prefs("history", "who", "--json")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.output)) as? [[String: Any]])
        #expect(parsed.first?["user"] as? String == "ada\tlovelace\nroot")
        for bad in ["-1", "1001", "ten", "1e3"] {
            let refused = try await prefs("write", "who", "k", "w", environment: ["PREFS_HISTORY": bad])
            #expect(refused.status == 64 && refused.error.contains("PREFS_HISTORY"), "\(bad): \(refused.error)")
        }
        #expect(try await prefs("read", "who", "k").outputText == "v\n")
    }

    /// The file store's history: a directory per suite (0700) holding its log (0600). A damaged
    /// version stops no change (the change keeps its own version); `history` reports it (65).
    @Test func aDamagedVersionStopsNoChange() async throws {
        let prefs = try await Self.runner(.files)
        try #require(await prefs("write", "d", "k", "1").status == 0)
        let directory = prefs.directory + "/.local/state/prefs/history/d", log = directory + "/versions.log"
        #expect(try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int == 0o700)
        #expect(try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int == 0o600)
        // A byte of the first version's property list changed.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: log)))
        bytes[VersionLog.header.count + VersionLog.headSize + 12] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: log))
        #expect(try await prefs("write", "d", "k", "2").status == 0)
        #expect(try await prefs("read", "d", "k").outputText == "2\n")
        let history = try await prefs("history", "d")
        #expect(history.status == 65 && history.error.contains("versions.log") && history.error.contains("version 1 is damaged"), "\(history.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["versions.log"])
    }

    /// What a crash leaves of a version being appended (the log's last bytes, part of a record) is
    /// passed over by readers and cut by the next change, whose version follows the last whole one.
    @Test func aVersionACrashCutShortIsPassedOverThenCut() async throws {
        let prefs = try await Self.runner(.files)
        for value in ["1", "2"] { try #require(await prefs("write", "c", "k", value).status == 0) }
        let log = prefs.directory + "/.local/state/prefs/history/c/versions.log"
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: log)))
        let record = whole[(VersionLog(whole).records.last!.bytes)]
        try Data(whole + record.prefix(record.count - 3)).write(to: URL(fileURLWithPath: log))
        var listed = try await prefs("history", "c")
        #expect(listed.status == 0 && listed.outputText.split(separator: "\n").map { $0.prefix(1) } == ["2", "1"], "\(listed.error)")
        try #require(await prefs("write", "c", "k", "3").status == 0)
        listed = try await prefs("history", "c")
        #expect(listed.status == 0 && listed.outputText.split(separator: "\n").map { $0.prefix(1) } == ["3", "2", "1"], "\(listed.error)")
        let after = try [UInt8](Data(contentsOf: URL(fileURLWithPath: log)))
        #expect(VersionLog(after).end == after.count && Array(after.prefix(whole.count)) == whole)
        #expect(try await prefs("diff", "c", "1").outputText.contains("3"))
    }

    /// Versions an older prefs kept, a file each, are listed with the log's, and the change that
    /// prunes one removes its file; a log that is not prefs's is left alone and reported (65).
    @Test func versionFilesOfAnOlderPrefsAreReadAndPruned() async throws {
        let prefs = try await Self.runner(.files)
        let directory = prefs.directory + "/.local/state/prefs/history/o"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for number in 1...3 {
            let version = SuiteVersion(number: Int64(number), time: 1_700_000_000, user: "old", host: "h", verb: "write", keys: ["k"],
                                       changes: [KeyChange(key: "k", old: number == 1 ? nil : .integer(Int64(number - 1)), new: .integer(Int64(number)))])
            try Data(try version.encoded()).write(to: URL(fileURLWithPath: directory + String(format: "/%020d.plist", number)))
        }
        try #require(await prefs("write", "o", "k", "-int", "3", environment: ["PREFS_HISTORY": "0"]).status == 0)
        #expect(try await prefs("history", "o").outputText.split(separator: "\n").map { $0.prefix(1) } == ["3", "2", "1"])
        try #require(await prefs("write", "o", "k", "-int", "4", environment: ["PREFS_HISTORY": "3"]).status == 0)
        #expect(try await prefs("history", "o").outputText.split(separator: "\n").map { $0.prefix(1) } == ["4", "3", "2"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
                == ["00000000000000000002.plist", "00000000000000000003.plist", "versions.log"])
        #expect(try await prefs("rollback", "o", "--to", "2").status == 0)
        #expect(try await prefs("read", "o", "k").outputText == "2\n")
        // Not a log prefs wrote: changes go on without a version; history says so.
        try Data("not a log\n".utf8).write(to: URL(fileURLWithPath: directory + "/versions.log"))
        #expect(try await prefs("write", "o", "k", "-int", "5").status == 0)
        let history = try await prefs("history", "o")
        #expect(history.status == 65 && history.error.contains("not a history prefs wrote"), "\(history.error)")
        #expect(try String(contentsOfFile: directory + "/versions.log", encoding: .utf8) == "not a log\n")
    }

    /// A FIFO where the log should be is never opened (no wait for a writer): changes go on without
    /// a version, and `history` says it is no history (65).
    @Test func aFIFOInTheLogsPlaceStopsNothing() async throws {
        let prefs = try await Self.runner(.files)
        let directory = prefs.directory + "/.local/state/prefs/history/f"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(mkfifo(directory + "/versions.log", 0o600) == 0)
        #expect(try await prefs("write", "f", "k", "1").status == 0)
        #expect(try await prefs("read", "f", "k").outputText == "1\n")
        let history = try await prefs("history", "f")
        #expect(history.status == 65 && history.error.contains("not a history prefs wrote"), "\(history.error)")
    }

    /// The log keeps the newest versions its writer keeps, whoever reads it, and is rewritten with
    /// only those once it holds `VersionLog.slack` more: it never grows without bound.
    @Test func theLogIsRewrittenWithTheVersionsKept() async throws {
        let prefs = try await Self.runner(.files)
        let log = prefs.directory + "/.local/state/prefs/history/r/versions.log"
        var most = 0
        for value in 1...40 {
            try #require(await prefs("write", "r", "k", "-int", String(value), environment: ["PREFS_HISTORY": "2"]).status == 0)
            most = max(most, VersionLog(try [UInt8](Data(contentsOf: URL(fileURLWithPath: log)))).records.count)
        }
        #expect(most == 2 + VersionLog.slack(keeping: 2))
        let records = VersionLog(try [UInt8](Data(contentsOf: URL(fileURLWithPath: log)))).records
        #expect(records.count < most && records.last?.number == 40)
        let listed = try await prefs("history", "r", environment: ["PREFS_HISTORY": "1000"])
        #expect(listed.outputText.split(separator: "\n").map { $0.prefix(2) } == ["40", "39"], "\(listed.error)")
    }

    /// A writer that keeps no history (`PREFS_HISTORY=0`) changes a key a rollback would put back:
    /// the rollback exits 4 and changes nothing. Then writers race rollbacks: each rollback exits 0
    /// with 3 (changed), 0 (already so) or 4, and the history holds exactly one version per write and
    /// per rollback that changed something, numbered without a gap.
    @Test(arguments: Store.allCases)
    func aConcurrentChangeMakesRollbackExitFour(store: Store) async throws {
        let prefs = try await Self.runner(store)
        let keepAll = ["PREFS_HISTORY": "1000"]
        try #require(await prefs("write", "race", "n", "-int", "0", environment: keepAll).status == 0)
        try #require(await prefs("write", "race", "n", "-int", "1", environment: keepAll).status == 0)
        try #require(await prefs("write", "race", "n", "-int", "2", environment: ["PREFS_HISTORY": "0"]).status == 0)
        let refused = try await prefs("rollback", "race", "--to", "1", environment: keepAll)
        #expect(refused.status == 4 && refused.error.contains("n changed without a version"), "\(refused.error)")
        #expect(try await prefs("read", "race", "n").outputText == "2\n")
        try #require(await prefs("write", "race", "n", "-int", "1", environment: keepAll).status == 0)  // version 3

        let writes = 40, rollbacks = 40
        async let writing: [Int32] = {
            var statuses: [Int32] = []
            for i in 0..<writes { statuses.append(try await prefs("write", "race", "n", "-int", String(100 + i), environment: keepAll).status) }
            return statuses
        }()
        var rollbackStatuses: [Int32] = []
        for i in 0..<rollbacks {
            rollbackStatuses.append(try await prefs("rollback", "race", "--to", String(1 + i % 3), "--exit-code", environment: keepAll).status)
        }
        #expect(try await writing.allSatisfy { $0 == 0 })
        #expect(rollbackStatuses.allSatisfy { [0, 3, 4].contains($0) }, "\(rollbackStatuses)")
        let history = try await prefs("history", "race", "--json", "--compact", environment: keepAll)
        let versions = try #require(try JSONSerialization.jsonObject(with: Data(history.output)) as? [[String: Any]])
        let numbers = versions.compactMap { $0["version"] as? Int }
        #expect(numbers == Array((1...numbers.count).reversed()), "numbered without a gap")
        let rolledBack = versions.filter { $0["verb"] as? String == "rollback" }.count
        #expect(rolledBack == rollbackStatuses.filter { $0 == 3 }.count, "one version per rollback that changed something (3), none for one already so (0) or refused (4)")
        #expect(versions.filter { $0["verb"] as? String == "write" }.count == 3 + writes)
    }
}
