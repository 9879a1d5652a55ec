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
        .schema, .noSchema,
        .fence,
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let request = try WriteRequest.parse(operands.dropFirst(), domain: domain.displayName)
        guard !(values.external && values.inline) else { throw PrefsError.usage("write: --external and --inline cannot be combined") }
        var options = WriteOptions()
        options.conditions.ifAbsent = values.ifAbsent
        options.ifEquals = values.ifEquals
        options.placement = values.external ? .external : values.inline ? .inline : .automatic
        options.dryRun = values.dryRun
        let outcome = try values.context(context, verb: "write").store.write(request, to: domain, options: options)
        context.print(outcome)
        return values.status(outcome)
    }
}
