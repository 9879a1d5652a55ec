import PrefsCore

/// How a verb prints what it found, resolved once from its output options (`--json`, `--compact`,
/// `--keys`, `--null`, `--raw`, `--origin`, `--format`): one form, and the printer of that form.
/// The combinations a verb refuses are refused before, by its `validate`; here every option given
/// has its one meaning, the same for each verb.
struct OutputForm: Sendable {
    enum Kind: Sendable {
        /// Scalars bare, containers in the readable text form, lists one item per line.
        case readable
        /// JSON; on one line when `compact`.
        case json(compact: Bool)
        /// The keys of a dictionary, one per item.
        case keys
        /// A string's or data value's bytes exactly.
        case raw
        /// A document of its own (`--format`).
        case document(DocumentEncoding)
    }

    let kind: Kind
    /// Each item of a list (a key, a match, a choice) ends with a NUL byte instead of a newline.
    var null = false
    /// Each value says where it came from.
    var origin = false
    /// With keys, only those it matches.
    var match: Glob?

    /// `--format` wins (with `--compact` and `--lossy` its options), then `--raw`, `--keys`, and
    /// `--json` or `--compact` (JSON on one line): else readable.
    init(json: Bool = false, compact: Bool = false, keys: Bool = false, null: Bool = false, raw: Bool = false, origin: Bool = false,
         format: PlistFormat? = nil, lossy: Bool = false, match: String? = nil) throws {
        if let format {
            kind = .document(try DocumentEncoding(format: format, lossy: lossy, compact: compact))
        } else if raw {
            kind = .raw
        } else if keys {
            kind = .keys
        } else if json || compact {
            kind = .json(compact: compact)
        } else {
            kind = .readable
        }
        self.null = null
        self.origin = origin
        self.match = match.map(Glob.init)
    }

    /// Whether values are printed as JSON (`--json`, or `--compact` alone).
    var isJSON: Bool {
        if case .json = kind { return true }
        return false
    }

    /// Whether values are printed in the readable form.
    var isReadable: Bool {
        if case .readable = kind { return true }
        return false
    }

    /// The printer of this form, writing to `context`'s standard output.
    func printer(_ context: CommandContext) -> any ValuePrinter {
        switch kind {
        case .readable: ReadablePrinter(form: self, context: context)
        case .json(let compact): JSONPrinter(form: self, context: context, compact: compact)
        case .keys: KeysPrinter(form: self, context: context)
        case .raw: RawPrinter(form: self, context: context)
        case .document(let encoding): DocumentPrinter(form: self, context: context, encoding: encoding)
        }
    }
}

extension Option {
    /// `--compact`, defined once for every verb that prints JSON: JSON on one line, and given
    /// alone it asks for JSON (`--json`; `export`'s JSON format). With `--format json` or
    /// `typed-json` it is that document's option (`DocumentEncoding`); with any other form, refused.
    static func compact(_ field: @escaping @Sendable (inout Values, Bool) -> Void) -> Option {
        .flag("compact", "print JSON on one line (given alone, it asks for JSON)", field)
    }
}
