import Foundation
import Testing
@testable import PrefsCore

/// Values that expire, on files, through the built binary: a temporary override of a kill switch
/// reverts by itself to the registered, system and schema default; UserDefaults still reads the
/// suite; the reserved key never shows; hostile options change nothing. Time has to pass for a value
/// to expire: the tests poll a reader, and hold a read to the deadline only by the clock read before
/// it was issued (a loaded machine may start a read late, never early).
@Suite(.runsProcesses) struct ExpiryTests {
    /// The deadline of `key` as stored in the suite's file (seconds since 2001, the wall clock's).
    static func deadline(_ sandbox: ProcessSandbox, suite: String, key: String) throws -> Double {
        guard case .dictionary(let stored)? = try sandbox.suite(suite), case .date(let date)? = Expiry.deadline(of: key, in: stored[Expiry.key]).map(PrefValue.date)
        else { throw TestFailure("\(suite) holds no deadline for \(key)") }
        return date.secondsSinceReferenceDate
    }

    static var now: Double { Date().timeIntervalSinceReferenceDate }

    @Test func aKillSwitchRevertsByItselfToEachLowerLayer() async throws {
        let sandbox = try ProcessSandbox()
        let schema = try sandbox.directory.write("schema.json", #"{"keys": {"fromSchema": {"type": "boolean", "default": true}}}"#)
        try #require(await sandbox.prefs("register", "app", "--schema", schema).status == 0)
        try #require(await sandbox.prefs("register", "app", "fromRegistered", "-bool", "true").status == 0)
        try FileManager.default.createDirectory(atPath: sandbox.administered + "/prefs/defaults", withIntermediateDirectories: true)
        try #require(await sandbox.prefs("write", sandbox.administered + "/prefs/defaults/app.plist", "fromSystem", "-bool", "true").status == 0)
        let write = try await sandbox.prefs("write", "app", "fromSchema", "-bool", "false", "fromRegistered", "-bool", "false",
                                            "fromSystem", "-bool", "false", "plain", "-bool", "false", "--ttl", "2s")
        try #require(write.status == 0, "\(write.error)")
        let deadline = try Self.deadline(sandbox, suite: "app", key: "plain")
        for key in ["fromSchema", "fromRegistered", "fromSystem"] { #expect(try Self.deadline(sandbox, suite: "app", key: key) == deadline) }
        var sawOverride = false, reverted = false
        while !reverted {
            let issued = Self.now
            let run = try await sandbox.prefs("read", "app", "--json", "--compact")
            try #require(run.status == 0, "\(run.error)")
            if run.outputText == #"{"fromRegistered":false,"fromSchema":false,"fromSystem":false,"plain":false}"# + "\n" {
                #expect(issued < deadline + 1, "an expired value was read \(issued - deadline) s after its deadline")
                sawOverride = true
            } else {
                #expect(run.outputText == #"{"fromRegistered":true,"fromSchema":true,"fromSystem":true}"# + "\n")
                #expect(issued >= deadline - 1.5, "reverted \(deadline - issued) s before the deadline")
                reverted = true
            }
            if issued > deadline + 60 { Issue.record("still not reverted a minute after the deadline"); break }
        }
        #expect(sawOverride || Self.now > deadline, "the override was never read")
        // Each key alone, with its origin, and the stored value that is no longer seen.
        #expect(try await sandbox.prefs("read", "app", "fromSystem").outputText == "true\n")
        #expect(try await sandbox.prefs("read", "app", "plain").status == 1)
        // The values are still stored: UserDefaults, which knows no deadline, reads them as they are.
        let foreign = try await runProcess(Paths.userDefaultsHelper, ["read", "app"], environment: sandbox.environment)
        #expect(foreign.status == 0, "\(foreign.error)")
        #expect(foreign.outputText.contains("plain\tboolean\tfalse\n") && foreign.outputText.contains("fromSystem\tboolean\tfalse\n"), "\(foreign.outputText)")
        #expect(foreign.outputText.contains(".prefs-expires\tdictionary\tfromRegistered="), "\(foreign.outputText)")
    }

    /// `gc` removes a value, with its deadline, once it expired longer ago than the grace period
    /// (a host whose clock is behind may still show it before that), as one change the history
    /// keeps; a value still ahead of its deadline, and one expired less long ago, stay.
    @Test func gcRemovesValuesExpiredLongerAgoThanTheGrace() async throws {
        let sandbox = try ProcessSandbox()
        try #require(await sandbox.prefs("write", "g", "soon", "x", "--ttl", "1s").status == 0)
        try #require(await sandbox.prefs("write", "g", "later", "y", "--ttl", "1h").status == 0)
        try #require(await sandbox.prefs("write", "g", "plain", "-int", "1").status == 0)
        let deadline = try Self.deadline(sandbox, suite: "g", key: "soon")
        while Self.now <= deadline + 0.1 { try await Task.sleep(for: .milliseconds(100)) }
        // Expired, but not an hour ago: kept.
        var gc = try await sandbox.prefs("gc", "g", "--exit-code")
        #expect(gc.status == 0 && gc.outputText.isEmpty, "\(gc.outputText)\(gc.error)")
        gc = try await sandbox.prefs("gc", "g", "--grace", "0", "--dry-run")
        #expect(gc.status == 0 && gc.outputText.hasPrefix("would remove g: soon (expired "), "\(gc.outputText)\(gc.error)")
        gc = try await sandbox.prefs("gc", "--grace", "0", "--exit-code")
        #expect(gc.status == 3 && gc.outputText.hasPrefix("removed g: soon (expired "), "\(gc.outputText)\(gc.error)")
        guard case .dictionary(let stored)? = try sandbox.suite("g") else { throw TestFailure("no suite g") }
        #expect(stored["soon"] == nil && stored["later"] == .string("y") && stored["plain"] == .integer(1))
        #expect(Expiry.deadline(of: "soon", in: stored[Expiry.key]) == nil && Expiry.deadline(of: "later", in: stored[Expiry.key]) != nil)
        #expect(try await sandbox.prefs("history", "g").outputText.hasPrefix("4\t") == true)
        #expect(try await sandbox.prefs("history", "g").outputText.split(separator: "\n").first?.contains("\tgc\t") == true)
        #expect(try await sandbox.prefs("gc", "g", "--grace", "0", "--exit-code").status == 0)
    }

    @Test func userDefaultsReadsASuiteWithAnExpiringValue() async throws {
        let sandbox = try ProcessSandbox()
        try #require(await sandbox.prefs("write", "shared", "kept", "-int", "1").status == 0)
        try #require(await sandbox.prefs("write", "shared", "flag", "-bool", "yes", "--ttl", "1h").status == 0)
        let read = try await runProcess(Paths.userDefaultsHelper, ["read", "shared"], environment: sandbox.environment)
        #expect(read.status == 0, "\(read.error)")
        let lines = read.outputText.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].hasPrefix(".prefs-expires\tdictionary\tflag=") && lines[1] == "flag\tboolean\ttrue" && lines[2] == "kept\tinteger\t1",
                "\(read.outputText)")
        // And prefs still reads what UserDefaults writes into it, the deadline kept.
        let deadline = try Self.deadline(sandbox, suite: "shared", key: "flag")
        #expect(try await sandbox.prefs("read", "shared", "flag").outputText == "true\n")
        #expect(try Self.deadline(sandbox, suite: "shared", key: "flag") == deadline)
    }

    @Test func theReservedKeyNeverShows() async throws {
        let sandbox = try ProcessSandbox()
        try #require(await sandbox.prefs("write", "app", "a", "1", "b", "2", "--ttl", "1h").status == 0)
        for arguments in [["read", "app"], ["read", "app", "--keys"], ["read", "app", "--json"], ["export", "app", "-", "--format", "json"],
                          ["export", "app", "-", "--format", "sh"], ["dump"], ["find", "prefs-expires"], ["read", "app", "--origin"]] {
            let run = try await sandbox.prefs(arguments)
            #expect(!run.outputText.contains("prefs-expires"), "\(arguments): \(run.outputText)")
        }
        #expect(try await sandbox.prefs("read", "app", ".prefs-expires").status == 1)
        // A change of the key itself is refused; the suite stays byte-identical.
        let before = try Fixtures.bytes(sandbox.config + "/app.plist")
        let refused = try await sandbox.prefs("write", "app", ".prefs-expires", "-dict", "a", "-int", "1")
        #expect(refused.status == 64 && refused.error.hasPrefix("prefs: ") && refused.error.split(separator: "\n").count == 1, "\(refused.error)")
        let imported = try await sandbox.prefs("import", "app", "-", input: Array(#"{".prefs-expires": {}}"#.utf8))
        #expect(imported.status == 64, "\(imported.error)")
        #expect(try Fixtures.bytes(sandbox.config + "/app.plist") == before)
    }

    @Test func deadlinesFollowWritesRenamesAndDeletes() async throws {
        let sandbox = try ProcessSandbox()
        try #require(await sandbox.prefs("write", "app", "a", "1", "--ttl", "1h").status == 0)
        let first = try Self.deadline(sandbox, suite: "app", key: "a")
        #expect(first > Self.now + 3500 && first < Self.now + 3602)
        try #require(await sandbox.prefs("rename", "app", "a", "b").status == 0)
        #expect(try Self.deadline(sandbox, suite: "app", key: "b") == first)
        // The same value written again without --ttl: no deadline any more.
        try #require(await sandbox.prefs("write", "app", "b", "1").status == 0)
        #expect(throws: TestFailure.self) { try Self.deadline(sandbox, suite: "app", key: "b") }
        try #require(await sandbox.prefs("write", "app", "c", "1", "--expires-at", "2200-01-01T00:00:00Z").status == 0)
        #expect(try Self.deadline(sandbox, suite: "app", key: "c") == PrefDate(iso8601: "2200-01-01T00:00:00Z")!.secondsSinceReferenceDate)
        // --if-absent leaves a stored key's deadline as it is.
        try #require(await sandbox.prefs("write", "app", "c", "2", "--if-absent", "--ttl", "5m").status == 0)
        #expect(try Self.deadline(sandbox, suite: "app", key: "c") == PrefDate(iso8601: "2200-01-01T00:00:00Z")!.secondsSinceReferenceDate)
        try #require(await sandbox.prefs("delete", "app", "c").status == 0)
        guard case .dictionary(let stored)? = try sandbox.suite("app") else { Issue.record("no suite"); return }
        #expect(stored[Expiry.key] == nil, "no deadline is left for a deleted key")
    }

    /// `read --origin`, `describe` and `find --expiring` show a deadline.
    @Test func originDescribeAndFindShowTheDeadline() async throws {
        let sandbox = try ProcessSandbox()
        let schema = try sandbox.directory.write("schema.json", #"{"keys": {"a": {"type": "integer", "default": 0}}}"#)
        try #require(await sandbox.prefs("register", "app", "--schema", schema).status == 0)
        try #require(await sandbox.prefs("write", "app", "a", "-int", "1", "--expires-at", "2200-01-01T00:00:00Z").status == 0)
        try #require(await sandbox.prefs("write", "other", "b", "-int", "2", "--ttl", "15m").status == 0)
        #expect(try await sandbox.prefs("read", "app", "a", "--origin").outputText.hasPrefix("stored, expires 2200-01-01T00:00:00Z (in "))
        let described = try await sandbox.prefs("describe", "app", "a")
        #expect(described.outputText.contains("  origin: stored\n  expires 2200-01-01T00:00:00Z (in "), "\(described.outputText)")
        let soon = try await sandbox.prefs("find", "--expiring", "1h")
        #expect(soon.status == 0 && soon.outputText.hasPrefix("other\tb\texpires ") && soon.outputText.hasSuffix(" (in 15m)\n"), "\(soon.outputText)")
        let all = try await sandbox.prefs("find", "--expiring", "168h")
        #expect(all.outputText.split(separator: "\n").count == 1, "the year 2200 is more than a week away: \(all.outputText)")
        #expect(try await sandbox.prefs("find", "--expiring", "1s").status == 1)
        #expect(try await sandbox.prefs("find").status == 64)
    }

    /// Bad options: one line, 64, nothing written (not even a suite created).
    @Test(arguments: [
        (["write", "app", "k", "v", "--ttl", "0"], "--ttl takes a duration above 0"),
        (["write", "app", "k", "v", "--ttl", "-5s"], "--ttl takes a duration"),
        (["write", "app", "k", "v", "--ttl", "5 s"], "--ttl takes a duration"),
        (["write", "app", "k", "v", "--ttl", "9999h"], "--ttl takes a duration"),
        (["write", "app", "k", "v", "--ttl", "5s", "--expires-at", "2200-01-01T00:00:00Z"], "cannot be combined"),
        (["write", "app", "k", "v", "--expires-at", "2001-01-01T00:00:00Z"], "is already past"),
        (["write", "app", "k", "v", "--expires-at", "tomorrow"], "takes an ISO 8601 date"),
        (["write", "app", "{ k = v; }", "--ttl", "5s"], "not a whole domain"),
        (["read", "app", "k", "--ttl", "5s"], "unknown option '--ttl'"),
        (["delete", "app", "k", "--ttl", "5s"], "unknown option '--ttl'"),
        (["import", "app", "-", "--expires-at", "2200-01-01T00:00:00Z"], "unknown option '--expires-at'"),
    ])
    func hostileOptionsChangeNothing(arguments: [String], message: String) throws {
        let home = InMemoryHome()
        let run = home.run(arguments)
        #expect(run.status == .usage, "\(arguments): \(run.error)")
        #expect(run.error.hasPrefix("prefs: ") && run.error.contains(message) && run.error.split(separator: "\n").count == 1, "\(run.error)")
        #expect(try home.suite("app") == nil)
    }

    /// `watch` reports an expiry as a change, woken at the deadline (no write wakes it).
    @Test func watchReportsTheExpiry() async throws {
        let sandbox = try ProcessSandbox()
        try #require(await sandbox.prefs("register", "app", "flag", "-bool", "false").status == 0)
        try #require(await sandbox.prefs("write", "app", "flag", "-bool", "true", "--ttl", "2s").status == 0)
        let deadline = try Self.deadline(sandbox, suite: "app", key: "flag")
        let run = try await sandbox.shell("prefs watch app flag --initial --once --timeout 60")
        let reported = Self.now
        #expect(run.status == 0, "\(run.error)")
        let lines = run.outputText.split(separator: "\n")
        #expect(lines.count == 2 && lines[1].contains("false"), "\(run.outputText)")
        #expect(reported >= deadline, "the expiry was reported \(deadline - reported) s before its deadline")
    }
}
