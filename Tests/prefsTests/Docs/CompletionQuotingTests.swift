import Foundation
import Testing
@testable import PrefsCore

/// Suite names and keys are data, and completing them must never run or mangle what they hold: in
/// bash, zsh and fish, each is offered exactly once, and accepting it puts exactly that word on the
/// command line, quoted as the shell needs, whatever it holds ($(...), backquotes, quotes,
/// backslashes, $, newlines, tabs, glob characters, echo flags, a leading ~, non-ASCII), for a
/// suite, a suite whose name has a space, and a file named by its path. A file that one of them
/// would create must never appear.
@Suite(.runsProcesses) struct CompletionQuotingTests {
    /// A sandbox with the suites `hostile` and `my suite` holding every key of `keys`, suites with
    /// hostile names (holding the key `k`), the file `work/downloaded.json` with the same keys, `work` the
    /// shell's directory, and `eval` (where the lines are run) holding files a glob would match.
    struct Fixture {
        let sandbox: ProcessSandbox
        var work: String { sandbox.directory.file("work") }
        var eval: String { sandbox.directory.file("eval") }
        var pwned: String { sandbox.directory.file("pwned") }

        var keys: [String] {
            ["$(touch \(pwned)-dollar)", "`touch \(pwned)-backquote`", "(touch \(pwned)-fish)", "a b", "it's", "back\\slash",
             "dollar$HOME", "new\nline", "tab\tx", "*", "?", "-n", "-e", "~", "~/x", "~root", "~tilde", "ключ", "semi;colon",
             "!bang", "#hash", "x=y", "a:b", "\"dq\"", "{br,ace}", "-0", "--", "--json", "plain"]
        }
        static let suites = ["my suite", "it's", "$(touch pwned-suite)", "`touch pwned-suite2`", "dollar$HOME", "~tilde", "ключ",
                             "semi;colon", "*", "-n", "--weird", "plain"]

        init() async throws {
            sandbox = try ProcessSandbox()
            for directory in [work, eval] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            for decoy in ["x", "ab"] { try sandbox.directory.write("eval/" + decoy, "") }
            for suite in Fixture.suites where suite != "my suite" { try #require(try await prefs(["write", "--", suite, "k", "1"]).status == 0) }
            for suite in ["hostile", "my suite"] {
                let write = try await prefs(["write", suite, "--"] + keys.flatMap { [$0, "1"] })
                try #require(write.status == 0, "\(write.error)")
            }
            try #require(try await prefs(["export", "hostile", work + "/downloaded.json", "--format", "json"]).status == 0)
        }

        func prefs(_ arguments: [String]) async throws -> ProcessResult {
            try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
        }

        /// Every file under the sandbox whose name says it should never have been created (the
        /// keys' touch commands name pwned-…; the suites' create pwned-suite… where they run).
        func pwnedFiles() throws -> [String] {
            try FileManager.default.subpathsOfDirectory(atPath: sandbox.directory.path).filter { ($0 as NSString).lastPathComponent.hasPrefix("pwned") }
        }
    }

    /// A name prefs would take for an option: the completions put a `--` before it.
    static func optionLike(_ name: String) -> Bool { name.hasPrefix("--") || name == "-0" }

    /// The names `shell` offers for `names` where a completion lists them: fish leaves out those
    /// holding a tab, those starting with ~ (unless the word typed starts with an escaped ~) and
    /// those prefs would take for an option (unless -- was typed).
    static func offerable(_ names: [String], _ shell: CompletionShell, tilde: Bool = false, dashdash: Bool = false) -> [String] {
        guard shell == .fish else { return names }
        return names.filter { !$0.contains("\t") && $0.hasPrefix("~") == tilde && (dashdash || !optionLike($0)) }
    }

    /// The words each offer is: bash offers quoted words, evaluated here (a `--` before an option-like
    /// name is a word of its own); zsh and fish offer the names.
    static func words(_ result: CompletionResult, _ shell: CompletionShell, _ fixture: Fixture) async throws -> [[String]] {
        guard shell == .bash else { return result.offers.map { [$0] } }
        return try await shell.words(of: result.offers, in: fixture.sandbox, directory: fixture.eval)
    }

    /// `name` as it should be offered: after a `--` in bash when prefs would take it for an option.
    static func expected(_ names: [String], _ shell: CompletionShell, dashdash: Bool = false) -> [[String]] {
        names.map { shell == .bash && !dashdash && optionLike($0) ? ["--", $0] : [$0] }
    }

    static func sorted(_ words: [[String]]) -> [[String]] {
        words.sorted { $0.joined(separator: "\0").utf8.lexicographicallyPrecedes($1.joined(separator: "\0").utf8) }
    }

    @Test(arguments: CompletionShell.allCases)
    func everyNameIsOfferedExactlyOnce(shell: CompletionShell) async throws {
        let fixture = try await Fixture()
        let keys = fixture.keys
        let domains = ["hostile", "downloaded.json", "'my suite'", "my\\ suite"]
        let lines = ["prefs read "] + domains.map { "prefs read \($0) " } + ["prefs read hostile -- ", "prefs read hostile \\~"]
        let results = try await shell.complete(lines.map { ($0, .single) }, in: fixture.sandbox, directory: fixture.work)
        // A DOMAIN is a suite or a file: the work directory's file is offered too.
        let suites = CompletionQuotingTests.offerable(Fixture.suites + ["hostile", "-g", "NSGlobalDomain"], shell) + ["downloaded.json"]
        var expected = [CompletionQuotingTests.expected(suites, shell)]
        expected += domains.map { _ in CompletionQuotingTests.expected(CompletionQuotingTests.offerable(keys, shell), shell) }
        expected.append(CompletionQuotingTests.expected(CompletionQuotingTests.offerable(keys, shell, dashdash: true), shell, dashdash: true))
        expected.append(CompletionQuotingTests.offerable(keys.filter { $0.hasPrefix("~") }, shell, tilde: true).map { [$0] })
        for (line, (result, wanted)) in zip(lines, zip(results, expected)) {
            let offered = try await CompletionQuotingTests.words(result, shell, fixture)
            #expect(CompletionQuotingTests.sorted(offered) == CompletionQuotingTests.sorted(wanted), "\(shell) '\(line)': \(result.offers)")
        }
        #expect(try fixture.pwnedFiles() == [])
    }

    /// bash's insert-completions and zsh's insert=all put every match on the line, quoted as each
    /// is when it is the only one; run, the line is the command and exactly those names, each once.
    @Test(arguments: [CompletionShell.bash, .zsh])
    func insertingEveryMatchGivesEachNameAsOneWord(shell: CompletionShell) async throws {
        let fixture = try await Fixture()
        let domains = [("hostile", "hostile"), ("downloaded.json", "downloaded.json"), ("'my suite'", "my suite")]
        let lines = domains.map { "prefs read \($0.0) " } + ["prefs read "]
        let results = try await shell.complete(lines.map { ($0, .all) }, in: fixture.sandbox, directory: fixture.work)
        let words = try await shell.words(of: results.map(\.line), in: fixture.sandbox, directory: fixture.eval)
        let keys = CompletionQuotingTests.expected(fixture.keys, .bash).flatMap { $0 }
        let suites = CompletionQuotingTests.expected(Fixture.suites + ["hostile", "-g", "NSGlobalDomain", "downloaded.json"], .bash)
        let expected = domains.map { ["prefs", "read", $0.1] + keys } + [["prefs", "read"] + suites.flatMap { $0 }]
        for (line, (got, wanted)) in zip(lines, zip(words, expected)) {
            #expect(got.starts(with: wanted.prefix(line == "prefs read " ? 2 : 3)), "\(shell) '\(line)': \(got)")
            #expect(got.sorted() == wanted.sorted(), "\(shell) '\(line)': \(got) \(wanted)")
        }
        #expect(try fixture.pwnedFiles() == [])
    }

    /// The shortest prefix of each name that no other candidate starts with (none for a name that
    /// starts another one, or that prefs would take for an option).
    static func uniquePrefixes(_ names: [String], among candidates: [String]) -> [(prefix: String, name: String)] {
        names.compactMap { name in
            guard !optionLike(name), !candidates.contains(where: { $0 != name && $0.hasPrefix(name) }) else { return nil }
            let characters = Array(name)
            return (1...characters.count).lazy.map { String(characters[..<$0]) }
                .first { prefix in !candidates.contains { $0 != name && $0.hasPrefix(prefix) } }.map { ($0, name) }
        }
    }

    /// Typing the start of a name (escaped as the shell escapes it, or in quotes) and TAB leaves
    /// the name on the line, once, with its closing quote: run, the line is exactly that command.
    @Test(arguments: CompletionShell.allCases)
    func acceptingACompletionGivesExactlyTheName(shell: CompletionShell) async throws {
        let fixture = try await Fixture()
        let keys = CompletionQuotingTests.offerable(fixture.keys, shell).filter { !$0.hasPrefix("~") }
            + CompletionQuotingTests.offerable(fixture.keys.filter { $0.hasPrefix("~") }, shell, tilde: true)
        let suites = CompletionQuotingTests.offerable(Fixture.suites, shell) + CompletionQuotingTests.offerable(["~tilde"], shell, tilde: true)
        let keyPrefixes = CompletionQuotingTests.uniquePrefixes(keys, among: fixture.keys)
        let suitePrefixes = CompletionQuotingTests.uniquePrefixes(suites, among: Fixture.suites + ["hostile", "-g", "NSGlobalDomain", "downloaded.json"])
        let escaped = try await shell.quoted((keyPrefixes + suitePrefixes).map(\.prefix), in: fixture.sandbox)
        var cases = zip(escaped, keyPrefixes).map { ("prefs read hostile " + $0.0, ["prefs", "read", "hostile", $0.1.name]) }
        cases += zip(escaped.dropFirst(keyPrefixes.count), suitePrefixes).map { ("prefs read " + $0.0, ["prefs", "read", $0.1.name]) }
        // Quotes opened, a break character of bash's, an escaped quote, and a suite typed in quotes.
        cases += [("prefs read hostile 'it", "it's"), ("prefs read hostile \"it", "it's"), ("prefs read hostile it\\'", "it's"),
                  ("prefs read hostile 'new", "new\nline"), ("\"dol", "dollar$HOME"), ("prefs read hostile a:", "a:b"),
                  ("prefs read hostile x=", "x=y"), ("prefs read hostile 'back", "back\\slash")]
            .map { ($0.0.hasPrefix("prefs") ? $0.0 : "prefs read hostile " + $0.0, ["prefs", "read", "hostile", $0.1]) }
        cases += [("prefs read 'my s", ["prefs", "read", "my suite"]), ("prefs read my\\ s", ["prefs", "read", "my suite"]),
                  ("prefs read 'my suite' pl", ["prefs", "read", "my suite", "plain"])]
        let results = try await shell.complete(cases.map { ($0.0, .single) }, in: fixture.sandbox, directory: fixture.work)
        let words = try await shell.words(of: results.map(\.line), in: fixture.sandbox, directory: fixture.eval)
        for ((line, wanted), (result, got)) in zip(cases, zip(results, words)) {
            #expect(got == wanted, "\(shell) '\(line)' left '\(result.line)'")
        }
        #expect(try fixture.pwnedFiles() == [])
    }
}
