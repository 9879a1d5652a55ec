import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// The slips people make on a command line get an error that names the real cause, with its
/// status, and change nothing.
@Suite(.runsProcesses) struct SlipTests {
    @Test(arguments: [
        (["raed", "app"], "unknown verb 'raed' (did you mean read?)"),
        (["imprt", "app", "x"], "unknown verb 'imprt' (did you mean import?)"),
        (["dmoains"], "unknown verb 'dmoains' (did you mean domains?)"),
        (["frobnicate"], "unknown verb 'frobnicate' (see prefs --help)"),
        (["x"], "unknown verb 'x' (see prefs --help)"),
        (["--verison"], "unknown option '--verison' (did you mean --version?)"),
        // The host options are spelled with one dash, as in `defaults`: the hint gives that spelling.
        (["--currentHost", "read"], "unknown option '--currentHost' (did you mean -currentHost?)"),
        (["--host", "x", "read"], "unknown option '--host' (did you mean -host?)"),
        (["read", "app", "--jsn"], "read: unknown option '--jsn' (did you mean --json?)"),
        (["export", "app", "-", "--fromat", "json"], "export: unknown option '--fromat' (did you mean --format?)"),
        (["write", "app", "k", "v", "--dryrun"], "write: unknown option '--dryrun' (did you mean --dry-run?)"),
        (["read", "app", "--frobnicate"], "read: unknown option '--frobnicate' (see prefs help read)"),
        (["read", "app", "k", "-json"], "read: unexpected argument '-json' (-json is not an option: did you mean --json?)"),
        (["read", "app", "k", "-keys"], "read: unexpected argument '-keys' (-keys is not an option: did you mean --keys?)"),
        (["read", "app", "k", "-x"], "read: unexpected argument '-x' (usage: prefs read [DOMAIN [KEY]])"),
    ] as [([String], String)])
    func mistypedWordsGetASuggestion(arguments: [String], message: String) {
        #expect(throws: PrefsError.usage(message)) { try Arguments.parse(arguments) }
    }

    @Test func suggestionsAreTheClosestWithinTwoEdits() {
        #expect(Suggestions.distance("raed", "read") == 1)
        #expect(Suggestions.distance("", "gc") == 2)
        #expect(Suggestions.distance("kitten", "sitting") == 3)
        #expect(Suggestions.closest(to: "rad", among: ["read", "rename", "reset"]) == ["read"])
        #expect(Suggestions.closest(to: "gx", among: ["gc", "help"]) == ["gc"])
        #expect(Suggestions.closest(to: "a", among: ["gc"]).isEmpty)
        #expect(Suggestions.closest(to: "--nul", among: ["--null", "--json"]) == ["--null"])
    }

    @Test(arguments: [
        (["write", "app", "-int", "5"], "prefs: app: missing KEY before -int (a key spelled like a type flag is written as the key path :-int)\n"),
        (["write", "app", "k", "v", "-bool", "yes"], "prefs: app: missing KEY before -bool (a key spelled like a type flag is written as the key path :-bool)\n"),
        (["write", "app", "list", "-array", "a", "b", "-dict", "k", "v"],
         "prefs: app: -array takes every word after it, so -dict is not a new KEY group but one of its items; put the -array group last, or write its KEY's value with -json\n"),
        (["write", "app", "d", "-dict", "k", "-array", "x"],
         "prefs: app: -dict takes every word after it, so -array is not a new KEY group but one of its items; put the -dict group last, or write its KEY's value with -json\n"),
        (["read", "app", "--raw"], "prefs: read: --raw needs a KEY (usage: prefs read DOMAIN KEY --raw)\n"),
        (["read", "app", "--default", "1"], "prefs: read: --default needs a KEY (usage: prefs read DOMAIN KEY --default [TYPE] VALUE)\n"),
    ])
    func slipsAreUsageErrorsThatChangeNothing(arguments: [String], error: String) throws {
        let home = InMemoryHome()
        home.run("write", "app", "kept", "1")
        let before = try home.files()
        #expect(home.run(arguments) == (.usage, "", error))
        #expect(try home.files() == before)
    }

    /// A key that is spelled like a type flag can still be written, as a key path.
    @Test func aKeySpelledLikeATypeFlagIsAKeyPath() throws {
        let home = InMemoryHome()
        #expect(home.run("write", "app", ":-int", "-int", "5").status == .success)
        #expect(try home.suite("app") == ["-int": 5])
    }

    @Test func registerDeleteTakesSeveralKeysAllOrNothing() throws {
        let home = InMemoryHome()
        home.run("register", "app", "a", "1", "b", "2", "c", "3")
        let missing = home.run("register", "app", "--delete", "a", "nope")
        #expect(missing.status == .notFound)
        #expect(home.run("read", "app", "a").output == "1\n")
        #expect(home.run("register", "app", "--delete", "a", "b") == (.success, "", ""))
        #expect(home.run("read", "app", "--keys").output == "c\n")
        #expect(home.run("register", "app", "--delete", "c", "--replace").status == .usage)
    }

    @Test func checkOfASuiteThatIsNotThereIsNotFound() throws {
        let home = InMemoryHome()
        #expect(home.run("check", "nosuch") == (.notFound, "", "prefs: nosuch: no such suite\n"))
        #expect(home.run("gc", "nosuch") == (.notFound, "", "prefs: nosuch: no such suite\n"))
        home.run("write", "app", "k", "v")
        #expect(home.run("check", "app", "nosuch").status == .notFound)
        #expect(home.run("check", "app") == (.success, "app: 0 external values OK\n", ""))
    }

    /// A suite whose file (and history) is gone but whose blobs are still there is checked: its
    /// orphans show. (While the history is there, its version names the blob: no orphan.)
    @Test func checkOfASuiteWithOnlyBlobsReportsThem() throws {
        let home = InMemoryHome()
        #expect(home.run("write", "app", "big", "-string", "x", "--external").status == .success)
        try home.fileSystem.removeFile("/home/u/.config/app.plist")
        #expect(home.run("check", "app") == (.success, "app: 0 external values OK\n", ""))
        let history = "/home/u/.local/state/prefs/history/app"
        for name in try home.fileSystem.contentsOfDirectory(history) { try home.fileSystem.removeFile(history + "/" + name) }
        let run = home.run("check", "app")
        #expect(run.status == .dataError)
        #expect(run.output.contains("orphan blob"), "\(run.output)")
    }

    @Test func aNameThatIsAFileHereGetsAHint() async throws {
        let scratch = try TemporaryDirectory()
        try scratch.write("settings", "<plist><dict/></plist>")
        let environment = ["XDG_CONFIG_HOME": scratch.file("config"), "HOME": scratch.path, "PATH": "/usr/bin:/bin"]
        let run = try await runProcess(Paths.binary, ["read", "settings"], environment: environment, workingDirectory: scratch.path)
        #expect(run.status == 1)
        #expect(run.error == "prefs: settings: no such suite (did you mean ./settings?)\n")
        let elsewhere = try await runProcess(Paths.binary, ["read", "other"], environment: environment, workingDirectory: scratch.path)
        #expect(elsewhere.error == "prefs: other: no such suite\n")
    }

    @Test func aMissingFileDomainIsMissingInput() throws {
        let home = InMemoryHome()
        #expect(home.run("read", "/home/u/missing.plist") == (.noInput, "", "prefs: /home/u/missing.plist: no such file\n"))
        #expect(home.run("read", "/home/u/missing.plist", "k").status == .noInput)
        #expect(home.run("read-type", "/home/u/missing.plist", "k").status == .noInput)
        // A suite that is not there is still "not found".
        #expect(home.run("read", "nosuch", "k").status == .notFound)
    }
}

@Suite(.runsProcesses) struct WatchMissingSuiteTests {
    /// Watching a suite that does not exist says so once, on standard error, and goes on watching:
    /// its creation is printed.
    @Test func watchingASuiteThatIsNotThereSaysSoAndWaitsForIt() async throws {
        let sandbox = try ProcessSandbox()
        let watch = try WatchProcess(sandbox, ["com.example.new", "--once", "--timeout", "60"])
        _ = await watch.waitForError(timeout: 20)
        #expect(watch.errorText == "prefs: com.example.new: no such suite; watching for it to be created\n")
        try await sandbox.prefs("write", "com.example.new", "k", "v")
        #expect(await watch.nextLine(timeout: 20) == "k (absent) -> v")
        #expect(await watch.wait(timeout: 20) == 0)
        #expect(watch.errorText == "prefs: com.example.new: no such suite; watching for it to be created\n")
    }

    @Test func watchingASuiteThatIsThereSaysNothing() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let run = try await sandbox.prefs("watch", "app", "--timeout", "0.2")
        #expect(run.status == 0 && run.error.isEmpty, "\(run.error)")
    }
}

/// `domains` lists the global suite, when it holds values, as `NSGlobalDomain`: a name every verb
/// takes as a DOMAIN.
@Suite(.runsProcesses) struct DomainsGlobalTests {
    @Test func theGlobalSuiteIsListedWhenItHoldsValues() throws {
        let home = InMemoryHome()
        home.run("write", "zeta", "k", "1")
        home.run("write", "Alpha", "k", "1")
        #expect(home.run("domains") == (.success, "Alpha\nzeta\n", ""))
        home.run("write", "-g", "AppleLocale", "en_GB")
        #expect(home.run("domains") == (.success, "Alpha\nNSGlobalDomain\nzeta\n", ""))
        #expect(home.run("domains", "-0").output == "Alpha\0NSGlobalDomain\0zeta\0")
        #expect(home.run("read", "NSGlobalDomain", "AppleLocale").output == "en_GB\n")
        // Emptied (its file kept, with no values): not listed.
        home.run("delete", "-g", "AppleLocale")
        #expect(home.run("domains").output == "Alpha\nzeta\n")
    }

    /// A global suite that cannot be read is listed, so a loop over the names reaches it, and its
    /// error follows the list (65), as DomainsFaultTests checks on disk.
    @Test func aDamagedGlobalSuiteIsListed() throws {
        let home = InMemoryHome()
        try home.fileSystem.createDirectory("/home/u/.config", mode: 0o700)
        try home.fileSystem.replace("/home/u/.config/.GlobalPreferences.plist", with: Array("<plist><dict>".utf8), newFileMode: 0o600)
        let run = home.run("domains")
        #expect(run.status == .dataError && run.output == "NSGlobalDomain\n", "\(run)")
        #expect(run.error.hasPrefix("prefs: /home/u/.config/.GlobalPreferences.plist: ") && run.error.split(separator: "\n").count == 1, "\(run.error)")
    }

    /// Each shell offers the global suite once, though domains now lists it.
    @Test(arguments: CompletionShell.allCases)
    func completionsOfferTheGlobalSuiteOnce(shell: CompletionShell) async throws {
        let (sandbox, work) = try await ShellCompletionTests.sandbox()
        try #require(await sandbox.prefs("write", "-g", "AppleLocale", "en_GB").status == 0)
        let results = try await shell.complete([("prefs check ", .single)], in: sandbox, directory: work)
        #expect(results[0].offers.sorted() == ["-g", "NSGlobalDomain", "com.example.app"].sorted(), "\(shell): \(results[0].offers)")
    }
}
