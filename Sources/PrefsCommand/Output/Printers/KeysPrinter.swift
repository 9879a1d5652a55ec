import PrefsCore

/// The keys of a dictionary (`--keys`), one per item, only those `--match` matches; with an origin
/// (`--origin`), `ORIGIN<tab>KEY` per line.
struct KeysPrinter: ValuePrinter {
    let form: OutputForm
    let context: CommandContext

    func value(_ value: PrefValue, _ place: ValuePlace, origin: String?) throws {
        let keys = try Self.keys(of: value, place).filter { form.match?.matches($0) ?? true }
        write(keys.map { key in origin.map { "\($0)\t\(key)\n" } ?? key + end }.joined())
    }

    /// `ORIGIN<tab>KEY` per key, the key quoted where needed.
    func entries(_ entries: [OriginEntry], _ place: ValuePlace) throws {
        write(entries.filter { form.match?.matches($0.key) ?? true }.map { "\($0.origin)\t\(ValueOutput.quotedIfNeeded($0.key))\n" }.joined())
    }
}
