import PrefsCore

/// `prefs help [VERB]`
enum HelpCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        guard let name = invocation.operands.first else {
            context.writeOutput(Array(HelpText.overview().utf8))
            return .success
        }
        guard let verb = CommandTable.verb(named: name) else {
            throw PrefsError.usage("help: unknown verb '\(name)' (see prefs --help)")
        }
        context.writeOutput(Array(HelpText.verb(verb).utf8))
        return .success
    }
}
