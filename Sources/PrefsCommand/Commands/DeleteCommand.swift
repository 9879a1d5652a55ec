import PrefsCore

/// `prefs delete DOMAIN [KEY…]` — removes keys (or key paths) in one locked write, or the whole
/// suite. Exits 1, changing nothing, when one was not there; with `--exit-code`, 3 when they were
/// removed; `--dry-run` prints what would go. `''` names the empty key another program may have
/// stored.
enum DeleteCommand: Command {
    struct Values: CommandValues, ChangeOptions, FenceOptions {
        var fence: String?
        var exitCode = false, dryRun = false
    }

    static let verb = Verb(name: "delete", operands: "DOMAIN [KEY...]", summary: "remove keys (all or nothing), or the whole suite", operandCount: 1...Int.max)

    static let operandKinds: [WordKind] = [.domain, .key]

    static let options: [Option<Values>] = [.exitCode, .dryRun, .fence]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let paths = try operands.dropFirst().map { try PrefKeyPath(argument: $0, in: domain.displayName, allowingEmpty: true) }
        let outcome = try context.store.delete(paths, in: domain, dryRun: values.dryRun)
        context.print(outcome)
        return values.status(outcome)
    }
}
