import PrefsCore

/// What was typed, before anything is looked up or opened: the verb, its options and its operands.
struct Invocation: Equatable, Sendable {
    enum Action: Equatable, Sendable {
        case verb(String)
        case help
        case version
        /// No verb at all: the usage on standard error, 64 (as `git` alone prints its usage).
        case usage
    }

    var action: Action
    /// Option name (without `--`) → the values given, in order ("" for an option without a value);
    /// only `VerbSpec.run` reads it, typing each value into its verb's options.
    var options: [String: [String]] = [:]
    var operands: [String] = []
    /// `--store URL` given before the verb (else `$PREFS_STORE`, else the file store).
    var store: String?
    /// `-currentHost` or `-host NAME` given before the verb.
    var host: HostOption?
    /// Whether the verb's help was asked for (`--help` or `-h` anywhere before `--`).
    var wantsHelp: Bool { options["help"] != nil }
}

/// Stage one of parsing: argv → `Invocation`, against the command table, with no I/O.
///
/// Words starting with `--` are options (`--name`, `--name VALUE`, `--name=VALUE`) and must be known
/// to the verb; `--` ends options. A word that is exactly the short spelling of one of the verb's
/// options (`-0` for `--null` on `domains`, `read` and `find`) is that option. Every other word,
/// including `-` and words like `-int` or `-5` (and `-0` for the other verbs), is an operand, so
/// `defaults`-style typed values pass through untouched; an operand spelled like a short option goes
/// after `--`. `-h` is `--help` anywhere before `--` (an operand `-h` goes after `--` too).
enum Arguments {
    static func parse(_ arguments: [String]) throws -> Invocation {
        var arguments = arguments[...]
        var store: String?
        var host: HostOption?
        // Options before the verb: `--store URL` (also `--store=URL`), `-currentHost`, `-host NAME`.
        while let word = arguments.first {
            if try HostOption.take(&arguments, into: &host) { continue }
            guard word == "--store" || word.hasPrefix("--store=") else { break }
            arguments = arguments.dropFirst()
            if let equals = word.firstIndex(of: "=") {
                store = String(word[word.index(after: equals)...])
            } else {
                guard let url = arguments.popFirst() else { throw PrefsError.usage("--store needs a value (URL)") }
                store = url
            }
        }
        guard let first = arguments.first else { return Invocation(action: .usage) }
        switch first {
        case "--help", "-h": return Invocation(action: .help)
        case "--version": return Invocation(action: .version)
        default: break
        }
        guard let verb = CommandTable.verb(named: first) else {
            if first.hasPrefix("-") {
                let hint = Suggestions.versionSpellings.contains(first)
                    ? " (did you mean --version?)" : Suggestions.hint(for: first, among: CommandTable.global.map(\.spelling))
                throw PrefsError.usage("unknown option '\(first)'\(hint.isEmpty ? " (see prefs --help)" : hint)")
            }
            let hint = Suggestions.verbHint(for: first)
            throw PrefsError.usage("unknown verb '\(first)'\(hint.isEmpty ? " (see prefs --help)" : hint)")
        }
        var invocation = Invocation(action: .verb(verb.name))
        invocation.store = store
        invocation.host = host
        var rest = arguments.dropFirst()
        var optionsEnded = false
        while let word = rest.popFirst() {
            if !optionsEnded && word == "-h" {
                invocation.options["help", default: []].append("")
                continue
            }
            if !optionsEnded, let spec = shortOption(word, of: verb) {
                invocation.options[spec.name, default: []].append(try value(for: spec, verb: verb, attached: nil, rest: &rest))
                continue
            }
            guard !optionsEnded, word.hasPrefix("--") else {
                invocation.operands.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                if verb.verb.runsCommand { invocation.operands.append(word) }
                continue
            }
            let (name, attached) = splitOption(word)
            guard let spec = verb.option(named: name) else {
                // `--bool`: type flags take one dash, as in defaults.
                let hint = TypeFlag.named("-" + name) != nil ? " (did you mean -\(name)? type flags take one dash)"
                    : Suggestions.hint(for: "--" + name, among: (verb.options + CommandTable.common).map { "--" + $0.name })
                throw PrefsError.usage("\(verb.name): unknown option '--\(name)'\(hint.isEmpty ? " (see prefs help \(verb.name))" : hint)")
            }
            invocation.options[name, default: []].append(try value(for: spec, verb: verb, attached: attached, rest: &rest))
            // `--default -int 30`: a scalar type flag takes the word after it as its VALUE.
            if spec.typedValue, let flag = invocation.options[name]?.last, TypeFlag.isScalar(flag) {
                guard let text = rest.popFirst() else {
                    throw PrefsError.usage("\(verb.name): --\(name) \(flag) needs a value")
                }
                invocation.options[name, default: []].append(text)
            }
        }
        if invocation.wantsHelp { return invocation }
        try checkCount(invocation.operands, of: verb)
        return invocation
    }

    /// The verb takes this many operands; else a usage error naming the word too many (or the
    /// usage, for too few).
    static func checkCount(_ operands: [String], of verb: VerbSpec) throws {
        let most = verb.verb.operandCount.upperBound
        guard operands.count <= most else {
            // One word too many: the one spelled like an option (`-json`), else the first beyond.
            if let slip = singleDashSlip(operands, verb: verb) {
                throw PrefsError.usage("\(verb.name): unexpected argument '\(slip)' (\(slip) is not an option: did you mean -\(slip)?)")
            }
            throw PrefsError.usage("\(verb.name): unexpected argument '\(operands[most])' (usage: \(verb.usage))")
        }
        guard verb.verb.operandCount.contains(operands.count) else {
            throw PrefsError.usage("usage: \(verb.usage)" + (singleDashSlip(operands, verb: verb).map { " (\($0) is not an option: did you mean -\($0)?)" } ?? ""))
        }
    }

    /// An operand that is one of the verb's long options spelled with one dash (`-json`), as
    /// `defaults` spells its flags.
    static func singleDashSlip(_ operands: [String], verb: VerbSpec) -> String? {
        operands.first { word in
            word.hasPrefix("-") && !word.hasPrefix("--") && word.count > 2 && verb.option(named: String(word.dropFirst())) != nil
        }
    }

    /// The option `word` spells as `-C`, when the verb has one with that short spelling.
    static func shortOption(_ word: String, of verb: VerbSpec) -> OptionSpec? {
        guard word.count == 2, word.first == "-", let character = word.last, character != "-" else { return nil }
        return verb.option(short: character)
    }

    static func splitOption(_ word: String) -> (String, String?) {
        let body = word.dropFirst(2)
        guard let equals = body.firstIndex(of: "=") else { return (String(body), nil) }
        return (String(body[..<equals]), String(body[body.index(after: equals)...]))
    }

    static func value(for spec: OptionSpec, verb: VerbSpec, attached: String?, rest: inout ArraySlice<String>) throws -> String {
        guard let placeholder = spec.value else {
            guard attached == nil else { throw PrefsError.usage("\(verb.name): --\(spec.name) takes no value") }
            return ""
        }
        guard let value = attached ?? rest.popFirst() else {
            throw PrefsError.usage("\(verb.name): --\(spec.name) needs a value (\(placeholder))")
        }
        guard spec.choices.isEmpty || spec.choices.contains(value) else {
            throw PrefsError.usage("\(verb.name): --\(spec.name) must be one of \(spec.choices.joined(separator: ", ")), not '\(value)'")
        }
        return value
    }
}
