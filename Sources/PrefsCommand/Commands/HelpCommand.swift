import PrefsCore

/// `prefs help [VERB]` — the overview, or one verb's help.
enum HelpCommand: Command {
    struct Values: CommandValues {}

    static let verb = Verb(name: "help", operands: "[VERB]", summary: "show help for prefs or for one verb", operandCount: 0...1)

    static let operandKinds: [WordKind] = [.verb]

    static let options: [Option<Values>] = []

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        guard let name = operands.first else {
            context.writeOutput(Array(HelpText.overview().utf8))
            return .success
        }
        guard let verb = CommandTable.verb(named: name) else {
            let hint = Suggestions.verbHint(for: name)
            throw PrefsError.usage("help: unknown verb '\(name)'\(hint.isEmpty ? " (see prefs --help)" : hint)")
        }
        context.writeOutput(Array(HelpText.verb(verb).utf8))
        return .success
    }
}
