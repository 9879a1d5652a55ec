import PrefsCore

/// `prefs read-type DOMAIN KEY` — the type name of what `read` would print: string, data, integer,
/// float, boolean, date, array, dictionary (or uid); with `--origin`, after the layer that gave it.
enum ReadTypeCommand: Command {
    struct Values: CommandValues, LayerOptions {
        var origin = false, stored = false
        var defaults: [String] = []
    }

    static let verb = Verb(name: "read-type", operands: "DOMAIN KEY", summary: "print the type of a value (string, integer, float, boolean, date...)",
                           operandCount: 2...2)

    static let operandKinds: [WordKind] = [.domain, .key]

    static let options: [Option<Values>] = [.origin, .stored, .defaults]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let path = try PrefKeyPath(argument: operands[1], in: domain.displayName)
        let (type, origin) = try context.store.typeName(at: path, in: domain, scope: values.scope)
        context.print((values.origin ? "\(origin)\t" : "") + type)
        return .success
    }
}
