import PrefsCore

/// `prefs check [DOMAIN…]` — verifies every external value's reference against its blob (present,
/// the recorded size and SHA-256, read in full) and lists blobs no reference names. One line per
/// problem; a suite without problems prints `SUITE: N external values OK`. Exit 65 if any problem;
/// 1 when a suite named has neither a file nor blobs.
enum CheckCommand: Command {
    struct Values: CommandValues {}

    static let verb = Verb(name: "check", operands: "[DOMAIN...]",
                           summary: "verify the external values of suites: every blob present with its recorded size and SHA-256; list orphan blobs",
                           operandCount: 0...Int.max, details: """
                               Checks the named suites, or every suite. Prints one line per problem (a missing or damaged
                               blob, a malformed reference, a blob no reference names) and exits 65 if there is one.
                               """)

    static let options: [Option<Values>] = []

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        var problems = 0
        for domain in try ExternalDomains.named(operands, context, verb: "check") {
            let report = try context.store.checkExternal(domain)
            for line in report.problems { context.print(line) }
            problems += report.problems.count
            if report.problems.isEmpty && (report.references > 0 || !operands.isEmpty) {
                context.print("\(domain.displayName): \(report.references) external value\(report.references == 1 ? "" : "s") OK")
            }
        }
        return problems == 0 ? .success : .dataError
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
