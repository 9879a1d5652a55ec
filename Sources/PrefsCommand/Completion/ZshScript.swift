/// `prefs completion zsh`: the functions that offer names (`ZshScript.functions`), the command table
/// written as zsh data, and the function that completes from it.
enum ZshScript {
    static func text(_ table: CompletionTable) -> String {
        [header, functions, data(table), verbTable(table), completer].joined(separator: "\n")
    }

    static let header = #"""
        #compdef prefs
        # zsh completion for prefs: verbs, options, type flags, suite names, file names and the keys of the
        # named suite. Install this file as _prefs in a directory of $fpath. Written by `prefs completion
        # zsh` from prefs's command table: generate it again rather than edit it.
        #
        # Suite names and keys are data: they may hold spaces, quotes, $(...), colons or newlines. They come
        # from prefs NUL-separated (--null) and go to compadd as they are, which quotes them for the command
        # line; the operands typed before are unquoted before prefs sees them. A name prefs would take for
        # an option (-0, or one starting with --) is offered after a -- unless one was typed.

        """#

    /// `_prefs_table`: the verbs, the options before the verb and the TYPE flags, into the caller's
    /// variables.
    static func data(_ table: CompletionTable) -> String {
        let scope = table.scopePatterns
        func list(_ name: String, _ words: [String]) -> String {
            "    \(name)=(\n" + ShellWords.wrapped(words.map(ShellWords.quoted), indent: "        ") + "\n    )"
        }
        func described(_ name: String, _ items: [String]) -> String {
            "    \(name)=(\n" + items.map { "        " + ShellWords.quoted($0) + "\n" }.joined() + "    )"
        }
        func pattern(_ name: String, _ words: [String]) -> String { "    \(name)=\(ShellWords.quoted(words.joined(separator: "|")))" }
        return """
            # The command table: the verbs and the options before the verb (NAME:DESCRIPTION), those that
            # choose the suites (one word, or taking the next as their value), and the TYPE flags (those
            # that take one VALUE, those whose VALUE may be a schema's choice, a boolean, a FILE or @FILE).
            _prefs_table() {
            \(described("verbs", table.verbs.map { $0.name + ":" + $0.summary }))
            \(described("global", table.global.flatMap { option in option.spellings.map { $0 + ":" + option.summary } }))
            \(pattern("scope_words", scope.words))
            \(pattern("scope_pairs", scope.pairs))
            \(list("types", TypeFlagGroups.all))
                scalars=(\(TypeFlagGroups.scalars.joined(separator: " ")))
            \(pattern("scalar_types", TypeFlagGroups.scalars))
            \(pattern("choice_types", TypeFlagGroups.choiceTyped))
            \(pattern("bool_types", TypeFlagGroups.booleans))
            \(pattern("file_types", TypeFlagGroups.files))
            \(pattern("at_file_types", TypeFlagGroups.fileReferences))
                bools=(\(TypeFlagGroups.booleanWords.joined(separator: " ")))
            }

            """
    }

    /// `_prefs_verb VERB`: the verb's options and operands.
    static func verbTable(_ table: CompletionTable) -> String {
        var text = """
            # _prefs_verb VERB sets verb_options (for each of the verb's options: its spellings, what its value
            # is (flag for none, or a kind as below, followed by ... when the option may be repeated) and
            # its description), kinds (what each operand is: suite, domain (a suite or a file), key,
            # stored-key, key-or-file, value (a TYPE flag or VALUE after a KEY), file, verb, choice WORD...,
            # text (nothing offered); options also key-list N (keys stored in operand N, comma-separated) and
            # typed ([TYPE] VALUE); the last operand, followed by ..., goes on) and command (the operands end
            # with -- COMMAND [ARG...]). It fails for a word that is no verb.
            _prefs_verb() {
                case $1 in

            """
        for verb in table.verbs {
            text += "        (\(verb.name))\n            verb_options=(\n"
            for option in verb.options {
                let fields = [option.spellings.joined(separator: " "), option.scriptKind, option.summary]
                text += "                " + fields.map(ShellWords.quoted).joined(separator: " ") + "\n"
            }
            text += "            )\n            kinds=(\(verb.scriptOperands.map(ShellWords.quoted).joined(separator: " ")))\n"
            text += (verb.runsCommand ? "            command=1\n" : "") + "            ;;\n"
        }
        text += """
                    (*) return 1 ;;
                esac
            }

            """
        return text
    }
}
