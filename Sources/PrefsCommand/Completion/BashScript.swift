/// `prefs completion bash`: the functions that lex the line and offer names (`BashScript.functions`),
/// the command table written as bash data, and the function that completes from it.
enum BashScript {
    static func text(_ table: CompletionTable) -> String {
        [header, functions, data(table), verbTable(table), completer].joined(separator: "\n")
    }

    static let header = #"""
        # bash completion for prefs: verbs, options, type flags, suite names, file names and the keys of the
        # named suite. Source it, or install it as /usr/share/bash-completion/completions/prefs. Written by
        # `prefs completion bash` from prefs's command table: generate it again rather than edit it.
        #
        # Suite names, keys and file names are data: they may hold spaces, quotes, $(...), backquotes, glob
        # characters or newlines. They come from prefs NUL-separated (--null), are compared with the word
        # typed so far once its quoting is removed, and are quoted here for the command line. Nothing is
        # ever expanded or split (compgen -W would run what a key holds). A name prefs would take for an
        # option (-0, or one starting with --) is offered after a -- unless one was typed.

        """#

    /// The TYPE flags, the options before the verb and the verbs.
    static func data(_ table: CompletionTable) -> String {
        let scope = table.scopePatterns
        func list(_ name: String, _ words: [String]) -> String {
            let text = ShellWords.wrapped(words.map(ShellWords.quoted), indent: "    ")
            return "\(name)=(\(text.dropFirst(4)))"
        }
        func pattern(_ name: String, _ words: [String]) -> String { "\(name)=\(ShellWords.quoted(words.joined(separator: "|")))" }
        return """
            # The command table: the verbs, the options before the verb (those that choose the suites are one
            # word, or take the next as their value), and the TYPE flags (those that take one VALUE, those
            # whose VALUE may be a schema's choice, a boolean, a FILE or @FILE).
            \(list("_prefs_verbs", table.verbs.map(\.name)))
            \(list("_prefs_global", table.global.flatMap(\.spellings)))
            \(pattern("_prefs_scope_words", scope.words))
            \(pattern("_prefs_scope_pairs", scope.pairs))
            \(list("_prefs_types", TypeFlagGroups.all))
            \(list("_prefs_scalars", TypeFlagGroups.scalars))
            \(pattern("_prefs_scalar_types", TypeFlagGroups.scalars))
            \(pattern("_prefs_choice_types", TypeFlagGroups.choiceTyped))
            \(pattern("_prefs_bool_types", TypeFlagGroups.booleans))
            \(pattern("_prefs_file_types", TypeFlagGroups.files))
            \(pattern("_prefs_at_file_types", TypeFlagGroups.fileReferences))
            \(list("_prefs_bools", TypeFlagGroups.booleanWords))

            """
    }

    /// `_prefs_verb VERB`: the verb's options and operands.
    static func verbTable(_ table: CompletionTable) -> String {
        var text = """
            # _prefs_verb VERB sets _prefs_options (each spelling of each of the verb's options, then what its
            # value is: flag for none, or a kind as below, followed by ... when the option may be repeated),
            # _prefs_operands (what each operand is: suite, domain (a suite or a file), key, stored-key,
            # key-or-file, value (a TYPE flag or VALUE after a KEY), file, verb, choice WORD..., text (nothing
            # offered); options also key-list N (keys stored in operand N, comma-separated) and typed ([TYPE]
            # VALUE); the last operand, followed by ..., goes on) and _prefs_command (the operands end with
            # -- COMMAND [ARG...]). It fails for a word that is no verb.
            _prefs_verb() {
                case $1 in

            """
        for verb in table.verbs {
            let options = verb.options.flatMap { option in option.spellings.map { $0 + " " + ShellWords.quoted(option.scriptKind) } }
            text += "        \(verb.name))\n"
            text += "            _prefs_options=(\n" + ShellWords.wrapped(options, indent: "                ") + "\n            )\n"
            text += "            _prefs_operands=(\(verb.scriptOperands.map(ShellWords.quoted).joined(separator: " ")))\n"
            text += (verb.runsCommand ? "            _prefs_command=1\n" : "") + "            ;;\n"
        }
        text += """
                    *) return 1 ;;
                esac
            }

            """
        return text
    }
}
