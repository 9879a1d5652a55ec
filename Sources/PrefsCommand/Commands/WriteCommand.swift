import PrefsCore

/// `prefs write DOMAIN KEY [TYPE] VALUE…` or `prefs write DOMAIN PLIST` — every change on the command
/// line parsed first (a bad value changes nothing), then applied in one atomic change. Counters
/// (`-int-add`, `-float-add`) print their new values. `--if-absent` skips keys already stored;
/// `--if-equals VALUE` changes the one key only while it holds VALUE (else exit 4). Large values of a
/// suite go to external storage (`--external` / `--inline` decide instead of the size).
enum WriteCommand: Command {
    struct Values: CommandValues, ChangeOptions, SchemaOptions, FenceOptions {
        var fence: String?
        var exitCode = false, dryRun = false, ifAbsent = false, external = false, inline = false, noSchema = false
        var ifEquals: String?, schema: String?
        var ttl: Double?, expiresAt: String?
    }

    static let verb = Verb(name: "write", operands: "DOMAIN KEY [TYPE] VALUE... | DOMAIN PLIST",
                           summary: "set values, typed as defaults types them, in one locked write", operandCount: 2...Int.max,
                           details: HelpText.writeDetails)

    static let operandKinds: [WordKind] = [.domain, .key, .value]

    static let options: [Option<Values>] = [
        .exitCode, .dryRun,
        .flag("if-absent", "skip the keys that are already stored") { $0.ifAbsent = $1 },
        .text("if-equals", "VALUE", "change the key only if its stored value is VALUE (typed as the new value); else exit 4") { $0.ifEquals = $1 },
        .flag("external", "keep the values in external storage whatever their size") { $0.external = $1 },
        .flag("inline", "keep the values in the suite's file whatever their size") { $0.inline = $1 },
        .duration("ttl", "the values expire after D (500ms, 10s, 15m, 1h; at most a week): then reads show the next layer") { $0.ttl = $1 },
        .text("expires-at", "DATE", "the values expire at DATE (ISO 8601, 2026-12-01T18:00:00Z): then reads show the next layer") { $0.expiresAt = $1 },
        .schema, .noSchema,
        .fence,
    ]

    /// The deadline `--ttl` or `--expires-at` gives (nil: none; `validate` refuses both); one in
    /// the past is refused (64) before anything is read.
    static func deadline(_ values: Values) throws -> PrefDate? {
        let now = Expiry.now()
        switch (values.ttl, values.expiresAt) {
        case (nil, nil): return nil
        case (let ttl?, _):
            guard ttl > 0 else { throw PrefsError.usage("write: --ttl takes a duration above 0, such as 500ms, 10s, 15m or 1h") }
            return PrefDate(secondsSinceReferenceDate: now.secondsSinceReferenceDate + ttl)
        case (nil, let text?):
            guard let date = PrefDate(iso8601: text), date.isInSupportedRange else {
                throw PrefsError.usage("write: --expires-at takes an ISO 8601 date such as 2026-12-01T18:00:00Z, not '\(text)'")
            }
            guard date > now else { throw PrefsError.usage("write: --expires-at \(text) is already past (now \(now.iso8601(wholeSeconds: true)))") }
            return date
        }
    }

    static func validate(_ values: Values, _ operands: [String]) throws {
        guard !(values.external && values.inline) else { throw conflict("--external", "--inline") }
        guard values.ttl == nil || values.expiresAt == nil else { throw conflict("--ttl", "--expires-at") }
        try validateSchemaOptions(values)
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let request = try WriteRequest.parse(operands.dropFirst(), domain: domain.displayName)
        if case .replaceDomain = request, values.ttl != nil || values.expiresAt != nil {
            throw PrefsError.usage("write: --ttl and --expires-at need KEY [TYPE] VALUE groups, not a whole domain")
        }
        var options = WriteOptions()
        options.conditions.ifAbsent = values.ifAbsent
        options.ifEquals = values.ifEquals
        options.placement = values.external ? .external : values.inline ? .inline : .automatic
        options.dryRun = values.dryRun
        options.deadline = try deadline(values)
        let outcome = try values.context(context, verb: "write").store.write(request, to: domain, options: options)
        context.print(outcome)
        return values.status(outcome)
    }
}
