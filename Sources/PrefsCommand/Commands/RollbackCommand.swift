import PrefsCore

/// `prefs rollback DOMAIN --to VERSION [--dry-run]` — puts the suite back as VERSION left it, as a new
/// version: one atomic compare-and-swap that exits 4, changing nothing, when the suite moved since
/// its history was read. `--dry-run` prints what would change.
enum RollbackCommand: Command {
    struct Values: CommandValues, ChangeOptions, FenceOptions {
        var fence: String?
        var exitCode = false, dryRun = false
        var to: String?
    }

    static let verb = Verb(name: "rollback", operands: "DOMAIN --to VERSION",
                           summary: "put a suite back as a version of its history left it (a new version; 4 if it moved meanwhile)",
                           operandCount: 1...1)

    static let operandKinds: [WordKind] = [.domain]

    static let options: [Option<Values>] = [
        .text("to", "VERSION", "the version to put back (the first field of `prefs history`)") { $0.to = $1 },
        .exitCode, .dryRun, .fence,
    ]

    static func validate(_ values: Values, _ operands: [String]) throws {
        guard values.to != nil else { throw PrefsError.usage("rollback: give the version with --to VERSION (usage: prefs rollback DOMAIN --to VERSION)") }
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        guard let to = values.to else { throw PrefsError.internalError("rollback ran without --to") }
        let outcome = try context.store.rollback(domain, to: try DiffCommand.version(to), dryRun: values.dryRun)
        context.print(outcome)
        return values.status(outcome)
    }
}
