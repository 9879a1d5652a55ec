import PrefsCore

/// `prefs domains [GLOB] [--null]` — the suite names (only those GLOB matches, when given), sorted,
/// one per line (`--null`: each ended by a NUL byte, so names holding spaces or newlines survive
/// loops), with `NSGlobalDomain` for the global suite when it holds values. A global suite that
/// cannot be read is listed too (when GLOB takes it), and its error follows the list, with its
/// status (65 when it is corrupt or the store's answer malformed).
enum DomainsCommand: Command {
    struct Values: CommandValues {
        var null = false
    }

    static let verb = Verb(name: "domains", operands: "[GLOB]", summary: "list the suites (those GLOB matches), one per line (NSGlobalDomain: the global suite)",
                           operandCount: 0...1)

    static let operandKinds: [WordKind] = [.text]

    static let options: [Option<Values>] = [.flag("null", short: "0", "end each name with a NUL byte instead of a newline") { $0.null = $1 }]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let listing = try context.store.domainNames()
        for skipped in listing.skipped { context.printWarning(skipped.message) }
        let glob = operands.first.map(Glob.init)
        let names = listing.names.filter { glob?.matches($0) ?? true }
        let end = values.null ? "\0" : "\n"
        context.writeOutput(Array(names.map { $0 + end }.joined().utf8))
        guard let failure = listing.failure, names.contains(SuiteStore.globalDomainName) else { return .success }
        context.printError(failure.message)
        return failure.exitStatus
    }
}
