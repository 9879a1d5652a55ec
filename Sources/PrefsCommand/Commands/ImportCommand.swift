import PrefsCore

/// `prefs import DOMAIN PATH|- [--replace | --if-absent] [--format FORMAT]` — a dictionary from a
/// plist or JSON document (format by content unless given) merged into the suite key by key (as
/// `defaults import` does), or with `--replace` made the whole suite; in JSON, a root member set to
/// `null` deletes that key. One atomic change: a bad document changes nothing.
enum ImportCommand: Command {
    struct Values: CommandValues, ChangeOptions, SchemaOptions, FenceOptions {
        var fence: String?
        var replace = false, ifAbsent = false, dryRun = false, exitCode = false, noSchema = false
        var format: PlistFormat?
        var schema: String?
    }

    static let verb = Verb(name: "import", operands: "DOMAIN PATH|-",
                           summary: "merge a plist or JSON dictionary into a suite (or replace it), all or nothing", operandCount: 2...2,
                           details: """
                               The document's root must be a dictionary. In JSON, a key set to null is deleted from
                               the suite. One locked write: a bad document or value changes nothing.
                               """)

    static let operandKinds: [WordKind] = [.domain, .file]

    static let options: [Option<Values>] = [
        .flag("replace", "make the suite exactly the document (else merge key by key)") { $0.replace = $1 },
        .flag("if-absent", "keep the keys that are already stored") { $0.ifAbsent = $1 },
        .choice("format", "FORMAT", "read the document as FORMAT (default: by its content)") { $0.format = $1 },
        .dryRun, .exitCode, .schema, .noSchema,
        .fence,
    ]

    static func validate(_ values: Values, _ operands: [String]) throws {
        guard !(values.replace && values.ifAbsent) else { throw conflict("--replace", "--if-absent") }
        try validateSchemaOptions(values)
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        if values.format == nil, let kind = migrateKind(of: operands[1]) {
            throw PrefsError.usage("import: \(operands[1]) is \(kind) file; import reads property lists and JSON: use prefs migrate \(operands[0]) \(operands[1])")
        }
        let mode: SuiteStore.ImportMode = values.replace ? .replace : values.ifAbsent ? .ifAbsent : .merge
        let outcome = try values.context(context, verb: "import").store.importDocument(from: operands[1], format: values.format, into: domain, mode: mode, dryRun: values.dryRun)
        context.print(outcome)
        return values.status(outcome)
    }

    /// An INI or .env file, by its name: what `migrate` reads and `import` does not.
    static func migrateKind(of path: String) -> String? {
        if path.hasSuffix(".ini") { return "an INI" }
        if path.hasSuffix(".env") { return "a .env" }
        return nil
    }
}
