import Foundation
import Testing
@testable import PrefsCore
@testable import prefs

/// The command table is the source of truth; the man page, the completions and the README must
/// name every verb and option it has, and the README's exit-status table must match ExitStatus.
@Suite(.runsProcesses) struct ConsistencyTests {
    static let documents = ["man/prefs.1", "completions/prefs.bash", "completions/prefs.zsh", "completions/prefs.fish", "README.md"]

    /// How `--name` (or `-name`) is spelled in each document (roff escapes its dashes).
    static func spelling(_ option: String, singleDash: Bool = false, in document: String) -> String {
        let dashes = singleDash ? "-" : "--"
        if document.hasSuffix(".1") { return (dashes + option).replacingOccurrences(of: "-", with: "\\-") }
        if document.hasSuffix(".fish") { return (singleDash ? "-o " : "-l ") + option }
        return dashes + option
    }

    /// `word` occurs and is not just the start of a longer option name.
    static func containsWord(_ text: String, _ word: String) -> Bool {
        var rest = text[...]
        while let range = rest.range(of: word) {
            let next = rest[range.upperBound...].first
            if next == nil || !(next!.isLetter || next! == "-") { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }

    @Test(arguments: documents)
    func everyVerbAndOptionIsDocumented(document: String) throws {
        let text = try Paths.text(document)
        for verb in CommandTable.verbs {
            let name = document.hasSuffix(".1") ? verb.name.replacingOccurrences(of: "-", with: "\\-") : verb.name
            #expect(ConsistencyTests.containsWord(text, name), "\(document) lacks verb \(verb.name)")
            for option in verb.options + CommandTable.global {
                #expect(ConsistencyTests.containsWord(text, ConsistencyTests.spelling(option.name, singleDash: option.singleDash, in: document)),
                        "\(document) lacks \(option.spelling)")
                for choice in option.choices {
                    #expect(text.contains(document.hasSuffix(".1") ? choice.replacingOccurrences(of: "-", with: "\\-") : choice), "\(document) lacks \(choice)")
                }
            }
        }
    }

    /// The README's table of verbs names, in each verb's own row, every option that verb takes (an
    /// option documented only under another verb does not count).
    @Test func readmeRowOfEachVerbNamesItsOptions() throws {
        let rows = try Paths.text("README.md").split(separator: "\n").filter { $0.hasPrefix("| `prefs ") }
        for verb in CommandTable.verbs {
            let row = rows.filter { $0.hasPrefix("| `prefs \(verb.name) ") || $0.hasPrefix("| `prefs \(verb.name)`") }.joined(separator: " ")
            #expect(!row.isEmpty, "README has no row for \(verb.name)")
            for option in verb.options {
                let spellings = ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? []) + (option.singleDash ? ["-" + option.name] : [])
                #expect(spellings.contains { ConsistencyTests.containsWord(row, $0) }, "README's row of \(verb.name) lacks \(option.spelling)")
            }
        }
    }

    /// The short spellings (`-0`) are documented where the long ones are.
    @Test(arguments: documents)
    func everyShortSpellingIsDocumented(document: String) throws {
        let text = try Paths.text(document)
        for option in CommandTable.verbs.flatMap(\.options) {
            guard let short = option.short else { continue }
            let spelling = document.hasSuffix(".1") ? "\\-\(short)" : (document.hasSuffix(".fish") ? "-s \(short)" : "-\(short)")
            #expect(ConsistencyTests.containsWord(text, spelling), "\(document) lacks -\(short) for --\(option.name)")
        }
    }

    /// The man page's SYNOPSIS names, for each verb, exactly the options the command table gives it
    /// (long names, or the short spelling the table declares), and the global options for `prefs`.
    @Test func synopsisListsEachVerbsOptionsExactly() throws {
        let man = try Paths.text("man/prefs.1")
        let synopsis = man.components(separatedBy: ".SH SYNOPSIS\n")[1].components(separatedBy: "\n.SH ")[0]
        var listed: [String: Set<String>] = [:]
        for entry in synopsis.components(separatedBy: "\n.br\n") {
            let lines = entry.split(separator: "\n")
            guard let head = lines.first, head.hasPrefix(".B prefs") else { Issue.record("synopsis entry \(entry)"); continue }
            let verb = String(head.dropFirst(".B prefs".count)).trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\\-", with: "-")
            let text = lines.dropFirst().joined(separator: " ").replacingOccurrences(of: "\\-", with: "-")
            var names = Set<String>()
            // A bare `--` is no option: it ends them (`exec DOMAIN -- COMMAND`).
            for token in ConsistencyTests.tokens(text) where token.hasPrefix("-") && token != "--" {
                if token.hasPrefix("--") { names.insert(String(token.dropFirst(2))) } else if token.count == 2 || verb.isEmpty { names.insert(token) }
            }
            listed[verb, default: []].formUnion(names)
        }
        for verb in CommandTable.verbs {
            let expected = Set(verb.options.map { $0.short.map { "-\($0)" } ?? $0.name })
            #expect(listed[verb.name] == expected, "synopsis of \(verb.name)")
        }
        #expect(listed[""] == Set(CommandTable.global.map { $0.singleDash ? $0.spelling : $0.name } + ["-h"]))
        #expect(Set(listed.keys) == Set(CommandTable.verbs.map(\.name) + [""]))
    }

    /// Every type flag `write` takes (`TypeFlag.all`) is in the man page and `--help write`
    /// (CompletionScriptTests checks the completions offer exactly these).
    @Test func typeFlagsAreDocumented() throws {
        let names = Set(TypeFlag.all.map(\.name))
        let man = try Paths.text("man/prefs.1").replacingOccurrences(of: "\\-", with: "-")
        let help = HelpText.verb(try #require(CommandTable.verb(named: "write")))
        for flag in names {
            #expect(ConsistencyTests.containsWord(man, flag), "man page lacks \(flag)")
            #expect(ConsistencyTests.containsWord(help, flag), "write --help lacks \(flag)")
        }
    }

    /// The words of a line of roff or shell: split at spaces and at `[ ] | ( ) " '` and `=`.
    static func tokens(_ text: String) -> [String] {
        text.split { " \t[]|()\"'=".contains($0) }.map(String.init)
    }

    @Test func readmeExitStatusTableMatches() throws {
        let readme = try Paths.text("README.md")
        let table = readme.split(separator: "\n").compactMap { row -> (Int32, String)? in
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, let code = Int32(cells[0]) else { return nil }
            return (code, cells[1])
        }
        #expect(table.map(\.0) == PrefsCore.ExitStatus.allCases.map(\.rawValue))
        #expect(table.map(\.1) == PrefsCore.ExitStatus.allCases.map(\.meaning))
    }

    /// The man page renders and is clean under `mandoc -Tlint` (no warnings, not even style ones).
    @Test func manPageIsCleanUnderMandoc() async throws {
        let mandoc = try requireProgram("mandoc", install: "apt-get install mandoc")
        let page = Fixtures.packageRoot + "/man/prefs.1"
        let lint = try await runProcess(mandoc, ["-Tlint", "-W", "style", page])
        #expect(lint.status == 0 && lint.outputText.isEmpty && lint.error.isEmpty, "\(lint.outputText)\(lint.error)")
        let rendered = try await runProcess(mandoc, ["-Tutf8", page])
        #expect(rendered.status == 0)
        // Section headings are the lines that start at the margin (bold is drawn with backspaces).
        let text = rendered.outputText.replacingOccurrences(of: "(.)\u{8}", with: "", options: .regularExpression)
        let headings = text.split(separator: "\n").dropFirst().dropLast().filter { $0.first.map { !$0.isWhitespace } ?? false }.map(String.init)
        #expect(headings == ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXTERNAL STORAGE", "ETCD STORE", "SCHEMAS", "VALUE TYPES", "KEY PATHS",
                             "FORMATS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SHELL COMPLETION", "COMPATIBILITY", "SEE ALSO"])
    }

    /// The environment variables prefs reads — exactly those — are listed in the man page's
    /// ENVIRONMENT section and the README's Environment table, and every `PREFS_` or `XDG_` name
    /// the sources look up is one of them.
    @Test func environmentVariablesAreDocumented() throws {
        let man = try Paths.text("man/prefs.1")
        let section = man.components(separatedBy: ".SH ENVIRONMENT")[1].components(separatedBy: ".SH ")[0]
        let lines = section.split(separator: "\n")
        let manNames = zip(lines, lines.dropFirst()).filter { $0.0 == ".TP" }.map { String($0.1.dropFirst(3)) }
        #expect(manNames == Environment.names)
        let readme = try Paths.text("README.md")
        let table = readme.components(separatedBy: "## Environment")[1].components(separatedBy: "\n## ")[0]
        let readmeNames = table.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { String($0.dropFirst(3).prefix { $0 != "`" }) }
        #expect(readmeNames == Environment.names)
        let sources = try FileManager.default.subpathsOfDirectory(atPath: Fixtures.packageRoot + "/Sources").filter { $0.hasSuffix(".swift") }
        for file in sources {
            let text = try String(contentsOfFile: Fixtures.packageRoot + "/Sources/" + file, encoding: .utf8)
            for match in text.matches(of: /"((?:PREFS|XDG)_[A-Z_]+)"/) {
                // The variables `watch --exec` gives its COMMAND are set, not read.
                guard !ChangeCommand.variableNames.contains(String(match.1)) else { continue }
                #expect(Environment.names.contains(String(match.1)), "\(file) reads \(match.1), which is not documented")
            }
        }
    }

    /// The man page's opening comment lists the verbs as typed (for grep); it must stay in step.
    @Test func manPageCommentListsEveryVerb() throws {
        let man = try Paths.text("man/prefs.1")
        let comment = man.split(separator: "\n").prefix { $0.hasPrefix(".\\\"") }.joined(separator: " ")
        let listed = comment.components(separatedBy: "sign): ").last?.split(separator: " ").filter { $0 != ".\\\"" }.map(String.init)
        #expect(listed == CommandTable.verbs.map(\.name))
    }

    @Test func manPageExitStatusMatches() throws {
        let man = try Paths.text("man/prefs.1")
        for status in PrefsCore.ExitStatus.allCases {
            #expect(man.contains(".B \(status.rawValue)\n\(status.meaning.replacingOccurrences(of: "-", with: "\\-"))\n"), "man page: \(status)")
        }
        #expect(man.contains("\"prefs \(CommandTable.version)\""))
    }
}
