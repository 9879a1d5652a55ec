import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// The command table is the source of truth; the man page and the completions must name every verb
/// and option it has, the man page's exit-status and environment lists must match ExitStatus and
/// Environment exactly, and the README, an introduction, must name every verb and point only to man
/// page sections that exist.
@Suite(.runsProcesses) struct ConsistencyTests {
    static let documents = ["man/prefs.1", "completions/prefs.bash", "completions/prefs.zsh", "completions/prefs.fish"]

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

    /// The README's Reference names every verb, in the command table's order, as the man page's
    /// COMMANDS has them (each verb's options are checked there, exactly, by the synopsis test).
    @Test func readmeReferenceNamesEveryVerb() throws {
        let readme = try Paths.text("README.md")
        let reference = readme.components(separatedBy: "\n## Reference\n")[1].components(separatedBy: "\n## ")[0]
        let named = reference.matches(of: /`([a-z-]+)`/).map { String($0.1) }.filter { name in CommandTable.verbs.contains { $0.name == name } }
        #expect(named == CommandTable.verbs.map(\.name))
    }

    /// Each man page section the README sends the reader to (`EXIT STATUS in \`man prefs\``, or a
    /// heading named in its Reference) is a heading of the man page.
    @Test func readmePointsOnlyToManPageSectionsThatExist() throws {
        let readme = try Paths.text("README.md")
        let man = try Paths.text("man/prefs.1")
        let headings = Set(man.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix(".SH ") || line.hasPrefix(".SS ") else { return nil }
            return String(line.dropFirst(4)).replacingOccurrences(of: "\"", with: "")
        })
        // A citation may be wrapped across lines; a heading named in the Reference is in capitals,
        // outside code (`prefs help VERB`).
        let text = readme.replacingOccurrences(of: "\n", with: " ")
        let cited = text.matches(of: /([A-Z][A-Za-z]+(?: [A-Za-z]+)*) in `man prefs`/).map { String($0.1) }
        let reference = readme.components(separatedBy: "\n## Reference\n")[1].components(separatedBy: "\n## ")[0]
            .replacingOccurrences(of: "`[^`]*`", with: "", options: .regularExpression).replacingOccurrences(of: "\n", with: " ")
        let named = reference.matches(of: /\b([A-Z]{3,}(?: [A-Z]{3,})*)\b/).map { String($0.1) }
        #expect(cited.count >= 8 && named.count >= 8, "\(cited) \(named)")
        for section in cited + named {
            #expect(headings.contains(section), "README cites \(section), which is not a section of the man page")
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

    /// The man page's EXIT STATUS list is exactly ExitStatus, in order: each status and its meaning,
    /// and no other (the README sends readers there).
    @Test func manPageExitStatusListIsExactlyExitStatus() throws {
        let man = try Paths.text("man/prefs.1")
        let section = man.components(separatedBy: ".SH EXIT STATUS\n")[1].components(separatedBy: "\n.SH ")[0]
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var listed: [(Int32, String)] = []
        for index in lines.indices.dropLast(2) where lines[index] == ".TP" {
            guard lines[index + 1].hasPrefix(".B "), let code = Int32(lines[index + 1].dropFirst(3)) else { continue }
            listed.append((code, lines[index + 2].replacingOccurrences(of: "\\-", with: "-")))
        }
        #expect(listed.map(\.0) == PrefsCore.ExitStatus.allCases.map(\.rawValue))
        #expect(listed.map(\.1) == PrefsCore.ExitStatus.allCases.map(\.meaning))
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
    /// ENVIRONMENT section, and every `PREFS_` or `XDG_` name the sources look up is one of them.
    @Test func environmentVariablesAreDocumented() throws {
        let man = try Paths.text("man/prefs.1")
        let section = man.components(separatedBy: ".SH ENVIRONMENT")[1].components(separatedBy: ".SH ")[0]
        let lines = section.split(separator: "\n")
        let manNames = zip(lines, lines.dropFirst()).filter { $0.0 == ".TP" }.map { String($0.1.dropFirst(3)) }
        #expect(manNames == Environment.names)
        let sources = try FileManager.default.subpathsOfDirectory(atPath: Fixtures.packageRoot + "/Sources").filter { $0.hasSuffix(".swift") }
        for file in sources {
            let text = try String(contentsOfFile: Fixtures.packageRoot + "/Sources/" + file, encoding: .utf8)
            for match in text.matches(of: /"((?:PREFS|XDG)_[A-Z_]+)"/) {
                // The variables `watch --exec` gives its COMMAND are set, not read.
                guard !ExecRunner.variableNames.contains(String(match.1)) else { continue }
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
