import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// "Did you mean" by meaning: another tool's verb gets prefs's verb for the same thing, a spelling
/// hint never leads from a harmless word to a verb that deletes or changes data, `prefs help WORD`
/// hints too, and a word too many is named. Run through the built binary: 64, one line, nothing
/// changed.
@Suite(.runsProcesses) struct VerbHintTests {
    @Test(arguments: [
        (["get", "app", "k"], "prefs: unknown verb 'get' (did you mean read?)\n"),
        (["show", "app"], "prefs: unknown verb 'show' (did you mean read?)\n"),
        (["cat", "app"], "prefs: unknown verb 'cat' (did you mean read?)\n"),
        (["set", "app", "k", "v"], "prefs: unknown verb 'set' (did you mean write?)\n"),
        (["remove", "app", "k"], "prefs: unknown verb 'remove' (did you mean delete?)\n"),
        (["rm", "app", "k"], "prefs: unknown verb 'rm' (did you mean delete?)\n"),
        (["unset", "app", "k"], "prefs: unknown verb 'unset' (did you mean delete?)\n"),
        (["del", "app", "k"], "prefs: unknown verb 'del' (did you mean delete?)\n"),
        (["list"], "prefs: unknown verb 'list' (did you mean domains, or read DOMAIN --keys?)\n"),
        (["ls"], "prefs: unknown verb 'ls' (did you mean domains, or read DOMAIN --keys?)\n"),
        // A slip of one character still finds a verb that changes data; two do not.
        (["writ", "app", "k", "v"], "prefs: unknown verb 'writ' (did you mean write?)\n"),
        (["delet", "app", "k"], "prefs: unknown verb 'delet' (did you mean delete?)\n"),
        (["rest", "app"], "prefs: unknown verb 'rest' (did you mean reset?)\n"),
        (["eset", "app"], "prefs: unknown verb 'eset' (did you mean reset?)\n"),
        (["lod", "x"], "prefs: unknown verb 'lod' (did you mean load?)\n"),
        (["gcc"], "prefs: unknown verb 'gcc' (did you mean gc?)\n"),
        (["cg"], "prefs: unknown verb 'cg' (did you mean gc?)\n"),
        (["st", "app"], "prefs: unknown verb 'st' (see prefs --help)\n"),
        (["sett", "app"], "prefs: unknown verb 'sett' (see prefs --help)\n"),
        (["ge"], "prefs: unknown verb 'ge' (see prefs --help)\n"),
        (["lad", "x"], "prefs: unknown verb 'lad' (did you mean load?)\n"),
        (["rd", "x"], "prefs: unknown verb 'rd' (see prefs --help)\n"),
        // prefs help hints as the verb position does.
        (["help", "writ"], "prefs: help: unknown verb 'writ' (did you mean write?)\n"),
        (["help", "set"], "prefs: help: unknown verb 'set' (did you mean write?)\n"),
        (["help", "frobnicate"], "prefs: help: unknown verb 'frobnicate' (see prefs --help)\n"),
    ] as [([String], String)])
    func aVerbHintGoesByMeaning(arguments: [String], error: String) async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "kept")
        let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
        #expect(run.status == 64)
        #expect(run.outputText == "")
        #expect(run.error == error)
        #expect(try await sandbox.prefs("read", "app", "k").outputText == "kept\n")
    }

    /// No typed word (other than another tool's verb) more than one slip from a verb that changes
    /// data is led to it.
    @Test(arguments: ["sett", "gett", "reed", "rest", "gcx", "gd", "g", "lint", "lits", "dump", "mode", "loads", "read", "rese", "impot", "rgister"])
    func noHintLeadsTwoSlipsToAVerbThatChangesData(word: String) async throws {
        let changing = ["write", "delete", "rename", "register", "reset", "import", "migrate", "load", "gc"]
        let run = try await runProcess(Paths.binary, ["help", word], environment: [:])
        guard run.status == 64 else { return }
        for verb in changing where run.error.contains("mean \(verb)") || run.error.contains("or \(verb)") {
            #expect(Self.distance(word, verb) <= 1, "\(word) -> \(verb): \(run.error)")
        }
    }

    @Test(arguments: [
        (["read", "app", "k", "x"], "prefs: read: unexpected argument 'x' (usage: prefs read [DOMAIN [KEY]])\n"),
        (["read", "app", "k", "x", "y"], "prefs: read: unexpected argument 'x' (usage: prefs read [DOMAIN [KEY]])\n"),
        (["export", "app", "-", "extra"], "prefs: export: unexpected argument 'extra' (usage: prefs export DOMAIN [PATH|-])\n"),
        (["domains", "a*", "stray"], "prefs: domains: unexpected argument 'stray' (usage: prefs domains [GLOB])\n"),
        (["help", "read", "write"], "prefs: help: unexpected argument 'write' (usage: prefs help [VERB])\n"),
        (["read", "app", "k", "-json"], "prefs: read: unexpected argument '-json' (-json is not an option: did you mean --json?)\n"),
        (["import", "app"], "prefs: usage: prefs import DOMAIN PATH|-\n"),
    ] as [([String], String)])
    func aWordTooManyIsNamed(arguments: [String], error: String) async throws {
        let sandbox = try ProcessSandbox()
        let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
        #expect(run.status == 64)
        #expect(run.error == error)
    }

    /// Every other tool's verb leads to verbs of the table (the first word of each alternative), and
    /// none is itself a verb of prefs.
    @Test func synonymsNameVerbsOfTheTable() {
        let names = Set(CommandTable.verbs.map(\.name))
        for (word, meant) in Suggestions.synonyms {
            #expect(!names.contains(word), "\(word) is a verb")
            for alternative in meant.components(separatedBy: ", or ") {
                #expect(names.contains(String(alternative.prefix { $0 != " " })), "\(word) -> \(meant)")
            }
        }
    }

    /// Edit distance (with swaps), as the hint counts slips.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var table = (0...a.count).map { i in (0...b.count).map { j in i == 0 ? j : (j == 0 ? i : 0) } }
        for i in a.indices.map({ $0 + 1 }) {
            for j in b.indices.map({ $0 + 1 }) {
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[a.count][b.count]
    }
}
