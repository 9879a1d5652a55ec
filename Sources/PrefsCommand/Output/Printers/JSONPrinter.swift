import PrefsCore

/// JSON (`--json`): values as `PropertyList`'s JSON, indented, or on one line with `--compact`;
/// `watch`'s changes one object per line whatever `--compact` says.
struct JSONPrinter: ValuePrinter {
    let form: OutputForm
    let context: CommandContext
    let compact: Bool

    /// With an origin, `{"origin": ORIGIN, "value": VALUE}`.
    func value(_ value: PrefValue, _ place: ValuePlace, origin: String?) throws {
        try json(origin.map { Self.withOrigin(value, $0) } ?? value)
    }

    /// `{KEY: {"origin": ORIGIN, "value": VALUE}, …}`.
    func entries(_ entries: [OriginEntry], _ place: ValuePlace) throws {
        var described = PrefDictionary()
        for entry in entries { described[entry.key] = Self.withOrigin(entry.value, entry.origin) }
        try json(.dictionary(described))
    }

    /// `[{"suite": …, "key": …, "value": …}, …]`, no key for a suite's name (with deadlines, the
    /// value is the date the key expires).
    func matches(_ matches: [FindMatch], deadlines: Bool) throws {
        try json(.array(matches.map { match -> PrefValue in
            var entry: PrefDictionary = ["suite": .string(match.suite)]
            entry["key"] = match.key.map { .string($0.display) }
            entry["value"] = match.value
            return .dictionary(entry)
        }))
    }

    /// `{"suite":…,"key":…,"old":…,"new":…}` on one line per change; null for no value, and a value
    /// JSON cannot spell (NaN, infinity) as its text in the readable form.
    func changes(_ changes: [WatchChange], in domain: Domain) {
        func json(_ value: PrefValue?) -> String {
            guard let value else { return "null" }
            let bytes = (try? JSONTextEncoder.encode(value, pretty: false)) ?? (try? JSONTextEncoder.encode(.string(ValueOutput.line(value)), pretty: false))
            return String(decoding: bytes ?? Array("null".utf8), as: UTF8.self)
        }
        let suite = json(.string(domain.displayName))
        write(changes.map { "{\"suite\":\(suite),\"key\":\(json(.string($0.key))),\"old\":\(json($0.old)),\"new\":\(json($0.new))}\n" }.joined())
    }

    /// `[{"version": N, "time": …, "user": …, "host": …, "verb": …, "keys": […], "valuesKept": BOOL}, …]`.
    func versions(_ versions: [SuiteVersion]) throws {
        try json(.array(versions.map { version -> PrefValue in
            .dictionary(["version": .integer(version.number), "time": .string(LocksCommand.utc(version.time)), "user": .string(version.user),
                         "host": .string(version.host), "verb": .string(version.verb), "keys": .array(version.keys.map { .string($0) }),
                         "valuesKept": .bool(version.changes != nil)])
        }))
    }

    /// The value as JSON with a final newline: indented, or on one line.
    func json(_ value: PrefValue) throws {
        context.writeOutput(compact ? try JSONTextEncoder.encode(value, pretty: false) + [0x0A] : try PropertyList.encode(value, as: .json))
    }
}
