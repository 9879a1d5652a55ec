import PrefsCore

/// `prefs delete DOMAIN [KEY]` — removes a key (or key path), or the whole suite. Exits 1 when it was
/// not there; with `--exit-code`, 3 when it was removed; `--dry-run` prints what would go. `''` names
/// the empty key another program may have stored.
enum DeleteCommand: Command {
    struct Values: CommandValues, ChangeOptions {
        var exitCode = false, dryRun = false
    }

    static let verb = Verb(name: "delete", operands: "DOMAIN [KEY]", summary: "remove a key, or the whole suite", operandCount: 1...2)

    static let options: [Option<Values>] = [.exitCode, .dryRun]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let path = try operands.dropFirst().first.map { try KeyPath(argument: $0, in: domain.displayName, allowingEmpty: true) }
        let outcome = try context.store.delete(path, in: domain, dryRun: values.dryRun)
        context.print(outcome)
        return values.status(outcome)
    }
}
