import PrefsCore

/// The options of the verbs that store values: check them against another schema file for this
/// run (`--schema FILE`), or not at all (`--no-schema`).
protocol SchemaOptions: SendableMetatype {
    var schema: String? { get set }
    var noSchema: Bool { get set }
}

extension SchemaOptions {
    /// The context with its store checking changes as these options say.
    func context(_ context: CommandContext, verb: String) throws -> CommandContext {
        var context = context
        switch (schema, noSchema) {
        case (_?, true): throw PrefsError.usage("\(verb): --schema and --no-schema cannot be combined")
        case (let file?, false): context.store = try context.store.usingSchemaFile(file)
        case (nil, true): context.store.schemaChoice = .none
        case (nil, false): break
        }
        return context
    }
}

extension Option where Values: SchemaOptions {
    static var schema: Option { .text("schema", "FILE", "check the values against the schema FILE instead of the suite's", completing: .file) { $0.schema = $1 } }
    static var noSchema: Option { .flag("no-schema", "store the values without checking them against the suite's schema") { $0.noSchema = $1 } }
}
