import PrefsCore

/// `prefs check [DOMAIN…]` — verifies every external value's reference against its blob (present,
/// the recorded size and SHA-256, hashed in full) and lists blobs no reference names. One line per
/// problem; a suite without problems prints `SUITE: N external values OK`. Exit 65 if any problem.
enum CheckCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        var problems = 0
        for domain in try ExternalDomains.named(invocation, context, verb: "check") {
            let report = try context.store.checkExternal(domain)
            for line in report.problems { context.print(line) }
            problems += report.problems.count
            if report.problems.isEmpty && (report.references > 0 || !invocation.operands.isEmpty) {
                context.print("\(domain.displayName): \(report.references) external value\(report.references == 1 ? "" : "s") OK")
            }
        }
        return problems == 0 ? .success : .dataError
    }
}

/// `prefs gc [DOMAIN…] [--dry-run] [--grace SECONDS]` — removes the blobs no reference names that are
/// older than the grace period (default an hour), one line per blob.
enum GCCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        var grace = 3600.0
        if let text = invocation.value("grace") {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else { throw PrefsError.usage("gc: --grace takes a number of seconds, not \(text)") }
            grace = seconds
        }
        let dryRun = invocation.has("dry-run")
        var removed = false, problems = false
        for domain in try ExternalDomains.named(invocation, context, verb: "gc") {
            let report = try context.store.collectGarbage(domain, grace: grace, dryRun: dryRun)
            for blob in report.removed {
                context.print("\(dryRun ? "would remove" : "removed") \(domain.displayName): \(blob.name) (\(blob.size) bytes)")
                removed = true
            }
            for line in report.problems { context.printError(line) }
            problems = problems || !report.problems.isEmpty
        }
        return problems ? .dataError : invocation.changeStatus(removed)
    }
}

enum ExternalDomains {
    /// The suites named, or every suite that has or may have external values.
    static func named(_ invocation: Invocation, _ context: CommandContext, verb: String) throws -> [Domain] {
        guard !invocation.operands.isEmpty else { return try context.store.externalSuites(among: context.suiteNames()) }
        return try invocation.operands.map { operand in
            let domain = try Domain(argument: operand)
            guard domain.registrationName != nil else { throw PrefsError.usage("\(verb): \(domain.displayName): a file keeps its values inline; name a suite") }
            return domain
        }
    }
}
