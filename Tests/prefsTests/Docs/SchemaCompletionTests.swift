import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// The completions offer, as the value of a key whose schema gives it choices, exactly those
/// choices (from `prefs describe --choices --null`), in each shell; a key without choices gets none.
@Suite(.runsProcesses) struct SchemaCompletionTests {
    static let cases: [(line: String, expected: [String])] = [
        ("prefs write com.example.app level ", ["debug", "info", "two words"]),
        ("prefs write com.example.app level -string ", ["debug", "info", "two words"]),
        ("prefs write com.example.app alpha 1 level ", ["debug", "info", "two words"]),
        ("prefs register com.example.app level ", ["debug", "info", "two words"]),
        ("prefs write com.example.app flag ", ["true", "false"]),
        ("prefs write com.example.app alpha ", []),
        ("prefs describe com.example.app --choi", ["--choices"]),
    ]

    @Test(arguments: CompletionShell.allCases)
    func aKeysChoicesAreOfferedAsItsValues(shell: CompletionShell) async throws {
        let (sandbox, work) = try await ShellCompletionTests.sandbox()
        let schema = try sandbox.directory.write("schema.json", #"""
            {"keys": {"level": {"type": "string", "choices": ["debug", "info", "two words"]}, "flag": {"type": "boolean"}}}
            """#)
        try #require(await sandbox.prefs("register", "com.example.app", "--schema", schema).status == 0)
        let results = try await shell.complete(SchemaCompletionTests.cases.map { ($0.line, .single) }, in: sandbox, directory: work)
        for ((line, expected), result) in zip(SchemaCompletionTests.cases, results) {
            var offered = try await ShellCompletionTests.names(shell, result, in: sandbox)
            // fish offers the type flags at a value position too, whatever the word typed so far.
            if shell == .fish { offered = offered.filter { TypeFlag.named($0) == nil } }
            #expect(offered.sorted() == expected.sorted(), "\(shell) '\(line)': \(result.offers)")
        }
    }
}
