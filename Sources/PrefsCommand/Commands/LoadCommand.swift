import PrefsCore

/// `prefs load FILE|- [--dry-run] [--exit-code] [--no-schema]` — restores what `dump` wrote: the whole document
/// read and checked first (a bad one changes nothing), then each suite made exactly its dumped
/// contents in one atomic change of its own. One report line per suite and a summary; a suite that
/// fails is reported and the others are restored (exit with its status). Each suite's values are
/// checked against its schema, as every change is, unless `--no-schema`.
enum LoadCommand: Command {
    struct Values: CommandValues, ChangeOptions, SchemaOptions, FenceOptions {
        var fence: String?
        var dryRun = false, exitCode = false, noSchema = false
        /// Not an option of load: a dump holds many suites, each checked against its own schema.
        var schema: String?
    }

    static let verb = Verb(name: "load", operands: "FILE|-", summary: "restore what dump wrote, each suite all or nothing, with a report",
                           operandCount: 1...1, details: HelpText.loadDetails)

    static let operandKinds: [WordKind] = [.file]

    static let options: [Option<Values>] = [
        .flag("dry-run", "print the report of what would be restored and change nothing") { $0.dryRun = $1 }, .exitCode, .noSchema,
        .fence,
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let context = try values.context(context, verb: "load")
        let report = try context.store.load(from: operands[0], dryRun: values.dryRun)
        LoadOutput.print(report, dryRun: values.dryRun, context)
        if let failure = report.firstFailure { return failure.exitStatus }
        return values.status(ChangeOutcome(changed: report.changed))
    }
}
