import PrefsCore

/// `prefs migrate DOMAIN SOURCE [options]` — brings settings into a suite from a plist or JSON file,
/// an INI or `.env` file, or another suite (or the suite itself, for fix-ups), by a plan: which keys,
/// which become booleans, renames, type inference, JSON strings decoded, conflicts kept or
/// overwritten. Prints one line per key and a summary; a failed key fails the whole migration
/// (nothing changes) unless `--skip-errors`. The source is only read.
enum MigrateCommand: Command {
    struct Values: CommandValues, ChangeOptions, SchemaOptions, FenceOptions {
        var fence: String?
        var schema: String?, noSchema = false
        var from: MigrationSourceKind?
        var keys: [String] = [], boolKeys: [String] = [], renames: [String] = []
        var inferTypes = false, decodeJSONStrings = false, overwrite = false, skipErrors = false, dryRun = false, exitCode = false
    }

    static let verb = Verb(name: "migrate", operands: "DOMAIN SOURCE",
                           summary: "bring settings in from a plist, JSON, INI or .env file or a suite, with a plan and a report",
                           operandCount: 2...2, details: HelpText.migrateDetails)

    static let operandKinds: [WordKind] = [.domain, .domain]

    static let options: [Option<Values>] = [
        .choice("from", "KIND", "what SOURCE is: file (plist or JSON), ini, env or suite (default: by its name)") { $0.from = $1 },
        .list("keys", "LIST", "only these keys (comma-separated KEYs or :key:paths; repeatable)", completing: .keyList(operand: 1)) { $0.keys = $1 },
        .list("bool-keys", "LIST", "make these keys booleans from 0/1, yes/no, on/off, true/false (else an error)", completing: .keyList(operand: 1)) { $0.boolKeys = $1 },
        .list("rename", "OLD=NEW", "store the key OLD as NEW (repeatable)") { $0.renames = $1 },
        .flag("infer-types", "strings that spell integers, reals or true/false (from INI also yes/no, on/off; not an INI value in quotes) become typed") { $0.inferTypes = $1 },
        .flag("decode-json-strings", "strings that are a JSON object or array become that value") { $0.decodeJSONStrings = $1 },
        .flag("overwrite", "replace stored values that differ (else they are kept: skipped-conflict)") { $0.overwrite = $1 },
        .flag("skip-errors", "leave out the keys that fail instead of failing the migration") { $0.skipErrors = $1 },
        .flag("dry-run", "print the report of what would happen and change nothing") { $0.dryRun = $1 }, .exitCode,
        .schema, .noSchema,
        .fence,
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let result = try values.context(context, verb: "migrate").store.migrate(try plan(values), from: operands[1], kind: values.from, into: domain, dryRun: values.dryRun)
        MigrationOutput.print(result, dryRun: values.dryRun, context)
        guard let outcome = result.outcome else {
            let failures = result.report.entries.filter { $0.outcome.name == "error" }.count
            throw PrefsError.invalidValue(domain: domain.displayName, key: nil, flag: nil, given: nil,
                                          reason: "\(failures) key\(failures == 1 ? "" : "s") could not be migrated; nothing changed (--skip-errors leaves them out)")
        }
        return values.status(outcome)
    }

    static func plan(_ values: Values) throws -> MigrationPlan {
        var plan = MigrationPlan()
        if !values.keys.isEmpty { plan.keys = try KeyList.parse(values.keys, option: "keys") }
        plan.boolKeys = try KeyList.parse(values.boolKeys, option: "bool-keys")
        plan.renames = try values.renames.map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw PrefsError.usage("migrate: --rename takes OLD=NEW, not '\(pair)'") }
            return (try PrefKeyPath(argument: String(parts[0]), in: "--rename"), try PrefKeyPath(argument: String(parts[1]), in: "--rename"))
        }
        var renamed = Set<PrefKeyPath>()
        for rename in plan.renames where !renamed.insert(rename.from).inserted {
            throw PrefsError.usage("migrate: --rename names \(rename.from.display) twice")
        }
        (plan.inferTypes, plan.decodeJSONStrings) = (values.inferTypes, values.decodeJSONStrings)
        (plan.overwrite, plan.skipErrors) = (values.overwrite, values.skipErrors)
        return plan
    }
}
