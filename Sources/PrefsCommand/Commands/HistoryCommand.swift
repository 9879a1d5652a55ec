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
        .flag("compact", "print the JSON on one line (implies --json)") { $0.compact = $1 },
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let key = operands.count > 1 ? operands[1] : nil
        let versions = try context.store.versions(of: domain)
            .filter { version in key.map { key in version.keys.contains { $0.utf8.elementsEqual(key.utf8) } } ?? true }
            .reversed()
        if values.json || values.compact {
            let list = versions.map { version -> PrefValue in
                .dictionary(["version": .integer(version.number), "time": .string(LocksCommand.utc(version.time)), "user": .string(version.user),
                             "host": .string(version.host), "verb": .string(version.verb), "keys": .array(version.keys.map { .string($0) }),
                             "valuesKept": .bool(version.changes != nil)])
            }
            context.writeOutput(try ValueOutput.text(.array(list), json: true, compact: values.compact))
        } else {
            for version in versions {
                let keys = version.keys.map(ValueOutput.quotedIfNeeded).joined(separator: " ")
                context.print([String(version.number), LocksCommand.utc(version.time), field(version.user + "@" + version.host), field(version.verb), keys]
                    .joined(separator: "\t"))
            }
        }
        return versions.isEmpty ? .notFound : .success
    }

    /// A field of the tab-separated line: with a control character (a tab or newline in `$USER`),
    /// every byte not printable ASCII as `\xHH`, so one version stays one line.
    static func field(_ text: String) -> String {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" } ? ByteText.escaped(Array(text.utf8)) : text
    }
}
