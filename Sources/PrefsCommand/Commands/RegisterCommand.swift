import PrefsCore

/// `prefs register DOMAIN FILE|-|PLIST`, `prefs register DOMAIN KEY [TYPE] VALUE…` and
/// `prefs register DOMAIN --delete KEY [KEY…]` — change the user's registered defaults for a suite, never the
/// suite itself. A dictionary (a plist or JSON file, standard input, or plist text) is merged key by
/// key, or with `--replace` becomes the whole registration; KEY VALUE groups are typed as `write`
/// types them. All or nothing, in one atomic change.
enum RegisterCommand: Command {
    struct Values: CommandValues, ChangeOptions, SchemaOptions, FenceOptions {
        var fence: String?
        var replace = false, exitCode = false, dryRun = false, noSchema = false
        var delete: [String] = []
        var schema: String?
    }

    static let verb = Verb(name: "register", operands: "DOMAIN FILE|-|PLIST | DOMAIN KEY [TYPE] VALUE... | DOMAIN --delete KEY... | DOMAIN --schema FILE",
                           summary: "record registered defaults: values reads show while nothing is stored", operandCount: 1...Int.max,
                           details: HelpText.registerDetails)

    static let operandKinds: [WordKind] = [.suite, .keyOrFile, .value]

    static let options: [Option<Values>] = [
        .flag("replace", "replace the whole registration instead of merging into it") { $0.replace = $1 },
        .list("delete", "KEY", "remove KEY, and the KEYs that follow it, from the registration (all or nothing)", completing: .key) { $0.delete = $1 },
        .text("schema", "FILE", "install FILE (- for standard input) as the suite's schema, once checked whole", completing: .file) { $0.schema = $1 },
        .flag("no-schema", "record the values without checking them against the suite's schema") { $0.noSchema = $1 },
        .exitCode, .dryRun,
        .fence,
    ]

    static func validate(_ values: Values, _ operands: [String]) throws {
        if values.schema != nil {
            guard operands.count == 1, values.delete.isEmpty, !values.replace, !values.noSchema else {
                throw PrefsError.usage("register: --schema FILE takes only the DOMAIN (no values, --delete, --replace or --no-schema)")
            }
        }
        guard values.delete.isEmpty || !values.replace else { throw conflict("--delete", with: "--replace") }
        try validateSchemaOptions(values)
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        if let schema = values.schema {
            let outcome = try context.store.installSchema(from: schema, for: domain, dryRun: values.dryRun)
            context.print(outcome)
            return values.status(outcome)
        }
        let context = try values.context(context, verb: "register")
        let outcome = try context.store.register(try registration(values, operands, context, domain: domain), for: domain,
                                                 replacing: values.replace, dryRun: values.dryRun)
        context.print(outcome)
        return values.status(outcome)
    }

    /// What the words after the domain ask for: keys removed (`--delete`), a dictionary from a file,
    /// standard input or plist text (starting with `{`, `(` or `<`), or KEY VALUE groups.
    static func registration(_ values: Values, _ operands: [String], _ context: CommandContext, domain: Domain) throws -> SuiteStore.Registration {
        let name = "\(domain.displayName) (registered)"
        guard values.delete.isEmpty else {
            // `--delete a b`: the words after the domain are keys to remove too.
            return .deletion(try (values.delete + operands.dropFirst()).map { try PrefKeyPath(argument: $0, in: name, allowingEmpty: true) })
        }
        let words = operands.dropFirst()
        guard let source = words.first else { throw PrefsError.usage("usage: \(CommandTable.verb(named: "register")!.usage)") }
        if words.count == 1, !(source.first.map { "{(<".contains($0) } ?? false) {
            return .document(try DocumentInput(fileSystem: context.fileSystem).dictionary(from: source))
        }
        let request = try WriteRequest.parse(words, domain: name)
        if case .replaceDomain(let registered) = request { return .document(registered) }
        return .request(request)
    }
}
