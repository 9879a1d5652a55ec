import PrefsCore

/// `prefs export DOMAIN [PATH|-] [--format FORMAT] [--keys LIST] [--effective [--defaults FILE]…]
/// [--lossy] [--compact]` — a suite's stored values (or with `--effective` every layer merged; or a
/// file in any format, or standard input), only `--keys` when given, written in FORMAT (default: by
/// PATH's ending, `Format.named(byPath:)`, else JSON with `--compact` or `--lossy`, else XML) to
/// PATH, atomically, or to standard output (no PATH, or `-`). JSON refuses dates and data unless `--lossy`.
/// `sh`, `env` and `github` write the suite as environment variables (see `EnvironmentOutput`);
/// with `--effective`, a key from the global suite, or from another layer and no name, is left out
/// unless `--keys` names it (`OtherLayerKeys`). On etcd, `--max-stale` and `--fallback-cache` may
/// answer from this host's snapshot of the suite.
enum ExportCommand: Command {
    /// A document format, or an environment-file form.
    enum Format: String, CaseIterable, Sendable {
        case binary, xml, openstep, json, typedJSON = "typed-json", sh, env, github

        var document: PlistFormat? { PlistFormat(rawValue: rawValue) }
        var environment: EnvironmentFormat? { EnvironmentFormat(rawValue: rawValue) }

        /// The format PATH's ending names (`.json`, `.plist`/`.xml`, `.env`, `.sh`); nil for no
        /// ending prefs knows; a usage error for the ending of a format prefs does not write.
        static func named(byPath path: String) throws -> Format? {
            let name = path.split(separator: "/").last ?? ""
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
            let ending = name[name.index(after: dot)...].lowercased()
            switch ending {
            case "json": return .json
            case "plist", "xml": return .xml
            case "env": return .env
            case "sh": return .sh
            case "yaml", "yml", "toml", "ini", "conf", "cfg", "properties":
                let formats = allCases.map(\.rawValue).joined(separator: ", ")
                throw PrefsError.usage("export: prefs does not write .\(ending) files: give --format (\(formats))")
            default: return nil
            }
        }
    }

    struct Values: CommandValues, DocumentOptions, SnapshotOptions {
        var format: Format?
        var keys: [String] = []
        var effective = false
        var defaults: [String] = []
        var lossy = false, compact = false
        var maxStale: Double?
        var fallbackCache = false
    }

    static let verb = Verb(name: "export", operands: "DOMAIN [PATH|-]", summary: "write a suite or a file in another format", operandCount: 1...2,
                           details: "Without PATH, or with -, to standard output. With no --format, PATH's ending says the format.")

    static let operandKinds: [WordKind] = [.domain, .file]

    static let options: [Option<Values>] = [
        .choice("format", "FORMAT", "xml, binary, openstep, json or typed-json (default: by PATH's ending, .json json, .plist and .xml xml, .env env, .sh sh; else json with --compact or --lossy, else xml); sh, env or github: the keys as environment variables") { $0.format = $1 },
        .list("keys", "LIST", "only these keys (comma-separated KEYs or :key:paths; repeatable); as environment, the global suite's and deny-listed names too", completing: .keyList(operand: 0)) { $0.keys = $1 },
        .flag("effective", "export what an application sees (stored, global and registered values), not just the stored ones; as environment, not the global suite's") { $0.effective = $1 },
        .list("defaults", "FILE", "registered defaults for this run only (a plist or JSON dictionary; repeatable, a later one wins)", completing: .file) { $0.defaults = $1 },
        .lossy, .compact { $0.compact = $1 }, .maxStale, .fallbackCache,
    ]

    /// `--lossy` and `--compact` are JSON's: refused with an environment form, given or named by PATH.
    static func validate(_ values: Values, _ operands: [String]) throws {
        let path = operands.count > 1 ? operands[1] : "-"
        guard let environment = try (values.format ?? Format.named(byPath: path))?.environment, values.lossy || values.compact else { return }
        throw PrefsError.usage("export: --\(values.lossy ? "lossy" : "compact") is for --format json and typed-json, not \(environment.rawValue)")
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        var values = values
        let path = operands.count > 1 ? operands[1] : "-"
        if values.format == nil { values.format = try Format.named(byPath: path) }
        let domain = try Domain(argument: operands[0])
        let encode = try encoder(values)
        let keys = values.keys.isEmpty ? nil : try KeyList.parse(values.keys, option: "keys")
        let others = values.format?.environment == nil ? nil : OtherLayerKeys(named: keys != nil, domain: domain)
        let value = try SnapshotOutput.reading(domain, try values.snapshotPolicy(context.environment), context) {
            try $0.exportedValue(of: domain, effective: values.effective, defaults: values.defaults, keys: keys,
                                 globalSuite: others == nil || keys != nil, keeping: { others?.keeps($0, $1) ?? true })
        }
        let bytes = try encode(value, domain)
        others?.report("export", domain: domain.displayName, context)
        if path == "-" {
            context.writeOutput(bytes)
        } else {
            try context.fileSystem.writeFile(path, bytes, newFileMode: 0o666, lockTimeout: try context.environment.lockTimeout())
        }
        return .success
    }

    /// How the value is written: as an environment file, or as a document (with no format given or
    /// named by PATH, --compact and --lossy, JSON's options, ask for JSON).
    static func encoder(_ values: Values) throws -> (PrefValue, Domain) throws -> [UInt8] {
        if let environment = values.format?.environment {
            return { value, domain in
                let variables = try EnvironmentOutput.variables(value, domain: domain.displayName, named: !values.keys.isEmpty)
                try EnvironmentPolicy.checkTotal(variables, others: 0, domain: domain.displayName)
                return try environment.encode(variables, domain: domain.displayName)
            }
        }
        let implied: PlistFormat = values.compact || values.lossy ? .json : .xml
        let format = values.format?.document ?? implied
        let encoding = try DocumentEncoding(format: format, lossy: values.lossy, compact: values.compact)
        return { value, _ in try encoding.encode(value) }
    }
}

/// The KEYs of a comma-separated, repeatable option such as `--keys` (each a KEY or a :key:path).
enum KeyList {
    static func parse(_ given: [String], option: String) throws -> [PrefKeyPath] {
        try given.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { item in
            try PrefKeyPath(argument: String(item), in: "--\(option)")
        }
    }
}
