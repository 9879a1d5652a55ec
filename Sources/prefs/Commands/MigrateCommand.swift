import PrefsCore

/// `prefs migrate DOMAIN SOURCE [options]` — brings settings into a suite from a plist or JSON file,
/// an INI or `.env` file, or another suite (or the suite itself, for fix-ups), by a plan: which keys,
/// which become booleans, renames, type inference, JSON strings decoded, conflicts kept or
/// overwritten. Prints one line per key and a summary; a failed key fails the whole migration
/// (nothing changes) unless `--skip-errors`. The source is only read.
enum MigrateCommand {
    enum SourceKind: String, CaseIterable {
        case file, ini, env, suite
    }

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let argument = invocation.operands[1]
        let plan = try self.plan(invocation)
        let kind = invocation.value("from").flatMap(SourceKind.init(rawValue:)) ?? sourceKind(of: argument)
        let file = try context.store.target(for: domain)
        var source = PrefDictionary()
        var problems: [(path: KeyPath, reason: String)] = []
        var inPlace = false
        switch kind {
        case .suite:
            let sourceDomain = try Domain(argument: argument)
            guard sourceDomain != .standardInput else { throw PrefsError.usage("migrate: --from suite needs a suite name, not -") }
            inPlace = context.store.same(try context.store.location(of: sourceDomain), file.location)
            if !inPlace {
                guard let suite = try context.store.loadMaterialized(sourceDomain) else { throw PrefsError.suiteNotFound(domain: sourceDomain.displayName) }
                source = suite.contents
            }
        case .file:
            source = try context.readDictionary(argument)
        case .ini, .env:
            let name = argument == "-" ? "standard input" : argument
            do {
                let bytes = try context.readInput(argument)
                let text = try kind == .ini ? INISource.read(bytes) : DotEnvSource.read(bytes)
                (source, problems) = (text.contents, text.problems)
            } catch let error as PrefsError {
                throw error.attributed(to: name)
            }
        }

        var report = MigrationReport()
        let change: (inout PrefDictionary) throws -> Void = { contents in
            report = Migration.run(plan, source: inPlace ? contents : source, problems: problems, target: &contents, inPlace: inPlace)
            if report.failed && !plan.skipErrors { throw MigrationFailed() }
        }
        let changed: Bool
        do {
            changed = try Changing.run(invocation, context, file, keys: inPlace ? nil : destinations(plan, source), reporting: false, change)
        } catch is MigrationFailed {
            printReport(report, invocation, context, failed: true)
            let failures = report.entries.filter { $0.outcome.name == "error" }.count
            throw PrefsError.invalidValue("\(domain.displayName): \(failures) key\(failures == 1 ? "" : "s") could not be migrated; nothing changed (--skip-errors leaves them out)")
        }
        printReport(report, invocation, context)
        return invocation.changeStatus(changed)
    }

    struct MigrationFailed: Error {}

    /// A source's kind by its name: `-g` is the global suite; `*.ini` an INI file; `.env`, `.env.*`
    /// or `*.env` a dotenv file; a path (contains `/`, or ends in `.plist` or `.json`) or `-` a plist or JSON
    /// document; anything else a suite.
    static func sourceKind(of argument: String) -> SourceKind {
        let base = argument.split(separator: "/").last.map(String.init) ?? argument
        if base.hasSuffix(".ini") { return .ini }
        if base == ".env" || base.hasPrefix(".env.") || base.hasSuffix(".env") { return .env }
        if argument == "-" { return .file }
        if Domain.globalSpellings.contains(argument) { return .suite }
        if case .file? = try? Domain(argument: argument) { return .file }
        return .suite
    }

    static func plan(_ invocation: Invocation) throws -> MigrationPlan {
        var plan = MigrationPlan()
        if invocation.has("keys") { plan.keys = try KeyArguments.list(invocation, "keys") }
        plan.boolKeys = try KeyArguments.list(invocation, "bool-keys")
        plan.renames = try (invocation.options["rename"] ?? []).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw PrefsError.usage("migrate: --rename takes OLD=NEW, not '\(pair)'") }
            return (try KeyPath(argument: String(parts[0])), try KeyPath(argument: String(parts[1])))
        }
        var renamed = Set<KeyPath>()
        for rename in plan.renames where !renamed.insert(rename.from).inserted {
            throw PrefsError.usage("migrate: --rename names \(rename.from.display) twice")
        }
        plan.inferTypes = invocation.has("infer-types")
        plan.decodeJSONStrings = invocation.has("decode-json-strings")
        plan.overwrite = invocation.has("overwrite")
        plan.skipErrors = invocation.has("skip-errors")
        return plan
    }

    /// The top-level keys of the target the migration may change.
    static func destinations(_ plan: MigrationPlan, _ source: PrefDictionary) -> KeySet {
        KeySet(plan.selectedKeys(in: source).map { (plan.rename(of: $0) ?? $0).first })
    }

    static func printReport(_ report: MigrationReport, _ invocation: Invocation, _ context: CommandContext, failed: Bool = false) {
        for entry in report.entries {
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
        let prefix = invocation.has("dry-run") ? "dry run, nothing changed: " : (failed ? "failed, nothing changed: " : "")
        context.print(prefix + report.summary)
    }
}
