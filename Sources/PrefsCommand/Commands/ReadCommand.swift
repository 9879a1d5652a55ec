import PrefsCore

/// `prefs read [DOMAIN [KEY]]` — what an application sees: a scalar bare on one line (for `$(…)`), a
/// container or a whole suite in the readable form or as JSON, or the keys of a dictionary; `--raw`
/// the bytes of a string or data value. Every layer unless `--stored`; `--origin` says which layer
/// gave each value. With no domain, every suite's stored values. A missing suite or key exits 1, or
/// with `--default VALUE` prints VALUE (typed as `write` types it). `--format` writes the value (a
/// sub-tree at a key path, a suite) as a document of its own, as `plutil -extract` does. On etcd,
/// `--max-stale` and `--fallback-cache` may answer from this host's snapshot of the suite.
enum ReadCommand: Command {
    struct Values: CommandValues, LayerOptions, DocumentOptions, SnapshotOptions {
        var json = false, keys = false, raw = false, null = false
        var match: String?
        var origin = false, stored = false
        var defaults: [String] = []
        var fallback: TypedText?
        var format: PlistFormat?
        var lossy = false, compact = false
        var maxStale: Double?
        var fallbackCache = false
    }

    static let verb = Verb(name: "read", operands: "[DOMAIN [KEY]]", summary: "print a value (a scalar bare, for $(...)), a suite, or every suite",
                           operandCount: 0...2, details: HelpText.readDetails)

    static let operandKinds: [WordKind] = [.domain, .key]

    static let options: [Option<Values>] = [
        .flag("json", "print JSON instead of the readable form") { $0.json = $1 },
        .flag("keys", "print the keys of the suite (or of the dictionary at KEY), one per line") { $0.keys = $1 },
        .flag("raw", "print a string's or data value's bytes exactly, with no newline (an external one streams from its blob)") { $0.raw = $1 },
        .text("match", "GLOB", "with --keys, only the keys GLOB matches (* ? [...]; \\ escapes)") { $0.match = $1 },
        .flag("null", short: "0", "with --keys, end each key with a NUL byte instead of a newline") { $0.null = $1 },
        .origin, .stored, .defaults,
        .choice("format", "FORMAT", "write the value as a document: xml, binary, openstep, json or typed-json (as plutil -extract)") { $0.format = $1 },
        .lossy, .compact { $0.compact = $1 },
        .typed("default", "print VALUE (typed as write types it: --default -int 30) when the key or suite is absent, exit 0") { $0.fallback = $1 },
        .maxStale, .fallbackCache,
    ]

    /// The combinations `read` refuses, and the options that need a DOMAIN or a KEY, before anything is read.
    static func validate(_ values: Values, _ operands: [String]) throws {
        guard !(values.json && values.keys) else { throw conflict("--json", "--keys") }
        guard values.match == nil || values.keys else { throw PrefsError.usage("read: --match needs --keys") }
        if values.null {
            guard values.keys else { throw PrefsError.usage("read: --null needs --keys") }
            guard !values.origin else { throw conflict("--null", "--origin") }
        }
        if values.raw {
            for (given, name) in [(values.json, "--json"), (values.keys, "--keys"), (values.origin, "--origin")] where given {
                throw conflict("--raw", name)
            }
        }
        if values.format != nil {
            for (given, name) in [(values.json, "--json"), (values.keys, "--keys"), (values.raw, "--raw"), (values.origin, "--origin")] where given {
                throw conflict("--format", name)
            }
        }
        if values.compact && values.format == nil {
            for (given, name) in [(values.keys, "--keys"), (values.raw, "--raw")] where given {
                throw conflict("--compact", name, " (--compact prints JSON)")
            }
        }
        _ = try form(values)
        for (given, name) in [(values.raw, "--raw"), (values.fallback != nil, "--default")] where given && operands.count < 2 {
            throw PrefsError.usage("read: \(name) needs a KEY (usage: prefs read DOMAIN KEY \(name)\(name == "--default" ? " [TYPE] VALUE" : ""))")
        }
        guard operands.isEmpty else { return }
        guard !values.origin && values.defaults.isEmpty else { throw PrefsError.usage("read: --origin and --defaults need a domain") }
        guard values.maxStale == nil && !values.fallbackCache else { throw PrefsError.usage("read: --max-stale and --fallback-cache need a domain") }
    }

    /// How `read` prints, its options resolved (`--lossy` needs `--format`).
    static func form(_ values: Values) throws -> OutputForm {
        guard values.format != nil || !values.lossy else { throw PrefsError.usage("read: --lossy needs --format") }
        return try OutputForm(json: values.json, compact: values.compact, keys: values.keys, null: values.null, raw: values.raw, origin: values.origin,
                              format: values.format, lossy: values.lossy, match: values.match)
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let form = try form(values)
        let fallback = try values.fallback?.value(option: "--default")
        var output = ReadOutput(form: form, context: context)
        guard let argument = operands.first else {
            let every = try context.store.everySuite()
            try output.print(everySuite: every)
            return every.failures.first?.exitStatus ?? .success
        }
        let domain = try Domain(argument: argument)
        let policy = try values.snapshotPolicy(context.environment)
        if values.origin && !form.isJSON && policy.maxStale == nil && !policy.fallback { output.deadlines = (try? context.store.deadlines(in: domain)) ?? [] }
        func reading<T>(_ read: (SuiteStore) throws -> T) throws -> T {
            try SnapshotOutput.reading(domain, policy, context, answered: { output.snapshot = $0 }, read)
        }
        guard operands.count == 2 else {
            // Read first: the output says which origins the snapshot gave, if one answered.
            let contents = try reading { try $0.contents(of: domain, scope: values.scope) }
            try output.print(suite: contents, domain: domain)
            return .success
        }
        let path = try PrefKeyPath(argument: operands[1], in: domain.displayName)
        if case .raw = form.kind {
            let raw = try reading { try $0.raw(at: path, in: domain, scope: values.scope, fallback: fallback) }
            try output.print(raw: raw)
            return .success
        }
        let streaming = form.isReadable
        let answer = try reading { try $0.read(path, in: domain, scope: values.scope, fallback: fallback, streaming: streaming) }
        switch answer {
        case .value(let value, let origin): try output.print(value: value, origin: origin, domain: domain, key: path)
        case .blob(let blob, let origin): try output.print(blob: blob, origin: origin)
        }
        return .success
    }
}
