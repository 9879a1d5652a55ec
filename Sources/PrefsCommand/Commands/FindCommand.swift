import PrefsCore

/// `prefs find WORD [--json [--compact] | --null]` — every suite whose name, and every key or string value,
/// contains WORD (ignoring case). One match per line: the suite, then a tab and the key path for a key
/// or value match (`--null`: each match ended by a NUL byte instead). Exits 1 when nothing matches,
/// like grep; a suite that cannot be read is reported and skipped (its status at the end).
enum FindCommand: Command {
    struct Values: CommandValues {
        var json = false, compact = false, null = false
        var expiring: Double?
    }

    static let verb = Verb(name: "find", operands: "[WORD]", summary: "find suites, keys and string values that contain WORD", operandCount: 0...1,
                           details: """
                               One match per line: the suite, then a tab and the key (a KEY that names the match) for a
                               key or value match. With --null (or -0), each match ends with a NUL byte instead of a
                               newline. A WORD that is literally -0 goes after --: prefs find -- -0.
                               --expiring D lists the stored keys (of WORD's matches, or of every suite) that expire
                               within D: the suite, the key and the deadline, tab-separated.
                               """)

    static let operandKinds: [WordKind] = [.text]

    static let options: [Option<Values>] = [
        .flag("json", "print the matches as JSON") { $0.json = $1 },
        .compact { $0.compact = $1 },
        .flag("null", short: "0", "end each match with a NUL byte instead of a newline") { $0.null = $1 },
        .duration("expiring", "only the stored keys that expire within D (500ms, 10s, 15m, 1h; at most a week), with their deadlines") { $0.expiring = $1 },
    ]

    static func validate(_ values: Values, _ operands: [String]) throws {
        guard !((values.json || values.compact) && values.null) else { throw conflict(values.json ? "--json" : "--compact", "--null") }
        guard !operands.isEmpty || values.expiring != nil else { throw PrefsError.usage("find: give a WORD, or --expiring D (usage: prefs find [WORD] [--expiring D])") }
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let printer = try OutputForm(json: values.json, compact: values.compact, null: values.null).printer(context)
        let every = try context.store.everySuite()
        context.report(every)
        var matches = operands.first.map { SuiteStore.find($0, in: every.suites) } ?? []
        if let within = values.expiring {
            let horizon = Expiry.now().secondsSinceReferenceDate + within
            var expiring: [FindMatch] = []
            for domain in every.suites.map(\.domain) {
                let suite = domain.displayName
                let deadlines = (try? context.store.deadlines(in: domain)) ?? []
                for found in deadlines where found.deadline.secondsSinceReferenceDate <= horizon {
                    guard operands.isEmpty || matches.contains(where: { $0.suite == suite && ($0.key == nil || $0.key?.first == found.key) }) else { continue }
                    expiring.append(FindMatch(suite: suite, key: PrefKeyPath([found.key]), value: .date(found.deadline)))
                }
            }
            matches = expiring
        }
        try printer.matches(matches, deadlines: values.expiring != nil)
        if let failure = every.failures.first { return failure.exitStatus }
        return matches.isEmpty ? .notFound : .success
    }
}
