import PrefsCore

/// `prefs describe DOMAIN [KEY]` — what the suite's schema says of each key (or of KEY): its type,
/// default, range or choices and description, and the value an application sees now with where it
/// comes from, as `gsettings describe` and `gsettings range` do. `--choices` prints only the values
/// KEY may take (for completions). Exits 1 when there is no schema, or it does not declare KEY.
enum DescribeCommand: Command {
    struct Values: CommandValues {
        var choices = false, null = false
        var schema: String?
    }

    static let verb = Verb(name: "describe", operands: "DOMAIN [KEY]",
                           summary: "print a suite's schema: each key's type, default, range or choices, description and current origin",
                           operandCount: 1...2, details: HelpText.describeDetails)

    static let operandKinds: [WordKind] = [.suite, .key]

    static let options: [Option<Values>] = [
        .text("schema", "FILE", "describe the schema FILE instead of the suite's", completing: .file) { $0.schema = $1 },
        .flag("choices", "print only the values KEY may take, one per line (a boolean's: true and false)") { $0.choices = $1 },
        .flag("null", "with --choices, end each value with a NUL byte instead of a newline") { $0.null = $1 },
    ]

    static func validate(_ values: Values, _ operands: [String]) throws {
        guard !values.choices || operands.count == 2 else { throw PrefsError.usage("describe: --choices needs a KEY") }
        guard values.choices || !values.null else { throw PrefsError.usage("describe: --null goes with --choices") }
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        var context = context
        if let file = values.schema { context.store = try context.store.usingSchemaFile(file) }
        let (schema, keys) = try context.store.describeSchema(of: domain, key: operands.count == 2 ? operands[1] : nil)
        if values.choices {
            try OutputForm(null: values.null).printer(context).words(choices(of: keys[0].key))
            return .success
        }
        if operands.count == 1 {
            context.print("schema: \(schema.source)")
            if let description = schema.schema.description { context.print("description: \(description)") }
            context.print("undeclared keys: \(schema.schema.allowsUndeclaredKeys ? "allowed" : "refused")")
        }
        let deadlines = (try? context.store.deadlines(in: domain)) ?? []
        for (i, key) in keys.enumerated() {
            if operands.count == 1 || i > 0 { context.print("") }
            var block = lines(key)
            if key.origin == .stored, let found = deadlines.first(where: { $0.key.utf8.elementsEqual(key.name.utf8) }) {
                block.insert("  " + Expiry.describe(found.deadline), at: block.firstIndex { $0.hasPrefix("  origin: ") }.map { $0 + 1 } ?? block.count)
            }
            for line in block { context.print(line) }
        }
        return .success
    }

    /// A key's block: its name, then one indented line per thing the schema says, then what it is now.
    static func lines(_ described: KeyDescription) -> [String] {
        let key = described.key
        var lines = [ValueOutput.quotedIfNeeded(described.name)]
        lines.append("  type: " + key.type.rawValue + (key.element.map { " of \($0.rawValue)s" } ?? ""))
        if let value = key.defaultValue { lines.append("  default: " + ValueOutput.line(value)) }
        switch (key.minimum, key.maximum) {
        case let (low?, high?): lines.append("  range: \(ValueOutput.line(low)) to \(ValueOutput.line(high))")
        case let (low?, nil): lines.append("  range: at least \(ValueOutput.line(low))")
        case let (nil, high?): lines.append("  range: at most \(ValueOutput.line(high))")
        case (nil, nil): break
        }
        if let choices = key.choices { lines.append("  choices: " + choices.map { ValueOutput.line($0) }.joined(separator: ", ")) }
        if let description = key.description { lines.append("  description: " + description) }
        if let value = described.value, let origin = described.origin {
            lines.append("  value: " + ValueOutput.line(value))
            lines.append("  origin: \(origin)")
            if described.isManaged { lines.append("  managed: yes, by the administrator; no change of it is allowed") }
        } else {
            lines.append("  origin: (none)")
        }
        return lines
    }

    /// The values a key may take, bare as `read` prints them: its choices, or a boolean's two.
    static func choices(of key: Schema.Key) -> [String] {
        if let choices = key.choices { return choices.compactMap(ValueOutput.bare) }
        return key.type == .boolean || key.element == .boolean ? ["true", "false"] : []
    }
}
