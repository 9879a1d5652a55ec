import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// Options that do not go together, and operands of the wrong shape, are refused (64) by the verb's
/// `validate` step, before the store is opened or asked anything: here the store is an etcd URL
/// where nothing listens, which a command that got as far as the store would answer with 69.
@Suite struct ValidateTests {
    static let unreachable = ["HOME": "/home/u", "XDG_CONFIG_HOME": "/home/u/.config", "PREFS_STORE": "etcd://127.0.0.1:9/validate",
                              "PREFS_ETCD_TIMEOUT": "0.2"]

    @Test(arguments: [
        (["read", "s", "--json", "--keys"], "--json and --keys cannot be combined"),
        (["read", "s", "k", "--raw", "--origin"], "--raw and --origin cannot be combined"),
        (["find", "w", "--compact", "--null"], "--compact and --null cannot be combined"),
        (["find"], "give a WORD"),
        (["import", "s", "in.plist", "--replace", "--if-absent"], "--replace and --if-absent cannot be combined"),
        (["lock", "deploy", "--wait", "5s", "--no-wait", "--", "true"], "--wait and --no-wait cannot be combined"),
        (["lock", "deploy", "x", "--", "true"], "one NAME, then --"),
        (["register", "s", "--delete", "k", "--replace"], "--delete cannot be combined with --replace"),
        (["register", "s", "k", "v", "--schema", "s.json"], "--schema FILE takes only the DOMAIN"),
        (["watch", "s", "--json", "--exec", "true"], "--exec runs COMMAND instead of printing"),
        (["watch", "s", "--compact", "--", "true"], "-- COMMAND runs COMMAND instead of printing"),
        (["watch", "s", "--exec", "true", "--", "true"], "--exec COMMAND and -- COMMAND cannot be combined"),
        (["write", "s", "k", "v", "--external", "--inline"], "--external and --inline cannot be combined"),
        (["write", "s", "k", "v", "--ttl", "5s", "--expires-at", "2200-01-01T00:00:00Z"], "--ttl and --expires-at cannot be combined"),
    ])
    func aConflictIsRefusedBeforeTheStoreIsAsked(arguments: [String], message: String) {
        let result = prefs(arguments, environment: ValidateTests.unreachable, fileSystem: InMemoryFileSystem())
        #expect(result.status == .usage, "\(arguments): \(result.status) \(result.error)")
        #expect(result.error.contains(message), "\(arguments): \(result.error)")
        #expect(result.output.isEmpty)
    }

    /// The same store answers a command that passes validation with 69: the tests above would
    /// tell a command that asked it.
    @Test func theStoreIsReallyUnreachable() {
        let result = prefs(["read", "s", "k"], environment: ValidateTests.unreachable, fileSystem: InMemoryFileSystem())
        #expect(result.status == .unavailable, "\(result.status) \(result.error)")
    }
}

/// The rules that `run` checked before `validate` existed are refused as early.
@Suite struct ValidateMovedRulesTests {
    @Test(arguments: [
        (["read", "s", "--raw"], "read: --raw needs a KEY (usage: prefs read DOMAIN KEY --raw)"),
        (["read", "--origin"], "read: --origin and --defaults need a domain"),
        (["read", "--max-stale", "5"], "read: --max-stale and --fallback-cache need a domain"),
        (["describe", "s", "--choices"], "describe: --choices needs a KEY"),
        (["describe", "s", "--null"], "describe: --null goes with --choices"),
        (["export", "s", "out.env", "--compact"], "export: --compact is for --format json and typed-json, not env"),
        (["export", "s", "-", "--format", "sh", "--lossy"], "export: --lossy is for --format json and typed-json, not sh"),
        (["exec", "s", "t", "true"], "exec: no -- before the COMMAND (usage: prefs exec DOMAIN [DOMAIN...] -- COMMAND [ARG...])"),
        (["write", "s", "k", "v", "--schema", "f.json", "--no-schema"], "write: --schema and --no-schema cannot be combined"),
        (["import", "s", "in.plist", "--schema", "f.json", "--no-schema"], "import: --schema and --no-schema cannot be combined"),
        (["rename", "s", "a", "b", "--schema", "f.json", "--no-schema"], "rename: --schema and --no-schema cannot be combined"),
        (["migrate", "s", "in.ini", "--schema", "f.json", "--no-schema"], "migrate: --schema and --no-schema cannot be combined"),
        (["rollback", "s"], "rollback: give the version with --to VERSION (usage: prefs rollback DOMAIN --to VERSION)"),
        (["watch", "--", "true"], "watch: no DOMAIN given (\(WatchCommand.usage))"),
    ])
    func aRuleIsRefusedBeforeTheStoreIsAsked(arguments: [String], message: String) {
        let result = prefs(arguments, environment: ValidateTests.unreachable, fileSystem: InMemoryFileSystem())
        #expect(result.status == .usage, "\(arguments): \(result.status) \(result.error)")
        #expect(result.error == "prefs: \(message)\n", "\(arguments): \(result.error)")
        #expect(result.output.isEmpty)
    }
}
