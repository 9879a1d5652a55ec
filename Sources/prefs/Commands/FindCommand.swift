import PrefsCore

/// `prefs find WORD [--json [--compact] | --null]` — every suite whose name, and every key or string value,
/// contains WORD (ignoring case). One match per line: the suite, then a tab and the key path for a key
/// or value match (`--null`: each match ended by a NUL byte instead). Exits 1 when nothing matches,
/// like grep; a suite that cannot be read is reported and skipped (its status at the end).
enum FindCommand: Command {
    struct Values: CommandValues {
        var json = false, compact = false, null = false
    }

    static let verb = Verb(name: "find", operands: "WORD", summary: "find suites, keys and string values that contain WORD", operandCount: 1...1,
                           details: """
                               One match per line: the suite, then a tab and the key (a KEY that names the match) for a
                               key or value match. With --null (or -0), each match ends with a NUL byte instead of a
                               newline. A WORD that is literally -0 goes after --: prefs find -- -0.
                               """)

    static let operandKinds: [WordKind] = [.text]

    static let options: [Option<Values>] = [
        .flag("json", "print the matches as JSON") { $0.json = $1 },
        .flag("compact", "print the JSON on one line (implies --json)") { $0.compact = $1 },
        .flag("null", short: "0", "end each match with a NUL byte instead of a newline") { $0.null = $1 },
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let json = values.json || values.compact
        guard !(json && values.null) else { throw PrefsError.usage("find: --\(values.json ? "json" : "compact") and --null cannot be combined") }
        let every = try context.store.everySuite()
        context.report(every)
        let matches = SuiteStore.find(operands[0], in: every.suites)
        if json {
            let list = matches.map { match -> PrefValue in
                var entry: PrefDictionary = ["suite": .string(match.suite)]
                entry["key"] = match.key.map { .string($0.display) }
                entry["value"] = match.value
                return .dictionary(entry)
            }
            context.writeOutput(try ValueOutput.text(.array(list), json: true, compact: values.compact))
        } else {
            let end = values.null ? "\0" : "\n"
            context.writeOutput(Array(matches.map { $0.suite + ($0.key.map { "\t" + $0.display } ?? "") + end }.joined().utf8))
        }
        if let failure = every.failures.first { return failure.exitStatus }
        return matches.isEmpty ? .notFound : .success
    }
}
