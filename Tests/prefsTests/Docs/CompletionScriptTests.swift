import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `prefs completion SHELL` writes the completion scripts from the command table, and the files
/// under completions/ are exactly its output: packagers and tarball users can take them from the
/// binary or from the tree, and the shell tests (ShellCompletionTests, CompletionQuotingTests,
/// SchemaCompletionTests), which load the files, test what the binary prints. Nothing here writes a
/// file: a stale one fails until it is generated again.
@Suite struct CompletionScriptTests {
    static let regenerate = "swift build --product prefs && for shell in bash zsh fish; do .build/debug/prefs completion $shell > completions/prefs.$shell; done"

    @Test(arguments: CompletionCommand.Shell.allCases)
    func theFileIsWhatTheCommandPrints(shell: CompletionCommand.Shell) throws {
        let run = try runProcess(Paths.binary, ["completion", shell.rawValue], environment: [:])
        #expect(run.status == 0 && run.error.isEmpty, "\(run.error)")
        let file = try Fixtures.bytes(Fixtures.packageRoot + "/completions/prefs." + shell.rawValue)
        #expect(run.output == file, "completions/prefs.\(shell) is not what prefs completion \(shell) prints; generate the three again: \(CompletionScriptTests.regenerate)")
        #expect(run.output == Array(CompletionCommand.script(for: shell).utf8))
    }

    /// Each shell reads its script without a syntax error (bash -n, zsh -n, fish -n).
    @Test(arguments: CompletionCommand.Shell.allCases)
    func theScriptParses(shell: CompletionCommand.Shell) throws {
        let program = try requireProgram(shell.rawValue, install: "apt-get install \(shell)")
        let arguments = shell == .fish ? ["--no-config", "-n"] : ["-n"]
        let check = try runProcess(program, arguments, input: Array(CompletionCommand.script(for: shell).utf8), environment: [:])
        #expect(check.status == 0 && check.error.isEmpty, "\(shell): \(check.error)")
    }

    @Test(arguments: [["completion"], ["completion", "tcsh"], ["completion", "bash", "zsh"], ["completion", ""]])
    func anyOtherOperandIsAUsageError(arguments: [String]) throws {
        let run = try runProcess(Paths.binary, arguments, environment: [:])
        #expect(run.status == 64 && run.output.isEmpty)
        let usage = "prefs completion bash|zsh|fish"
        let expected = switch arguments.count {
        case 1: "prefs: usage: \(usage)\n"
        case 2: "prefs: completion: no script for '\(arguments[1])' (usage: \(usage))\n"
        default: "prefs: completion: unexpected argument 'zsh' (usage: \(usage))\n"
        }
        #expect(run.error == expected)
    }

    /// The usage line (a literal, built at every start) names every shell there is a script for.
    @Test func theUsageNamesEveryShell() throws {
        let verb = try #require(CommandTable.verb(named: "completion"))
        #expect(verb.verb.operands == CompletionCommand.Shell.allCases.map(\.rawValue).joined(separator: "|"))
        #expect(verb.operandKinds == [.choice(CompletionCommand.Shell.allCases.map(\.rawValue))])
    }

    /// Every verb says what each of its operands is: one kind per operand it may take (or, for a verb
    /// that takes any number, at least one, the last going on); a key list names an operand the verb
    /// has, one that names a suite or a file.
    @Test func everyVerbDeclaresItsOperandsKinds() throws {
        for verb in CommandTable.verbs {
            let count = verb.verb.operandCount
            let kinds = verb.operandKinds
            if count.upperBound == Int.max {
                #expect(!kinds.isEmpty && kinds.count <= max(count.lowerBound, 1) + 2, "\(verb.name): \(kinds)")
            } else {
                #expect(kinds.count == count.upperBound, "\(verb.name): \(kinds)")
            }
            for option in verb.options {
                guard case .keyList(let operand) = option.valueKind else { continue }
                #expect(operand < kinds.count && [.domain, .suite].contains(kinds[operand]), "\(verb.name) --\(option.name)")
            }
        }
    }

    /// What an option's value is follows from its placeholder: a FILE is a file, a LIST of keys a
    /// key list, a closed set its choices, [TYPE] VALUE typed; every other placeholder is free text.
    @Test func everyOptionsValueKindFitsItsPlaceholder() throws {
        for verb in CommandTable.verbs {
            for option in verb.options + CommandTable.common {
                let kind = option.valueKind
                switch option.value {
                case nil: #expect(kind == .text, "\(verb.name) --\(option.name)")
                case "FILE": #expect(kind == .file, "\(verb.name) --\(option.name)")
                case "KEY": #expect(kind == .key, "\(verb.name) --\(option.name)")
                case "LIST":
                    guard case .keyList = kind else { Issue.record("\(verb.name) --\(option.name): \(kind)"); continue }
                case "[TYPE] VALUE": #expect(kind == .typed, "\(verb.name) --\(option.name)")
                default: #expect(kind == (option.choices.isEmpty ? .text : .choice(option.choices)), "\(verb.name) --\(option.name)")
                }
            }
        }
    }

    /// The groups of TYPE flags the scripts treat alike are TYPE flags, and say what the parser does.
    @Test func typeFlagGroupsAreTypeFlags() throws {
        let scalars = Set(TypeFlagGroups.scalars)
        for name in TypeFlagGroups.booleans { #expect(TypeFlag.named(name)?.operand == "B", "\(name)") }
        for name in TypeFlagGroups.fileReferences {
            #expect(scalars.contains(name) && TypeFlag.named(name)?.summary.contains("@FILE") == true, "\(name)")
        }
        #expect(TypeFlag.all.filter { $0.summary.contains("@FILE") }.map(\.name) == TypeFlagGroups.fileReferences)
        #expect(TypeFlagGroups.files == ["-string-file"])
        #expect(Set(TypeFlagGroups.choiceTyped).isSubset(of: scalars))
    }

    /// The words the scripts hold as data are quoted for each shell so that it reads them back as
    /// they are.
    @Test func quotedWordsReadBackAsTheyAre() throws {
        let words = ["plain", "it's", "a b", "$(x)", "back\\slash", "*", "--store=*", "~", "\"q\"", ""]
        for (program, quote) in [("bash", ShellWords.quoted), ("zsh", ShellWords.quoted), ("fish", ShellWords.fishQuoted)] {
            let path = try requireProgram(program, install: "apt-get install \(program)")
            let script = words.map { "printf '%s\\0' " + quote($0) }.joined(separator: "\n")
            let run = try runProcess(path, program == "fish" ? ["--no-config", "-c", script] : ["-c", script], environment: [:])
            #expect(run.output.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) } == words,
                    "\(program)")
        }
    }

    /// What `snippet` prints, one item per line, run by the shell after it has loaded its script from
    /// completions/.
    static func ask(_ shell: CompletionCommand.Shell, _ snippet: String) throws -> [String] {
        let program = try requireProgram(shell.rawValue, install: "apt-get install \(shell)")
        let file = Fixtures.packageRoot + "/completions/prefs." + shell.rawValue
        let arguments = shell == .fish ? ["--no-config", "-c", "source \(file); \(snippet)"] : ["-c", "source \(file); \(snippet)"]
        let run = try runProcess(program, (shell == .zsh ? ["-f"] : []) + arguments, environment: [:])
        #expect(run.error.isEmpty, "\(shell): \(run.error)")
        return run.outputText.split(separator: "\n").map(String.init)
    }

    /// Each script's table has every verb of the command table, once, with its options' spellings,
    /// and no other verb.
    @Test(arguments: CompletionCommand.Shell.allCases)
    func eachScriptsTableHasEveryVerbAndItsOptions(shell: CompletionCommand.Shell) throws {
        let (verbs, options): (String, String) = switch shell {
        case .bash: (#"printf '%s\n' "${_prefs_verbs[@]}""#, #"_prefs_verb "$v" && printf '%s\n' "$v" "${_prefs_options[@]}" ':'"#)
        case .zsh: (#"_prefs_table; print -l -- ${verbs%%:*}"#, #"_prefs_verb $v && { print -l -- $v; for (( i = 1; i <= $#verb_options; i += 3 )); do print -l -- ${=verb_options[i]}; done; print : }"#)
        case .fish: (#"__prefs_verbs | string replace -r '\t.*' ''"#, #"__prefs_options $v >/dev/null; and printf '%s\n' $v (__prefs_options $v) :"#)
        }
        let table = CommandTable.verbs.map(\.name)
        #expect(try CompletionScriptTests.ask(shell, verbs) == table)
        let loop = shell == .fish ? "for v in \(table.joined(separator: " ")) nosuchverb; \(options); end"
            : "for v in \(table.joined(separator: " ")) nosuchverb; do \(options); done"
        let lines = try CompletionScriptTests.ask(shell, loop)
        let blocks = lines.split(separator: ":").map(Array.init)
        #expect(blocks.map { $0.first ?? "" } == table, "\(shell): \(blocks.map { $0.first ?? "" })")
        for (verb, block) in zip(CommandTable.verbs, blocks) {
            let spellings = Set(block.dropFirst().filter { $0.hasPrefix("-") })
            let expected = Set((verb.options + CommandTable.common).flatMap { [$0.spelling] + ($0.short.map { ["-\($0)"] } ?? []) })
            #expect(spellings == expected, "\(shell) \(verb.name)")
        }
    }

    /// Each script offers exactly the TYPE flags of `TypeFlag.all` (and, after read --default, the
    /// scalar ones).
    @Test(arguments: CompletionCommand.Shell.allCases)
    func eachScriptHasTheTypeFlags(shell: CompletionCommand.Shell) throws {
        let (all, scalars): (String, String) = switch shell {
        case .bash: (#"printf '%s\n' "${_prefs_types[@]}""#, #"printf '%s\n' "${_prefs_scalars[@]}""#)
        case .zsh: ("_prefs_table; print -l -- $types", "_prefs_table; print -l -- $scalars")
        case .fish: (#"printf '%s\n' $__prefs_types"#, #"printf '%s\n' $__prefs_scalars"#)
        }
        #expect(try CompletionScriptTests.ask(shell, all) == TypeFlag.all.map(\.name))
        #expect(try CompletionScriptTests.ask(shell, scalars) == TypeFlag.all.filter { TypeFlag.isScalar($0.name) }.map(\.name))
    }
}
