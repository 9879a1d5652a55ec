import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `--null` (`-0`) on the verbs that list names: each name ends with a NUL byte and nothing else, so
/// names holding spaces, tabs or newlines come out whole.
@Suite struct NullSeparatedTests {
    static func home() -> InMemoryHome {
        let home = InMemoryHome()
        home.run("write", "my suite", "a b", "1", "new\nline", "2", "-0", "3", "nested", "-dict", "in\nner", "x")
        home.run("write", "other", "k", "new value")
        return home
    }

    @Test(arguments: ["--null", "-0"])
    func domainsEndEachNameWithNUL(spelling: String) {
        let run = NullSeparatedTests.home().run("domains", spelling)
        #expect(run.status == .success)
        #expect(run.output == "my suite\0other\0")
    }

    @Test(arguments: ["--null", "-0"])
    func keysEndWithNUL(spelling: String) {
        let home = NullSeparatedTests.home()
        #expect(home.run("read", "my suite", "--keys", spelling).output == "-0\0a b\0nested\0new\nline\0")
        #expect(home.run("read", "my suite", "nested", spelling, "--keys").output == "in\nner\0")
        // With no domain, the suites' names (the global suite only when it exists).
        #expect(home.run("read", "--keys", spelling).output == "my suite\0other\0")
    }

    @Test(arguments: ["--null", "-0"])
    func findEndsEachMatchWithNUL(spelling: String) {
        let home = NullSeparatedTests.home()
        let run = home.run("find", "NE", spelling)
        #expect(run.status == .success)
        #expect(run.output == "my suite\tnested\0my suite\tnew\nline\0other\tk\0")
        #expect(home.run("find", "NER", spelling).output == "my suite\t:nested:in\nner\0")
    }

    /// A KEY or WORD that is literally `-0` is reached after `--`; verbs without the option take it as an operand.
    @Test func aKeySpelledMinusZeroStaysReachable() throws {
        let home = NullSeparatedTests.home()
        #expect(home.run("read", "my suite", "--", "-0").output == "3\n")
        #expect(home.run("read", "my suite", "-0").status == .usage)
        #expect(home.run("find", "--", "-0").output == "my suite\t-0\n")
        #expect(home.run("rename", "my suite", "-0", "zero").status == .success)
        #expect(home.run("read", "my suite", "zero").output == "3\n")
    }

    @Test(arguments: [
        (["read", "my suite", "--null"], "read: --null needs --keys"),
        (["read", "my suite", "k", "-0"], "read: --null needs --keys"),
        (["read", "my suite", "--keys", "-0", "--origin"], "read: --null and --origin cannot be combined"),
        (["find", "x", "-0", "--json"], "find: --json and --null cannot be combined"),
        (["export", "my suite", "-", "-0"], "export: unexpected argument '-0' (usage: prefs export DOMAIN [PATH|-])"),
    ] as [([String], String)])
    func misuseIsAUsageError(arguments: [String], message: String) {
        let run = NullSeparatedTests.home().run(arguments)
        #expect(run.status == .usage)
        #expect(run.error == "prefs: \(message)\n")
        #expect(run.output.isEmpty)
    }
}
