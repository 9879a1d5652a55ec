import PrefsCore

/// `--help` text, generated from the command table.
enum HelpText {
    static func overview() -> String {
        var text = """
            prefs \(CommandTable.version) — read, write and convert preferences (property lists and JSON)

            Usage: prefs VERB [OPTIONS] [ARGUMENTS]

            Verbs (prefs help VERB shows each one's arguments):

            """
        let width = CommandTable.verbs.map(\.name.count).max() ?? 0
        for verb in CommandTable.verbs {
            text += "  " + verb.name + String(repeating: " ", count: width - verb.name.count + 2) + verb.summary + "\n"
        }
        text += "\nOptions:\n"
        text += optionLines(CommandTable.global)
        text += "\nA DOMAIN is a suite name (the file $XDG_CONFIG_HOME/NAME.plist), -g for the global suite,\n"
        text += "a path (contains '/' or ends in .plist or .json), or - for standard input.\n"
        text += "\nExit status:\n"
        for status in ExitStatus.allCases {
            text += "  " + String(status.rawValue).leftPadded(to: 3) + "  " + status.meaning + "\n"
        }
        text += "\nSee prefs help VERB, and man prefs.\n"
        return text
    }

    static func verb(_ verb: VerbSpec) -> String {
        var text = "Usage: \(verb.usage)\(verb.options.isEmpty ? "" : " [OPTIONS]")\n\n\(verb.summary)\n"
        if !verb.details.isEmpty { text += "\n" + verb.details + "\n" }
        text += "\nOptions:\n" + optionLines(verb.options + CommandTable.common)
        return text
    }

    static func optionLines(_ options: [OptionSpec]) -> String {
        let heads = options.map { option in
            (option.short.map { "-\($0), " } ?? "") + "--" + option.name + (option.value.map { " " + $0 } ?? "")
        }
        let width = heads.map(\.count).max() ?? 0
        return zip(heads, options).map { head, option in
            "  " + head + String(repeating: " ", count: width - head.count + 2) + option.summary + "\n"
        }.joined()
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
