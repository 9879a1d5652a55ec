import PrefsCore

/// The options of the verbs that store values: check them against another schema file for this
/// run (`--schema FILE`), or not at all (`--no-schema`).
protocol SchemaOptions: SendableMetatype {
    var schema: String? { get set }
    var noSchema: Bool { get set }
}

extension SchemaOptions {
    /// The context with its store checking changes as these options say (both given: refused by
    /// the verb's `validate`).
    func context(_ context: CommandContext, verb: String) throws -> CommandContext {
        var context = context
        switch (schema, noSchema) {
        case (_?, true): throw PrefsError.internalError("\(verb): --schema with --no-schema passed validate")
        case (let file?, false): context.store = try context.store.usingSchemaFile(file)
        case (nil, true): context.store.schemaChoice = .none
        case (nil, false): break
        }
        return context
    }
}

extension Command where Values: SchemaOptions {
    /// `--schema` and `--no-schema` do not go together (64): a verb that takes them and has a
    /// `validate` of its own calls this from it.
    static func validateSchemaOptions(_ values: Values) throws {
        guard values.schema == nil || !values.noSchema else { throw conflict("--schema", "--no-schema") }
    }

    static func validate(_ values: Values, _ operands: [String]) throws { try validateSchemaOptions(values) }
}

extension Option where Values: SchemaOptions {
    static var schema: Option { .text("schema", "FILE", "check the values against the schema FILE instead of the suite's", completing: .file) { $0.schema = $1 } }
    static var noSchema: Option { .flag("no-schema", "store the values without checking them against the suite's schema") { $0.noSchema = $1 } }
}
