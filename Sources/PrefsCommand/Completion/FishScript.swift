/// `prefs completion fish`: the command table as fish data and functions, the functions that read it
/// (`FishScript.functions`), and a `complete` line for each verb's options and for each kind of
/// operand.
enum FishScript {
    static func text(_ table: CompletionTable) -> String {
        [header, data(table), verbTable(table), functions, verbsAndGlobalOptions(table), operandLines, optionLines(table)]
            .joined(separator: "\n")
    }

    static let header = #"""
        # fish completion for prefs: verbs, options, type flags, suite names, file names and the keys of the
        # named suite. Install it in ~/.config/fish/completions/. Written by `prefs completion fish` from
        # prefs's command table: generate it again rather than edit it.
        #
        # Suite names and keys are data: they may hold spaces, quotes, (...), $ or newlines. They come from
        # prefs NUL-separated (--null) and are split with string split0 as the last step of each command
        # substitution, so fish takes each one whole and escapes it for the command line. Two things fish
        # does not let a completion script do: a candidate's first tab starts its description, so a key
        # holding a tab is left out; and a leading ~ is inserted unescaped (fish-shell#4570), where it would
        # expand to a home directory, so a key starting with ~ is offered only once the token typed starts
        # with an escaped or quoted ~ (\~, '~ or "~). A name prefs would take for an option (-0, or one
        # starting with --) is offered only after a --.

        """#

    static func data(_ table: CompletionTable) -> String {
        let scope = table.scopePatterns
        func list(_ name: String, _ words: [String]) -> String {
            "set -g \(name) " + ShellWords.wrapped(words.map(fishWord), indent: "    ").dropFirst(4).replacingNewlines(with: " \\\n")
        }
        return """
            # The command table: the options before the verb that choose the suites (one word, or taking the
            # next as their value), and the TYPE flags (those that take one VALUE, those whose VALUE may be a
            # schema's choice, a boolean, a FILE or @FILE).
            \(list("__prefs_scope_words", scope.words))
            \(list("__prefs_scope_pairs", scope.pairs))
            \(list("__prefs_types", TypeFlagGroups.all))
            \(list("__prefs_scalars", TypeFlagGroups.scalars))
            \(list("__prefs_choice_types", TypeFlagGroups.choiceTyped))
            \(list("__prefs_bool_types", TypeFlagGroups.booleans))
            \(list("__prefs_file_types", TypeFlagGroups.files))
            \(list("__prefs_at_file_types", TypeFlagGroups.fileReferences))

            """
    }

    /// `__prefs_verbs`, `__prefs_options VERB`, `__prefs_operand_kinds VERB`, `__prefs_runs_command VERB`.
    static func verbTable(_ table: CompletionTable) -> String {
        var text = "# The verbs, each with what it does (NAME, a tab, DESCRIPTION).\nfunction __prefs_verbs\n"
        text += table.verbs.map { "    printf '%s\\t%s\\n' \(fishWord($0.name)) \(ShellWords.fishQuoted($0.summary))\n" }.joined() + "end\n\n"
        text += """
            # __prefs_options VERB: each spelling of each of the verb's options, then what its value is: flag
            # for none, or a kind as for operands (and key-list N: keys stored in operand N, comma-separated;
            # typed: [TYPE] VALUE), followed by ... when the option may be repeated. It fails for a word that
            # is no verb.
            function __prefs_options -a verb
                switch $verb

            """
        let options = CompletionTable.grouped(table.verbs) { $0.options.flatMap { option in option.spellings.map { $0 + " " + fishWord(option.scriptKind) } } }
        for group in options {
            text += "        case \(group.names.map(fishWord).joined(separator: " "))\n"
            text += ShellWords.wrapped(["printf '%s\\n'"] + group.value, indent: "            ").replacingNewlines(with: " \\\n    ") + "\n"
        }
        text += """
                    case '*'
                        return 1
                end
            end

            # __prefs_operand_kinds VERB: what each operand of the verb is: suite, domain (a suite or a file),
            # key, stored-key, key-or-file, value (a TYPE flag or VALUE after a KEY), file, verb, choice
            # WORD..., text (nothing offered); the last, followed by ..., goes on.
            function __prefs_operand_kinds -a verb
                switch $verb

            """
        for group in CompletionTable.grouped(table.verbs, by: \.scriptOperands) {
            text += "        case \(group.names.map(fishWord).joined(separator: " "))\n"
            text += "            printf '%s\\n' \(group.value.map(fishWord).joined(separator: " "))\n"
        }
        let commands = table.verbs.filter(\.runsCommand).map(\.name)
        text += """
                    case '*'
                        return 1
                end
            end

            # The operands of the verb $argv[1] end with -- COMMAND [ARG...].
            function __prefs_runs_command
                contains -- $argv[1] \(commands.map(fishWord).joined(separator: " "))
            end

            """
        return text
    }

    /// A word for fish: as it is when it holds only characters fish gives no meaning, else quoted.
    static func fishWord(_ word: String) -> String {
        !word.isEmpty && word.allSatisfy({ ShellWords.plainCharacters.contains($0) }) && !word.contains("%") ? word : ShellWords.fishQuoted(word)
    }
}

extension StringProtocol {
    func replacingNewlines(with text: String) -> String { split(separator: "\n", omittingEmptySubsequences: false).joined(separator: text) }
}
