import PrefsCore

/// `prefs read-type DOMAIN KEY` — the type name: string, data, integer, float, boolean, date, array,
/// dictionary (or uid).
enum ReadTypeCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        context.print(try SuiteReading.value(of: invocation.operands[1], in: domain, context).typeName)
        return .success
    }
}
