import PrefsCore

/// Prints what a verb found in one output form (etcdctl's `printer.go` shape): one method per kind
/// of result, one printer per form (`ReadablePrinter`, `JSONPrinter`, `KeysPrinter`, `RawPrinter`,
/// `DocumentPrinter`), chosen once by `OutputForm.printer`. A form prints a result it has no form
/// of its own for (the keys of `find`'s matches, a document of `watch`'s changes: no verb offers
/// those) as the readable form prints it.
protocol ValuePrinter: Sendable {
    var form: OutputForm { get }
    var context: CommandContext { get }

    /// A value (`read`): at a key, a suite or every suite (`place.wholeSuite`: large data
    /// abbreviated in the readable form); `origin`, with `--origin`, the layer it came from.
    func value(_ value: PrefValue, _ place: ValuePlace, origin: String?) throws
    /// A suite's top-level values with the layer of each (`read DOMAIN --origin`).
    func entries(_ entries: [OriginEntry], _ place: ValuePlace) throws
    /// `find`'s matches; `deadlines`: each match's value is the date its key expires (`--expiring`).
    func matches(_ matches: [FindMatch], deadlines: Bool) throws
    /// `watch`'s changes of a suite's values.
    func changes(_ changes: [WatchChange], in domain: Domain)
    /// `history`'s versions, newest first.
    func versions(_ versions: [SuiteVersion]) throws
    /// Words, one per item (`describe --choices`).
    func words(_ words: [String])
}

/// Where a printed value is, for the refusal of a form it has no shape for (`--keys` of a string)
/// and for how much of it is shown.
struct ValuePlace {
    let domain: String
    let key: String?
    /// A whole suite (or every suite): the readable form abbreviates data over 64 bytes inside it.
    var wholeSuite = false
}

/// A top-level key of a suite, its value and where that came from (`--origin`'s text).
struct OriginEntry {
    let key: String
    let value: PrefValue
    let origin: String
}

extension ValuePrinter {
    /// The readable printer of the same options, for the results this form has no shape of its own for.
    var readable: ReadablePrinter { ReadablePrinter(form: form, context: context) }

    /// What ends an item of a list: a NUL byte with `--null`, else a newline.
    var end: String { form.null ? "\0" : "\n" }

    func entries(_ entries: [OriginEntry], _ place: ValuePlace) throws { try readable.entries(entries, place) }
    func matches(_ matches: [FindMatch], deadlines: Bool) throws { try readable.matches(matches, deadlines: deadlines) }
    func changes(_ changes: [WatchChange], in domain: Domain) { readable.changes(changes, in: domain) }
    func versions(_ versions: [SuiteVersion]) throws { try readable.versions(versions) }
    func words(_ words: [String]) { readable.words(words) }

    func write(_ text: String) { context.writeOutput(Array(text.utf8)) }

    /// The keys of a dictionary value; any other value has none (typeMismatch, 65).
    static func keys(of value: PrefValue, _ place: ValuePlace) throws -> [String] {
        guard case .dictionary(let dictionary) = value else {
            throw PrefsError.typeMismatch(domain: place.domain, key: place.key ?? "",
                                          reason: "--keys needs a dictionary, and the value is \(value.typeNameWithArticle)")
        }
        return dictionary.keys
    }

    /// `{"origin": ORIGIN, "value": VALUE}`: a value with its origin, as JSON shows it.
    static func withOrigin(_ value: PrefValue, _ origin: String) -> PrefValue {
        ["origin": .string(origin), "value": value]
    }
}
