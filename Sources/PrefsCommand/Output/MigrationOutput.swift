import PrefsCore

/// `migrate`'s report: one line per key, then the summary.
enum MigrationOutput {
    static func print(_ result: MigrationResult, dryRun: Bool, _ context: CommandContext) {
        for entry in result.report.entries {
            var line = entry.outcome.name + "\t" + entry.key.display
            if let target = entry.target { line += " -> " + target.display }
            switch entry.outcome {
            case .migrated(let value): line += " = " + ValueOutput.line(value)
            case .skippedConflict(let value, let stored): line += " = " + ValueOutput.line(value) + " (stored: " + ValueOutput.line(stored) + ")"
            case .error(let reason): line += ": " + reason
            case .unchanged, .missing: break
            }
            context.print(line)
        }
        let prefix = dryRun ? "dry run, nothing changed: " : (result.outcome == nil ? "failed, nothing changed: " : "")
        context.print(prefix + result.report.summary)
    }
}
