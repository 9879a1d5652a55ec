import PrefsCore

/// `prefs read-type DOMAIN KEY [--origin] [--stored] [--defaults FILE]…` — the type name of what
/// `read` would print: string, data, integer, float, boolean, date, array, dictionary (or uid).
enum ReadTypeCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let key = invocation.operands[1]
        let (value, origin) = try SuiteReading.value(of: key, in: domain, invocation, context, materializing: false)
        let suite = try SuiteReading.layers(of: domain, invocation, context).blobPlace(for: origin)
        let type = try context.store.typeName(of: value, place: suite, key: key)
        context.print((invocation.has("origin") ? "\(origin)\t" : "") + type)
        return .success
    }
}
