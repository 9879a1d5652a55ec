import PrefsCore

/// `prefs check [DOMAIN…]` — verifies every external value's reference against its blob (present,
/// the recorded size and SHA-256, read in full) and lists blobs no reference names. One line per
/// problem; a suite without problems prints `SUITE: N external values OK`. A suite with a schema has
/// its stored values checked against it too: one line per value that breaks it (written by an
/// application, say), or `SUITE: stored values keep the schema FILE`. Exit 65 if any problem; 1 when
/// a suite named has neither a file nor blobs.
enum CheckCommand: Command {
    struct Values: CommandValues {
        var schema: String?
    }

    static let verb = Verb(name: "check", operands: "[DOMAIN...]",
                           summary: "verify the external values of suites: every blob present with its recorded size and SHA-256; list orphan blobs",
                           operandCount: 0...Int.max, details: """
                               Checks the named suites, or every suite. Prints one line per problem (a missing or damaged
                               blob, a malformed reference, a blob no reference names, in the etcd store what a change too
                               large for one transaction left when its writer stopped) and exits 65 if there is one.
                               A suite's stored values are also checked against its schema (or --schema FILE): one
                               line per value of the wrong type, out of range, not one of the choices, or undeclared
                               in a suite whose schema allows no other keys.
                               """)

    static let operandKinds: [WordKind] = [.suite]

    static let options: [Option<Values>] = [
        .text("schema", "FILE", "check the stored values against the schema FILE instead of the suite's", completing: .file) { $0.schema = $1 },
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        var problems = 0
        var context = context
        if let file = values.schema { context.store = try context.store.usingSchemaFile(file) }
        for domain in try ExternalDomains.named(operands, context, verb: "check") {
            let report = try context.store.checkExternal(domain)
            for line in report.problems { context.print(line) }
            problems += report.problems.count
            if report.problems.isEmpty && (report.references > 0 || !operands.isEmpty) {
                context.print("\(domain.displayName): \(report.references) external value\(report.references == 1 ? "" : "s") OK")
            }
            problems += checkSchema(domain, context)
        }
        return problems == 0 ? .success : .dataError
    }

    /// Prints the stored values of a suite that break its schema (a schema that cannot be read is a
    /// problem too); how many problems there were.
    static func checkSchema(_ domain: Domain, _ context: CommandContext) -> Int {
        do {
            guard let (schema, problems) = try context.store.schemaProblems(domain) else { return 0 }
            for problem in problems { context.print("\(domain.displayName): \(problem) (schema \(schema.source))") }
            if problems.isEmpty { context.print("\(domain.displayName): stored values keep the schema \(schema.source)") }
            return problems.count
        } catch {
            context.printError((error as? PrefsError)?.message ?? "internal error: \(error)")
            return 1
        }
    }
}

enum ExternalDomains {
    /// The suites named, or every suite that has or may have external values.
    static func named(_ operands: [String], _ context: CommandContext, verb: String) throws -> [Domain] {
        guard !operands.isEmpty else { return try context.store.externalSuites(among: context.suiteNames()) }
        let domains = try operands.map { operand in
            let domain = try Domain(argument: operand)
            guard domain.registrationName != nil else { throw PrefsError.usage("\(verb): \(domain.displayName): a file keeps its values inline; name a suite") }
            return domain
        }
        for domain in domains where try !context.store.hasSuiteOrBlobs(domain) { throw PrefsError.suiteNotFound(domain: domain.displayName) }
        return domains
    }
}
