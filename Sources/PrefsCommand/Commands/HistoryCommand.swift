import PrefsCore

/// `prefs history DOMAIN [KEY] [--json [--compact]]` — the versions kept of a suite's changes, newest
/// first, one per line: the version number, the time (UTC), user@host, the verb, and the keys it
/// changed (space-separated, quoted where needed), separated by tabs. With KEY, only the versions
/// that changed it. Exits 1 when the suite has no version (with KEY: none changed it).
enum HistoryCommand: Command {
    struct Values: CommandValues {
        var json = false, compact = false
    }

    static let verb = Verb(name: "history", operands: "DOMAIN [KEY]",
                           summary: "list the versions kept of a suite's changes, newest first: VERSION, time, user@host, verb, keys (tab-separated)",
                           operandCount: 1...2)

    static let operandKinds: [WordKind] = [.domain, .key]

    static let options: [Option<Values>] = [
        .flag("json", "print the versions as JSON") { $0.json = $1 },
        .compact { $0.compact = $1 },
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let key = operands.count > 1 ? operands[1] : nil
        let versions = try context.store.versions(of: domain)
            .filter { version in key.map { key in version.keys.contains { $0.utf8.elementsEqual(key.utf8) } } ?? true }
            .reversed()
        try OutputForm(json: values.json, compact: values.compact).printer(context).versions(Array(versions))
        return versions.isEmpty ? .notFound : .success
    }
}
