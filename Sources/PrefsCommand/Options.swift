import PrefsCore

/// An option as the command line spells it: `--name`, `--name VALUE` (also `--name=VALUE`), and for a
/// few a short spelling (`-0`). The spelling side of `Option`, for parsing, `--help`, and the checks
/// against the man page and the completions.
struct OptionSpec: Sendable {
    let name: String
    /// The short spelling (`-0` for `--null`), if any.
    let short: Character?
    /// The placeholder shown in help when the option takes a value.
    let value: String?
    /// The only values accepted, when the set is closed.
    let choices: [String]
    /// Given more than once, every value counts (else the last one).
    let repeatable: Bool
    let summary: String
    /// The value may be a scalar TYPE flag and its VALUE, two words (`--default -int 30`).
    var typedValue = false
    /// Spelled with one dash, as `defaults` spells its options (`-currentHost`).
    var singleDash = false
    /// What its value is, for the completions (a closed set: its choices; `typedValue`: typed).
    var valueKind = WordKind.text

    /// The option as typed: `--name`, or `-name`.
    var spelling: String { (singleDash ? "-" : "--") + name }
}

/// An option bound to a field of its verb's options: declared once with its type and arity, parsed
/// and validated into that field before the command runs. Nothing reads an option by its name.
/// The field is set by a closure (`{ $0.json = $1 }`), not a key path: a key path is built by the
/// runtime on first use, which would build every verb's at each start.
struct Option<Values>: Sendable {
    let spec: OptionSpec
    /// Sets the field from every value given for the option (in order; "" for a flag).
    let set: @Sendable (inout Values, [String]) throws -> Void

    /// `--name`: true when given.
    static func flag(_ name: String, short: Character? = nil, _ summary: String, _ field: @escaping @Sendable (inout Values, Bool) -> Void) -> Option {
        Option(spec: OptionSpec(name: name, short: short, value: nil, choices: [], repeatable: false, summary: summary)) { values, _ in
            field(&values, true)
        }
    }

    /// `--name VALUE`: the last value given; `completing` says what VALUE is.
    static func text(_ name: String, _ placeholder: String, _ summary: String, completing kind: WordKind = .text,
                     _ field: @escaping @Sendable (inout Values, String?) -> Void) -> Option {
        let spec = OptionSpec(name: name, short: nil, value: placeholder, choices: [], repeatable: false, summary: summary, valueKind: kind)
        return Option(spec: spec) { values, given in field(&values, given.last) }
    }

    /// `--name VALUE`, repeatable: every value, in order; `completing` says what VALUE is.
    static func list(_ name: String, _ placeholder: String, _ summary: String, completing kind: WordKind = .text,
                     _ field: @escaping @Sendable (inout Values, [String]) -> Void) -> Option {
        let spec = OptionSpec(name: name, short: nil, value: placeholder, choices: [], repeatable: true, summary: summary, valueKind: kind)
        return Option(spec: spec) { values, given in field(&values, given) }
    }

    /// `--name VALUE` from a closed set: the last value given, one of the cases.
    static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(_ name: String, _ placeholder: String, _ summary: String,
                                                                           _ field: @escaping @Sendable (inout Values, Choice?) -> Void) -> Option
        where Choice.RawValue == String {
        let choices = Choice.allCases.map(\.rawValue)
        let spec = OptionSpec(name: name, short: nil, value: placeholder, choices: choices, repeatable: false, summary: summary, valueKind: .choice(choices))
        return Option(spec: spec) { values, given in field(&values, given.last.flatMap(Choice.init(rawValue:))) }
    }

    /// `--name [TYPE] VALUE`: the last value given, typed later as `write` types it.
    static func typed(_ name: String, _ summary: String, _ field: @escaping @Sendable (inout Values, TypedText?) -> Void) -> Option {
        let spec = OptionSpec(name: name, short: nil, value: "[TYPE] VALUE", choices: [], repeatable: false, summary: summary, typedValue: true,
                              valueKind: .typed)
        return Option(spec: spec) { values, given in field(&values, TypedText.occurrences(given).last) }
    }

    /// `--name SECONDS`: a finite number of seconds, 0 or more.
    static func seconds(_ name: String, _ summary: String, _ field: @escaping @Sendable (inout Values, Double?) -> Void) -> Option {
        Option(spec: OptionSpec(name: name, short: nil, value: "SECONDS", choices: [], repeatable: false, summary: summary)) { values, given in
            guard let text = given.last else { return }
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw PrefsError.usage("--\(name) takes a number of seconds, not '\(text)'")
            }
            field(&values, seconds)
        }
    }
}

/// The options every verb that changes a suite takes.
protocol ChangeOptions: SendableMetatype {
    var exitCode: Bool { get set }
    var dryRun: Bool { get set }
}

extension Option where Values: ChangeOptions {
    static var exitCode: Option { .flag("exit-code", "exit 3 when something changed, 0 when everything was already so") { $0.exitCode = $1 } }
    static var dryRun: Option { .flag("dry-run", "print what would change (+ added, - removed, ~ replaced) and change nothing") { $0.dryRun = $1 } }
}

/// The options of the verbs that read what an application sees.
protocol LayerOptions: SendableMetatype {
    var origin: Bool { get set }
    var stored: Bool { get set }
    var defaults: [String] { get set }
}

extension LayerOptions {
    var scope: ReadScope { ReadScope(storedOnly: stored, defaults: defaults) }
}

extension Option where Values: LayerOptions {
    static var origin: Option { .flag("origin", "say where each value came from: managed:FILE, stored, global, system:FILE, registered:FILE, command-line or schema:FILE") { $0.origin = $1 } }
    static var stored: Option { .flag("stored", "only the suite's own stored values, no global suite or registered defaults") { $0.stored = $1 } }
    static var defaults: Option {
        .list("defaults", "FILE", "registered defaults for this run only (a plist or JSON dictionary; repeatable, a later one wins)",
              completing: .file) { $0.defaults = $1 }
    }
}

/// The options of the verbs that write a value as a document (`export`, `read --format`).
protocol DocumentOptions: SendableMetatype {
    var lossy: Bool { get set }
}

extension Option where Values: DocumentOptions {
    static var lossy: Option {
        .flag("lossy", "with JSON, write dates as ISO 8601 strings and data as base64 (else they are refused: JSON has no such types)") { $0.lossy = $1 }
    }
}

/// The options of the verbs that may answer from the host's snapshot of a suite read from a remote
/// store (`read`, `exec`, `export`).
protocol SnapshotOptions: SendableMetatype {
    var maxStale: Double? { get set }
    var fallbackCache: Bool { get set }
}

extension SnapshotOptions {
    /// The options, `$PREFS_FALLBACK_CACHE` counting as `--fallback-cache`.
    func snapshotPolicy(_ environment: Environment) throws -> SnapshotPolicy {
        SnapshotPolicy(maxStale: maxStale, fallback: try fallbackCache || environment.fallbackCache())
    }
}

extension Option where Values: SnapshotOptions {
    static var maxStale: Option {
        .seconds("max-stale", "on etcd, answer from this host's snapshot of the suite when the store confirmed it at most SECONDS ago, without asking the store") {
            $0.maxStale = $1
        }
    }
    static var fallbackCache: Option {
        .flag("fallback-cache", "on etcd, answer from this host's snapshot of the suite when no endpoint answers (one line on standard error says so); also PREFS_FALLBACK_CACHE=1") {
            $0.fallbackCache = $1
        }
    }
}
