import PrefsCore

/// `prefs gc [DOMAIN…] [--dry-run] [--grace SECONDS]` — removes the values whose deadline passed more
/// than the grace period ago (default an hour), one line per key; the blobs no reference names that
/// are older than the grace period, one line per blob; never one a write still holds;
/// what an unfinished large change left in the etcd store, one line each; and with no DOMAIN, this
/// host's snapshots that no read confirmed for 30 days (`SnapshotOutput.prune`).
enum GCCommand: Command {
    struct Values: CommandValues, ChangeOptions {
        var grace: Double?
        var dryRun = false, exitCode = false
    }

    static let verb = Verb(name: "gc", operands: "[DOMAIN...]", summary: "remove expired values and orphan blobs", operandCount: 0...Int.max,
                           details: """
                               Removes from the named suites (or every suite) the values that expired longer ago than the
                               grace period, which no read shows, and the blobs that no reference names and that are
                               older than the grace period: what writers killed mid-write leave behind. In the etcd
                               store, also what a change too large for one transaction left when its writer stopped
                               before committing (its keys, bytes and age are printed), whatever its age.
                               """)

    static let operandKinds: [WordKind] = [.suite]

    static let options: [Option<Values>] = [
        .seconds("grace", "only values expired and blobs made longer than SECONDS ago (default 3600): a write in progress keeps its blob, a host whose clock is behind still sees its values") { $0.grace = $1 },
        .flag("dry-run", "print what would be removed and remove nothing") { $0.dryRun = $1 }, .exitCode,
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        var removed = false, problems = false
        let grace = values.grace ?? 3600
        for domain in try ExternalDomains.named(operands, context, verb: "gc") {
            do {
                for (key, deadline) in try context.store.collectExpired(domain, grace: grace, dryRun: values.dryRun) {
                    context.print("\(values.dryRun ? "would remove" : "removed") \(domain.displayName): \(key) (\(Expiry.describe(deadline)))")
                    removed = true
                }
            } catch let error as PrefsError where error.exitStatus == .cannotWrite {
                // A store that takes no write (etcd over its quota) keeps them: the blobs can still go.
                context.printWarning("\(domain.displayName): expired values kept: \(error)")
            }
            let report = try context.store.collectGarbage(domain, grace: grace, dryRun: values.dryRun)
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
        if operands.isEmpty { removed = try SnapshotOutput.prune(grace: grace, dryRun: values.dryRun, context) || removed }
        return problems ? .dataError : values.status(ChangeOutcome(changed: removed))
    }
}
