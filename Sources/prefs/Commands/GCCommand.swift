import PrefsCore

/// `prefs gc [DOMAIN…] [--dry-run] [--grace SECONDS]` — removes the blobs no reference names that are
/// older than the grace period (default an hour), one line per blob; never one a write still holds;
/// what an unfinished large change left in the etcd store, one line each; and with no DOMAIN, this
/// host's snapshots that no read confirmed for 30 days (`SnapshotOutput.prune`).
enum GCCommand: Command {
    struct Values: CommandValues, ChangeOptions {
        var grace: Double?
        var dryRun = false, exitCode = false
    }

    static let verb = Verb(name: "gc", operands: "[DOMAIN...]", summary: "remove orphan blobs from external storage", operandCount: 0...Int.max,
                           details: """
                               Removes the blobs of the named suites (or of every suite) that no reference names and that
                               are older than the grace period: what writers killed mid-write leave behind. In the etcd
                               store, also what a change too large for one transaction left when its writer stopped
                               before committing (its keys, bytes and age are printed), whatever its age.
                               """)

    static let operandKinds: [WordKind] = [.suite]

    static let options: [Option<Values>] = [
        .seconds("grace", "only blobs older than SECONDS (default 3600), so a write in progress keeps its blob") { $0.grace = $1 },
        .flag("dry-run", "print what would be removed and remove nothing") { $0.dryRun = $1 }, .exitCode,
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        var removed = false, problems = false
        for domain in try ExternalDomains.named(operands, context, verb: "gc") {
            let report = try context.store.collectGarbage(domain, grace: values.grace ?? 3600, dryRun: values.dryRun)
            for change in report.abandoned {
                context.print("\(values.dryRun ? "would remove" : "removed") \(domain.displayName): \(change.description)")
                removed = true
            }
            for blob in report.removed {
                context.print("\(values.dryRun ? "would remove" : "removed") \(domain.displayName): \(blob.name) (\(blob.size) bytes)")
                removed = true
            }
            for line in report.problems { context.printError(line) }
            problems = problems || !report.problems.isEmpty
        }
        // With no DOMAIN, the host's old snapshots of remote stores too.
        if operands.isEmpty { removed = try SnapshotOutput.prune(grace: values.grace ?? 3600, dryRun: values.dryRun, context) || removed }
        return problems ? .dataError : values.status(ChangeOutcome(changed: removed))
    }
}
