import PrefsCore

/// `prefs read-type DOMAIN KEY [--origin] [--stored] [--defaults FILE]…` — the type name of what
/// `read` would print: string, data, integer, float, boolean, date, array, dictionary (or uid).
enum ReadTypeCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let (value, origin) = try SuiteReading.value(of: invocation.operands[1], in: domain, invocation, context)
        context.print((invocation.has("origin") ? "\(origin)\t" : "") + value.typeName)
        return .success
    }
}
