import PrefsCore

/// A value as a document of its own (`--format`, as `plutil -extract` writes one): its root may be
/// a dictionary, an array or a scalar.
struct DocumentPrinter: ValuePrinter {
    let form: OutputForm
    let context: CommandContext
    let encoding: DocumentEncoding

    func value(_ value: PrefValue, _ place: ValuePlace, origin: String?) throws {
        context.writeOutput(try encoding.encode(value))
    }

    /// The suite's values as one dictionary (a document has no place for origins).
    func entries(_ entries: [OriginEntry], _ place: ValuePlace) throws {
        var values = PrefDictionary()
        for entry in entries { values[entry.key] = entry.value }
        try value(.dictionary(values), place, origin: nil)
    }
}
