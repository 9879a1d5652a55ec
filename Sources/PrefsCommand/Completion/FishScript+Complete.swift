/// The `complete` lines of `prefs completion fish`.
extension FishScript {
    /// No verb typed yet: the verbs, and the options before one.
    static func verbsAndGlobalOptions(_ table: CompletionTable) -> String {
        var text = "complete -c prefs -f\ncomplete -c prefs -n __prefs_no_verb -a '(__prefs_verbs)'\n"
        for option in table.global { text += line("__prefs_no_verb", option) }
        return text
    }

    /// The operands, and the words after a TYPE flag, by the kind `__prefs_kind` finds.
    static let operandLines = #"""
        complete -c prefs -n '__prefs_is suite domain' -a '(__prefs_suites | string split0)' -d suite
        complete -c prefs -n '__prefs_is file domain key-or-file' -F
        complete -c prefs -n '__prefs_is key key-or-file' -a '(__prefs_keys | string split0)' -d key
        complete -c prefs -n '__prefs_is stored-key' -a '(__prefs_keys --stored | string split0)' -d 'stored key'
        complete -c prefs -n '__prefs_is value' -a '(__prefs_choices | string split0)' -d choice
        complete -c prefs -n '__prefs_is value' -a '$__prefs_types' -d type
        complete -c prefs -n '__prefs_is boolean' -a 'true false yes no' -d boolean
        complete -c prefs -n '__prefs_is typed' -a '$__prefs_scalars' -d type
        complete -c prefs -n '__prefs_is at-file' -a '(__prefs_at_files | string split0)'
        complete -c prefs -n '__prefs_is verb' -a '(__prefs_verbs)'
        complete -c prefs -n '__prefs_is choice' -a '(__prefs_choice_words)'
        complete -c prefs -n '__prefs_is command' -a '(__fish_complete_subcommand --fcs-skip=(__prefs_dashdash_index))'

        """#

    /// Each verb's options; an option the same for several verbs is one line for them all.
    static func optionLines(_ table: CompletionTable) -> String {
        var groups: [(verbs: [String], option: CompletionOption)] = []
        for verb in table.verbs {
            for option in verb.options {
                if let index = groups.firstIndex(where: { $0.option == option }) { groups[index].verbs.append(verb.name) } else { groups.append(([verb.name], option)) }
            }
        }
        return groups.map { line("__prefs_verb " + $0.verbs.joined(separator: " "), $0.option) }.joined()
    }

    /// `complete` for the option, when `condition` holds.
    static func line(_ condition: String, _ option: CompletionOption) -> String {
        let spellings = option.spellings.map { spelling in
            spelling.hasPrefix("--") ? "-l " + spelling.dropFirst(2) : spelling.count == 2 ? "-s " + spelling.dropFirst() : "-o " + spelling.dropFirst()
        }
        let value: String
        switch option.kind {
        case nil: value = ""
        case .file?: value = " -r -F"
        case .choice(let words)?: value = " -x -a " + ShellWords.fishQuoted(words.joined(separator: " "))
        case .key?: value = " -x -a '(__prefs_keys | string split0)'"
        case .keyList(let operand)?: value = " -x -a '(__prefs_key_list \(operand) | string split0)'"
        case .suite?, .domain?: value = " -x -a '(__prefs_suites | string split0)'" + (option.kind == .domain ? " -F" : "")
        default: value = " -x"
        }
        return "complete -c prefs -n \(ShellWords.fishQuoted(condition)) \(spellings.joined(separator: " "))\(value) -d \(ShellWords.fishQuoted(option.summary))\n"
    }
}
