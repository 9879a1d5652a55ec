import PrefsCore

/// `load`'s report: one line per suite (`restored`, `unchanged` or `failed`, a tab, the suite and
/// what changed), the error of each failed suite on standard error, then a summary.
enum LoadOutput {
    static func print(_ report: LoadReport, dryRun: Bool, _ context: CommandContext) {
        var restored = 0, unchanged = 0, failed = 0
        for entry in report.entries {
            switch entry.outcome {
            case .restored(let added, let replaced, let removed):
                restored += 1
                context.print("restored\t\(entry.suite.displayName): \(added) added, \(replaced) replaced, \(removed) removed")
            case .unchanged:
                unchanged += 1
                context.print("unchanged\t\(entry.suite.displayName)")
            case .failed(let error):
                failed += 1
                context.print("failed\t\(entry.suite.displayName)")
                context.printError(error.message)
            }
        }
        let summary = "\(restored) restored, \(unchanged) unchanged, \(failed) failed"
        context.print((dryRun ? "dry run, nothing changed: " : failed > 0 ? "not all restored: " : "") + summary)
    }
}
