import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// The completion files, driven interactively in the real shells against a real suite: every verb
/// of the command table and, for each verb, its options exactly as the table declares them; type
/// flags, values, suite names and keys. Sets are compared exactly, so an offer missing or too many
/// fails (ShellSession.swift drives the shells).
@Suite(.runsProcesses) struct ShellCompletionTests {
    /// A sandbox holding the suite `com.example.app` with keys `alpha` and `beta`, and an empty
    /// working directory for the shell (bash offers file names where a path may go).
    static func sandbox() async throws -> (ProcessSandbox, String) {
        let sandbox = try ProcessSandbox()
        try #require(await sandbox.prefs("write", "com.example.app", "alpha", "1", "beta", "-bool", "true").status == 0)
        let work = sandbox.directory.file("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        return (sandbox, work)
    }

    /// What completing each line offers, in one session of `shell`, and the line left.
    static func offers(_ shell: CompletionShell, _ lines: [String]) async throws -> [CompletionResult] {
        let (sandbox, work) = try await Self.sandbox()
        return try await shell.complete(lines.map { ($0, .single) }, in: sandbox, directory: work)
    }

    /// The names offered, as the shell reads them: bash offers words quoted for the command line.
    static func names(_ shell: CompletionShell, _ result: CompletionResult, in sandbox: ProcessSandbox) async throws -> [String] {
        guard shell == .bash else { return result.offers }
        return try await shell.words(of: result.offers, in: sandbox, directory: sandbox.directory.path).map { $0.joined(separator: " ") }
    }

    static let verbs = CommandTable.verbs.map(\.name)

    /// Each verb's options as typed: `--NAME` for every option it declares, and `--help`.
    static func options(_ verb: VerbSpec) -> [String] {
        (verb.options + CommandTable.common).map { "--" + $0.name }
    }

    @Test(arguments: CompletionShell.allCases)
    func everyVerbIsOfferedExactly(shell: CompletionShell) async throws {
        let results = try await ShellCompletionTests.offers(shell, ["prefs ", "prefs help ", "prefs -"])
        // fish keeps words that start with - for when the word typed does.
        let first = results[0].offers.filter { !$0.hasPrefix("-") }
        #expect(first.sorted() == ShellCompletionTests.verbs.sorted(), "\(shell) prefs: \(results[0].offers)")
        #expect(results[0].offers.count - first.count == (shell == .fish ? 0 : CommandTable.global.count + 1), "\(shell) prefs: \(results[0].offers)")
        #expect(results[1].offers.sorted() == ShellCompletionTests.verbs.sorted(), "\(shell) prefs help: \(results[1].offers)")
        #expect(results[2].offers.sorted() == (CommandTable.global.map(\.spelling) + ["-h"]).sorted(), "\(shell) prefs -: \(results[2].offers)")
    }

    /// `prefs VERB --` offers the verb's options, exactly; `prefs VERB -` offers the short
    /// spellings (`-0`) of the verbs that have them, and no other verb's.
    @Test(arguments: CompletionShell.allCases)
    func everyVerbOffersItsOptionsExactly(shell: CompletionShell) async throws {
        let verbs = CommandTable.verbs
        let results = try await ShellCompletionTests.offers(shell, verbs.flatMap { ["prefs \($0.name) --", "prefs \($0.name) -"] })
        for (verb, pair) in zip(verbs, stride(from: 0, to: results.count, by: 2).map { (results[$0], results[$0 + 1]) }) {
            #expect(pair.0.offers.sorted() == ShellCompletionTests.options(verb).sorted(), "\(shell) \(verb.name) --: \(pair.0.offers)")
            let shorts = verb.options.compactMap(\.short).map { "-\($0)" }
            #expect(Set(pair.1.offers.filter { $0.count == 2 && $0 != "-g" }) == Set(shorts), "\(shell) \(verb.name) -: \(pair.1.offers)")
        }
    }

    static let cases: [(line: String, expected: [String])] = [
        ("prefs rea", ["read", "read-type"]),
        ("prefs read ", ["com.example.app", "-g", "NSGlobalDomain"]),
        ("prefs read com.example.app ", ["alpha", "beta"]),
        ("prefs read com.example.app --keys ", ["alpha", "beta"]),
        ("prefs read com.example.app alpha --default -in", ["-int", "-integer"]),
        ("prefs read com.example.app alpha --default -bool ", ["true", "false", "yes", "no"]),
        ("prefs read com.example.app --default -int 5 ", ["alpha", "beta"]),
        ("prefs read com.example.app --default 5 ", ["alpha", "beta"]),
        ("prefs delete com.example.app ", ["alpha", "beta"]),
        ("prefs delete com.example.app alpha ", ["alpha", "beta"]),
        ("prefs reset com.example.app alpha ", ["alpha", "beta"]),
        ("prefs write com.example.app ", ["alpha", "beta"]),
        ("prefs write com.example.app alpha -in", ["-int", "-int-add", "-integer"]),
        ("prefs write com.example.app alpha -bool ", ["true", "false", "yes", "no"]),
        ("prefs export com.example.app - --format ", ["xml", "binary", "openstep", "json", "typed-json", "sh", "env", "github"]),
        ("prefs export com.example.app - --keys alpha,", ["alpha,alpha", "alpha,beta"]),
        ("prefs migrate --from ", ["file", "ini", "env", "suite"]),
        ("prefs check ", ["com.example.app", "-g", "NSGlobalDomain"]),
        ("prefs exec com.example.app --ke", ["--keys"]),
        ("prefs watch com.example.app --ex", ["--exec"]),
        ("prefs exec com.example.app -- printen", ["printenv"]),
        ("prefs exec com.example.app --keys ", ["alpha", "beta"]),
        ("prefs register com.example.app --delete ", ["alpha", "beta"]),
        ("prefs describe com.example.app ", ["alpha", "beta"]),
        ("prefs read com.example.app alpha --format ", ["xml", "binary", "openstep", "json", "typed-json"]),
        ("prefs completion ", ["bash", "zsh", "fish"]),
    ]

    @Test(arguments: CompletionShell.allCases)
    func typeFlagsValuesSuitesAndKeys(shell: CompletionShell) async throws {
        let (sandbox, work) = try await ShellCompletionTests.sandbox()
        let results = try await shell.complete(ShellCompletionTests.cases.map { ($0.line, .single) }, in: sandbox, directory: work)
        for ((line, expected), result) in zip(ShellCompletionTests.cases, results) {
            let offered = try await ShellCompletionTests.names(shell, result, in: sandbox)
            // zsh's _sequence offers the items not in the list yet, without the list typed.
            let wanted = shell == .zsh && line.hasSuffix(",") ? ["beta"] : expected
            #expect(offered.sorted() == wanted.sorted(), "\(shell) '\(line)': \(result.offers)")
        }
    }

    /// A VALUE read from a file: after -string-file its name, after -data or -json an @ and its name.
    @Test(arguments: CompletionShell.allCases)
    func filesAsValues(shell: CompletionShell) async throws {
        let (sandbox, work) = try await ShellCompletionTests.sandbox()
        try sandbox.directory.write("work/data.bin", "x")
        let lines = ["prefs write com.example.app blob -string-file ", "prefs write com.example.app blob -data @", "prefs write com.example.app j -json @da"]
        let results = try await shell.complete(lines.map { ($0, .single) }, in: sandbox, directory: work)
        // zsh offers the name once the @ is set aside (compset -P @), and puts it back.
        let at = shell == .zsh ? "data.bin" : "@data.bin"
        for ((line, expected), result) in zip(zip(lines, [["data.bin"], [at], [at]]), results) {
            #expect(try await ShellCompletionTests.names(shell, result, in: sandbox) == expected, "\(shell) '\(line)': \(result.offers)")
        }
        #expect(results[1].line.hasSuffix(" -data @data.bin ") || results[1].line.hasSuffix(" -data @data.bin"), "\(shell): \(results[1].line)")
    }
}
