import PrefsCore

/// The command table as the completion scripts see it: every verb with its options (`--help`
/// included) and what its operands are, the options that go before the verb, and the TYPE flags.
/// `BashScript`, `ZshScript` and `FishScript` each write it in their shell's syntax, beside the
/// functions that read it.
struct CompletionTable {
    struct Entry {
        let name: String
        let summary: String
        /// The verb's options, then the ones every verb takes.
        let options: [CompletionOption]
        /// What each operand is; with `repeatsLast`, the last goes on.
        let operands: [WordKind]
        let repeatsLast: Bool
        /// The operands end with `-- COMMAND [ARG...]` (`exec`).
        let runsCommand: Bool
    }

    let verbs: [Entry]
    /// The options before the verb: `--help` (also `-h`), `--version`, and those in `scope`.
    let global: [CompletionOption]

    init() {
        verbs = CommandTable.verbs.map { verb in
            Entry(name: verb.name, summary: verb.verb.summary, options: (verb.options + CommandTable.common).map(CompletionOption.init),
                  operands: verb.operandKinds, repeatsLast: verb.verb.operandCount.upperBound == Int.max, runsCommand: verb.verb.runsCommand)
        }
        global = CommandTable.global.map { option in
            // Arguments takes -h for --help before the verb, as after it.
            CompletionOption(option, extraShort: option.name == "help" ? "-h" : nil)
        }
    }

    /// The options before the verb that choose the suites (`--store URL`, `-currentHost`, `-host
    /// NAME`): the scripts skip them to find the verb, and give them to the prefs calls that list
    /// names.
    var scope: [CompletionOption] { global.filter { $0.name != "help" && $0.name != "version" } }

    /// The spellings of `scope` that are one word (`--store=URL`, `-currentHost`), as shell
    /// patterns, and those that take the next word as their value.
    var scopePatterns: (words: [String], pairs: [String]) {
        let words = scope.flatMap { option in option.takesValue ? (option.long.hasPrefix("--") ? [option.long + "=*"] : []) : [option.long] }
        return (words, scope.filter(\.takesValue).map(\.long))
    }

    /// The verbs' names grouped by a value they share, in the order they come (for scripts that give
    /// several verbs one branch).
    static func grouped<Value: Equatable>(_ entries: [Entry], by value: (Entry) -> Value) -> [(names: [String], value: Value)] {
        var groups: [(names: [String], value: Value)] = []
        for entry in entries {
            let found = value(entry)
            if let index = groups.firstIndex(where: { $0.value == found }) { groups[index].names.append(entry.name) } else { groups.append(([entry.name], found)) }
        }
        return groups
    }
}

/// An option as the scripts offer it: its spellings, what its value is, what it does.
struct CompletionOption: Equatable {
    let name: String
    /// `--name` (or `-name`), then the short spelling (`-0`), if any.
    let spellings: [String]
    /// What its value is; nil for an option that takes none.
    let kind: WordKind?
    let repeatable: Bool
    let summary: String

    init(_ option: OptionSpec) { self.init(option, extraShort: nil) }

    init(_ option: OptionSpec, extraShort: String?) {
        name = option.name
        spellings = [option.spelling] + (option.short.map { ["-\($0)"] } ?? []) + (extraShort.map { [$0] } ?? [])
        kind = option.value == nil ? nil : option.valueKind
        repeatable = option.repeatable
        summary = option.summary
    }

    var long: String { spellings[0] }
    var takesValue: Bool { kind != nil }
    var shorts: [String] { Array(spellings.dropFirst()) }
}

extension WordKind {
    /// How the scripts name the kind: one word, then the choices or the operand's index
    /// (`choice xml binary`, `key-list 0`).
    var scriptName: String {
        switch self {
        case .text: "text"
        case .file: "file"
        case .suite: "suite"
        case .domain: "domain"
        case .key: "key"
        case .storedKey: "stored-key"
        case .keyOrFile: "key-or-file"
        case .value: "value"
        case .verb: "verb"
        case .choice(let words): (["choice"] + words).joined(separator: " ")
        case .keyList(let operand): "key-list \(operand)"
        case .typed: "typed"
        }
    }
}

extension CompletionOption {
    /// The kind as the scripts name it: `flag` for no value; `...` after it when the option may be
    /// given again.
    var scriptKind: String { (kind?.scriptName ?? "flag") + (repeatable ? "..." : "") }
}

extension CompletionTable.Entry {
    /// The operand kinds as the scripts name them, the last one followed by `...` when it goes on.
    var scriptOperands: [String] {
        operands.enumerated().map { index, kind in kind.scriptName + (repeatsLast && index == operands.count - 1 ? "..." : "") }
    }
}

/// The TYPE flags (`TypeFlag.all`) in the groups the completions treat alike.
enum TypeFlagGroups {
    static var all: [String] { TypeFlag.all.map(\.name) }
    /// The flags that take one VALUE (also after `read --default`).
    static var scalars: [String] { TypeFlag.all.filter { $0.takes == .value }.map(\.name) }
    /// The flags whose VALUE is a boolean word.
    static let booleans = ["-bool", "-boolean"]
    static let booleanWords = ["true", "false", "yes", "no"]
    /// The flags whose VALUE is a FILE.
    static var files: [String] { TypeFlag.all.filter { $0.takes == .file }.map(\.name) }
    /// The flags whose VALUE may be @FILE (WriteRequest reads the file).
    static let fileReferences = ["-data", "-json"]
    /// The flags whose VALUE may be one of the choices a schema gives the KEY: the scalar ones but
    /// the booleans (their words are offered instead) and -json (a choice would need JSON quotes).
    static var choiceTyped: [String] { scalars.filter { !booleans.contains($0) && $0 != "-json" } }
}

/// Words as a shell reads them.
enum ShellWords {
    static let plainCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%")

    /// `word` for sh, bash and zsh: as it is when it holds only characters no shell gives a meaning,
    /// else in single quotes.
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { plainCharacters.contains($0) }
        return plain ? word : "'" + word.map { $0 == "'" ? #"'\''"# : String($0) }.joined() + "'"
    }

    /// `word` for fish: single quotes, in which only \ and ' are escaped.
    static func fishQuoted(_ word: String) -> String {
        "'" + word.map { $0 == "\\" || $0 == "'" ? "\\" + String($0) : String($0) }.joined() + "'"
    }

    /// The words joined with spaces, in lines of at most `width` characters after `indent`.
    static func wrapped(_ words: [String], indent: String, width: Int = 100) -> String {
        var lines: [String] = []
        var line = ""
        for word in words {
            if !line.isEmpty && indent.count + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { indent + $0 }.joined(separator: "\n")
    }
}
