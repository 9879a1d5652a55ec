import PrefsCore

/// `prefs reset DOMAIN [KEY…]` — removes the stored values of the keys (every stored key when none is
/// named) so the registered defaults show again, in one atomic change; a suite's file goes when
/// nothing is left in it. Idempotent: a key that is not stored is already reset (exit 0).
enum ResetCommand: Command {
    struct Values: CommandValues, ChangeOptions, FenceOptions {
        var fence: String?
        var exitCode = false, dryRun = false
    }

    static let verb = Verb(name: "reset", operands: "DOMAIN [KEY...]", summary: "remove stored values so the registered defaults show again",
                           operandCount: 1...Int.max, details: """
                               Removes the stored values of the KEYs, or of every key when none is named, and the suite's
                               file when nothing is left in it. A key that is not stored is already reset: exit 0.
                               """)

    static let operandKinds: [WordKind] = [.suite, .storedKey]

    static let options: [Option<Values>] = [.exitCode, .dryRun, .fence]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let paths = try operands.dropFirst().map { try PrefKeyPath(argument: $0, in: domain.displayName, allowingEmpty: true) }
        let outcome = try context.store.reset(paths, in: domain, dryRun: values.dryRun)
        context.print(outcome)
        return values.status(outcome)
    }
}
