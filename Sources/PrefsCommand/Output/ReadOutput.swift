import PrefsCore

/// How `read` prints what it found, in the form its options resolve to (`OutputForm`): the values
/// of every suite, of a suite or at a key, their origins (`--origin`, with a stored key's deadline
/// and the snapshot that answered, if one did), raw bytes, or a blob streamed.
struct ReadOutput {
    let form: OutputForm
    let printer: any ValuePrinter
    let context: CommandContext
    /// The snapshot that answered, if one did (`--max-stale`, `--fallback-cache`): origins say so.
    var snapshot: SnapshotAnswer?

    init(form: OutputForm, context: CommandContext) {
        self.form = form
        self.context = context
        printer = form.printer(context)
    }

    /// How `--origin` names a value's layer.
    func shown(_ origin: Origin) -> String { SnapshotOutput.origin(origin, snapshot) }

    /// The deadlines of the domain's own stored keys, for `--origin` (`stored, expires …Z (in 12m)`).
    var deadlines: [(key: String, deadline: PrefDate)] = []

    /// `--origin`'s text for a top-level key's value: its layer, and its deadline when it has one.
    func shown(_ origin: Origin, key: String) -> String {
        guard origin == .stored, let found = deadlines.first(where: { $0.key.utf8.elementsEqual(key.utf8) }) else { return shown(origin) }
        return shown(origin) + ", " + Expiry.describe(found.deadline)
    }

    func print(everySuite every: SuiteStore.EverySuite) throws {
        context.report(every)
        var all = PrefDictionary()
        for (domain, contents) in every.suites { all[domain.displayName] = .dictionary(contents) }
        try printer.value(.dictionary(all), ValuePlace(domain: "", key: nil, wholeSuite: true), origin: nil)
    }

    func print(suite: Layers.Resolved, domain: Domain) throws {
        let place = ValuePlace(domain: domain.displayName, key: nil, wholeSuite: true)
        guard form.origin else { return try printer.value(.dictionary(suite.values), place, origin: nil) }
        // With a stored key's deadline, when `deadlines` were read (not for JSON).
        let entries = zip(suite.values, suite.origins).map { entry, origin in
            OriginEntry(key: entry.key, value: entry.value, origin: shown(origin, key: entry.key))
        }
        try printer.entries(entries, place)
    }

    func print(value: PrefValue, origin: Origin, domain: Domain, key: PrefKeyPath) throws {
        // The readable form says a stored key's deadline; JSON and keys name the layer only.
        let shown = !form.origin ? nil : form.isReadable ? shown(origin, key: key.first) : shown(origin)
        try printer.value(value, ValuePlace(domain: domain.displayName, key: key.display), origin: shown)
    }

    /// `--raw`: the bytes exactly, with no newline; a blob streams to standard output when it is a
    /// real descriptor.
    func print(raw: RawValue) throws { try RawPrinter(form: form, context: context).raw(raw) }

    /// An external string or data value in its bare form, streamed from its blob.
    func print(blob: Blob, origin: Origin) throws {
        try ReadablePrinter(form: form, context: context).blob(blob, origin: form.origin ? shown(origin) : nil)
    }
}
