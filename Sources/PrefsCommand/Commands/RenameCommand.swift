import PrefsCore

/// `prefs rename DOMAIN OLD NEW` — moves a value to a new key (replacing what NEW held), in one atomic
/// change. Exits 1 when OLD is not there; `--dry-run` prints what would change.
enum RenameCommand: Command {
    struct Values: CommandValues, ChangeOptions, SchemaOptions, FenceOptions {
        var fence: String?
        var exitCode = false, dryRun = false, noSchema = false
        var schema: String?
    }

    static let verb = Verb(name: "rename", operands: "DOMAIN OLD NEW", summary: "move a value to a new key", operandCount: 3...3)

    static let operandKinds: [WordKind] = [.domain, .key, .text]

    static let options: [Option<Values>] = [.exitCode, .dryRun, .fence, .schema, .noSchema]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let old = try PrefKeyPath(argument: operands[1], in: domain.displayName, allowingEmpty: true)
        let new = try PrefKeyPath(argument: operands[2], in: domain.displayName)
        let outcome = try values.context(context, verb: "rename").store.rename(old, to: new, in: domain, dryRun: values.dryRun)
        context.print(outcome)
        return values.status(outcome)
    }
}
