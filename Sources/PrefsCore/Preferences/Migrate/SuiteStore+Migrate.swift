/// What a migration reads from.
package enum MigrationSourceKind: String, CaseIterable, Sendable {
    case file, ini, env, suite

    /// A source's kind by its name: `*.ini` an INI file; `.env`, `.env.*` or `*.env` a dotenv file;
    /// `-`, or a path (contains `/`, or ends in `.plist` or `.json`), a plist or JSON document; `-g`
    /// and anything else a suite.
    package static func of(_ argument: String) -> MigrationSourceKind {
        let base = argument.split(separator: "/").last.map(String.init) ?? argument
        if base.hasSuffix(".ini") { return .ini }
        if base == ".env" || base.hasPrefix(".env.") || base.hasSuffix(".env") { return .env }
        if argument == "-" { return .file }
        if Domain.globalSpellings.contains(argument) { return .suite }
        if case .file? = try? Domain(argument: argument) { return .file }
        return .suite
    }
}

/// What `migrate` did: the report, and — unless it failed (then nothing changed) — the change.
package struct MigrationResult: Sendable {
    package var report: MigrationReport
    package var outcome: ChangeOutcome?
}

extension SuiteStore {
    /// `migrate DOMAIN SOURCE`: brings settings in from a plist or JSON file, an INI or `.env` file, or
    /// a suite (the suite itself: fix-ups in place), by the plan, in one atomic change (or a dry run).
    /// A key that fails fails the whole migration and nothing changes, unless `plan.skipErrors`.
    package func migrate(_ plan: MigrationPlan, from argument: String, kind: MigrationSourceKind?, into domain: Domain,
                        dryRun: Bool = false) throws -> MigrationResult {
        let kind = kind ?? MigrationSourceKind.of(argument)
        let target = try target(for: domain)
        var source = PrefDictionary()
        var problems: [(path: PrefKeyPath, reason: String)] = []
        var inPlace = false
        var quoted: [PrefKeyPath] = []
        switch kind {
        case .suite:
            let sourceDomain = try Domain(argument: argument)
            guard sourceDomain != .standardInput else { throw PrefsError.usage("migrate: --from suite needs a suite name, not -") }
            inPlace = same(try location(of: sourceDomain), target.location)
            if !inPlace {
                guard let suite = try loadMaterialized(sourceDomain) else { throw PrefsError.suiteNotFound(domain: sourceDomain.displayName) }
                source = suite.contents
            }
        case .file:
            source = try DocumentInput(fileSystem: fileSystem).dictionary(from: argument)
        case .ini, .env:
            do {
                let bytes = try DocumentInput(fileSystem: fileSystem).bytes(from: argument)
                let text = try kind == .ini ? INISource.read(bytes) : DotEnvSource.read(bytes)
                (source, problems, quoted) = (text.contents, text.problems, text.quoted)
            } catch let error as PrefsError {
                throw error.attributed(to: DocumentInput.name(of: argument))
            }
        }
        var plan = plan
        if kind == .ini { plan.booleanWords.merge(["yes": true, "no": false, "on": true, "off": false]) { $1 } }
        plan.quoted = quoted
        var report = MigrationReport()
        let keys = inPlace ? nil : KeySet(plan.selectedKeys(in: source).map { (plan.rename(of: $0) ?? $0).first })
        do {
            let outcome = try change(target, keys: keys, dryRun: dryRun) { contents in
                report = Migration.run(plan, source: inPlace ? contents : source, problems: problems, target: &contents, inPlace: inPlace)
                if report.failed && !plan.skipErrors { throw MigrationFailed() }
            }
            return MigrationResult(report: report, outcome: outcome)
        } catch is MigrationFailed {
            return MigrationResult(report: report, outcome: nil)
        }
    }

    struct MigrationFailed: Error {}
}
