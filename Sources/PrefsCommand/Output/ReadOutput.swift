import PrefsCore

/// How `read` prints what it found, as its options ask: readable, JSON, keys (ended by newlines or
/// NULs), with origins, or raw bytes.
struct ReadOutput {
    let values: ReadCommand.Values
    let context: CommandContext
    /// The snapshot that answered, if one did (`--max-stale`, `--fallback-cache`): origins say so.
    var snapshot: SnapshotAnswer?

    init(values: ReadCommand.Values, context: CommandContext) {
        self.values = values
        self.context = context
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

    /// The combinations `read` refuses, before anything is read.
    static func check(_ values: ReadCommand.Values) throws {
        guard !(values.json && values.keys) else { throw PrefsError.usage("read: --json and --keys cannot be combined") }
        guard values.match == nil || values.keys else { throw PrefsError.usage("read: --match needs --keys") }
        if values.null {
            guard values.keys else { throw PrefsError.usage("read: --null needs --keys") }
            guard !values.origin else { throw PrefsError.usage("read: --null and --origin cannot be combined") }
        }
        if values.raw {
            for (given, name) in [(values.json, "json"), (values.keys, "keys"), (values.origin, "origin")] where given {
                throw PrefsError.usage("read: --raw and --\(name) cannot be combined")
            }
        }
        if values.format != nil {
            for (given, name) in [(values.json, "json"), (values.keys, "keys"), (values.raw, "raw"), (values.origin, "origin")] where given {
                throw PrefsError.usage("read: --format and --\(name) cannot be combined")
            }
        }
        if values.compact && values.format == nil {
            for (given, name) in [(values.keys, "keys"), (values.raw, "raw")] where given {
                throw PrefsError.usage("read: --compact and --\(name) cannot be combined (--compact prints JSON)")
            }
        }
        _ = try encoding(values)
    }

    /// How `--format` writes the value (nil: read's own forms, where `--compact` is `--json` on one
    /// line); `--lossy` needs it.
    static func encoding(_ values: ReadCommand.Values) throws -> DocumentEncoding? {
        guard let format = values.format else {
            guard !values.lossy else { throw PrefsError.usage("read: --lossy needs --format") }
            return nil
        }
        return try DocumentEncoding(format: format, lossy: values.lossy, compact: values.compact)
    }

    func print(everySuite every: SuiteStore.EverySuite) throws {
        context.report(every)
        var all = PrefDictionary()
        for (domain, contents) in every.suites { all[domain.displayName] = .dictionary(contents) }
        if let encoding = try ReadOutput.encoding(values) { return context.writeOutput(try encoding.encode(.dictionary(all))) }
        try print(.dictionary(all), domain: "", key: nil, abbreviatingData: true)
    }

    func print(suite: Layers.Resolved, domain: Domain) throws {
        if let encoding = try ReadOutput.encoding(values) { return context.writeOutput(try encoding.encode(.dictionary(suite.values))) }
        guard values.origin else { return try print(.dictionary(suite.values), domain: domain.displayName, key: nil, abbreviatingData: true) }
        if values.json {
            var described = PrefDictionary()
            for (entry, origin) in zip(suite.values, suite.origins) { described[entry.key] = ReadOutput.withOrigin(entry.value, shown(origin)) }
            context.writeOutput(try ValueOutput.text(.dictionary(described), json: true, compact: values.compact))
            return
        }
        let glob = values.match.map(Glob.init)
        context.writeOutput(Array(zip(suite.values, suite.origins).filter { !values.keys || glob?.matches($0.0.key) ?? true }.map { entry, origin in
            "\(shown(origin, key: entry.key))\t\(ValueOutput.quotedIfNeeded(entry.key))" + (values.keys ? "" : "\t" + ValueOutput.line(entry.value, abbreviatingData: true)) + "\n"
        }.joined().utf8))
    }

    func print(value: PrefValue, origin: Origin, domain: Domain, key: PrefKeyPath) throws {
        if let encoding = try ReadOutput.encoding(values) { return context.writeOutput(try encoding.encode(value)) }
        guard values.origin else { return try print(value, domain: domain.displayName, key: key.display) }
        if values.json {
            context.writeOutput(try ValueOutput.text(ReadOutput.withOrigin(value, shown(origin)), json: true, compact: values.compact))
        } else if values.keys {
            context.writeOutput(Array(try keys(of: value, domain: domain.displayName, key: key.display).map { "\(shown(origin))\t\($0)\n" }.joined().utf8))
        } else {
            context.writeOutput(Array("\(shown(origin, key: key.first))\t".utf8) + (try ValueOutput.text(value, json: false)))
        }
    }

    /// `--raw`: the bytes exactly, with no newline; a blob streams to standard output when it is a
    /// real descriptor.
    func print(raw: RawValue) throws {
        switch raw {
        case .bytes(let bytes): context.writeOutput(bytes)
        case .blob(let blob):
            if let descriptor = context.outputDescriptor { try blob.copy(toOutput: descriptor) } else { context.writeOutput(try blob.bytes()) }
        }
    }

    /// An external string or data value in its bare form, streamed from its blob (checked as it
    /// goes: a damaged blob fails at its end, after what came before was printed): a string's
    /// bytes, or data as hexadecimal, then a newline.
    func print(blob: Blob, origin: Origin) throws {
        if values.origin { context.writeOutput(Array("\(shown(origin))\t".utf8)) }
        let digits = Array("0123456789abcdef".utf8)
        try blob.forEachChunk { chunk in
            if let failure = context.outputFailure() { throw PrefsError.outputFailed(errno: failure) }
            guard blob.kind == .data else { return context.writeOutput(Array(chunk)) }
            var hex = [UInt8](repeating: 0, count: chunk.count * 2)
            for (i, byte) in chunk.enumerated() {
                hex[2 * i] = digits[Int(byte >> 4)]
                hex[2 * i + 1] = digits[Int(byte & 0xF)]
            }
            context.writeOutput(hex)
        }
        context.writeOutput([0x0A])
    }

    /// A value as `read` prints it: readable, JSON, or its keys. A whole suite (`abbreviatingData`)
    /// shows large data values abbreviated; `read S K`, `--raw` and `--json` give them whole.
    func print(_ value: PrefValue, domain: String, key: String?, abbreviatingData: Bool = false) throws {
        guard values.keys else {
            return context.writeOutput(try ValueOutput.text(value, json: values.json, compact: values.compact, abbreviatingData: abbreviatingData))
        }
        let end = values.null ? "\0" : "\n"
        context.writeOutput(Array(try keys(of: value, domain: domain, key: key).map { $0 + end }.joined().utf8))
    }

    /// The keys of a dictionary, only those `--match` matches when given.
    func keys(of value: PrefValue, domain: String, key: String?) throws -> [String] {
        let glob = values.match.map(Glob.init)
        return try ReadOutput.keys(of: value, domain: domain, key: key).filter { glob?.matches($0) ?? true }
    }

    static func keys(of value: PrefValue, domain: String, key: String?) throws -> [String] {
        guard case .dictionary(let dictionary) = value else {
            throw PrefsError.typeMismatch(domain: domain, key: key ?? "", reason: "--keys needs a dictionary, and the value is \(value.typeNameWithArticle)")
        }
        return dictionary.keys
    }

    static func withOrigin(_ value: PrefValue, _ origin: String) -> PrefValue {
        ["origin": .string(origin), "value": value]
    }
}
