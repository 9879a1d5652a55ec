import PrefsCore

/// An option a verb accepts: `--name` or `--name VALUE` (also `--name=VALUE`).
struct OptionSpec: Sendable {
    let name: String
    /// The placeholder shown in help when the option takes a value.
    let value: String?
    /// The only values accepted, when the set is closed.
    let choices: [String]
    let summary: String

    init(_ name: String, value: String? = nil, choices: [String] = [], _ summary: String) {
        self.name = name
        self.value = value
        self.choices = choices
        self.summary = summary
    }
}

/// A verb: its synopsis, what it does, its options, how many operands it takes, and the code that
/// runs it. `CommandTable.verbs` is the one list that parsing, `--help`, and the consistency tests
/// against the man page, completions and README all read.
struct VerbSpec: Sendable {
    let name: String
    let operands: String
    let summary: String
    let options: [OptionSpec]
    let operandCount: ClosedRange<Int>
    let run: @Sendable (Invocation, CommandContext) throws -> ExitStatus

    var usage: String { "prefs \(name)" + (operands.isEmpty ? "" : " \(operands)") }

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name } ?? CommandTable.common.first { $0.name == name }
    }
}

enum CommandTable {
    static let version = "0.1.0"

    static let formatNames = PlistFormat.allCases.map(\.rawValue)

    /// Options every verb accepts.
    static let common = [OptionSpec("help", "show help for this verb")]

    /// Options accepted before the verb.
    static let global = [
        OptionSpec("help", "show this help (also -h)"),
        OptionSpec("version", "print the version"),
    ]

    static let verbs: [VerbSpec] = [
        VerbSpec(
            name: "read", operands: "[DOMAIN [KEY]]",
            summary: "print a value (a scalar bare, for $(...)), a suite, or every suite",
            options: [OptionSpec("json", "print JSON instead of the readable form"),
                      OptionSpec("keys", "print the keys of the suite (or of the dictionary at KEY), one per line")],
            operandCount: 0...2, run: ReadCommand.run),
        VerbSpec(
            name: "read-type", operands: "DOMAIN KEY",
            summary: "print the type of a value (string, integer, float, boolean, date...)",
            options: [], operandCount: 2...2, run: ReadTypeCommand.run),
        VerbSpec(
            name: "write", operands: "DOMAIN KEY [TYPE] VALUE... | DOMAIN PLIST",
            summary: "set values, typed as defaults types them, in one locked write",
            options: [], operandCount: 2...Int.max, run: WriteCommand.run),
        VerbSpec(
            name: "delete", operands: "DOMAIN [KEY]",
            summary: "remove a key, or the whole suite",
            options: [], operandCount: 1...2, run: DeleteCommand.run),
        VerbSpec(
            name: "rename", operands: "DOMAIN OLD NEW",
            summary: "move a value to a new key",
            options: [], operandCount: 3...3, run: RenameCommand.run),
        VerbSpec(
            name: "domains", operands: "",
            summary: "list the suites, one per line",
            options: [], operandCount: 0...0, run: DomainsCommand.run),
        VerbSpec(
            name: "find", operands: "WORD",
            summary: "find suites, keys and string values that contain WORD",
            options: [OptionSpec("json", "print the matches as JSON")],
            operandCount: 1...1, run: FindCommand.run),
        VerbSpec(
            name: "lint", operands: "FILE...",
            summary: "check property-list and JSON files, like plutil -lint",
            options: [], operandCount: 1...Int.max, run: LintCommand.run),
        VerbSpec(
            name: "export", operands: "DOMAIN PATH|-",
            summary: "write a suite or a file in another format",
            options: [OptionSpec("format", value: "FORMAT", choices: formatNames, "xml (default), binary, openstep, json or typed-json")],
            operandCount: 2...2, run: ExportCommand.run),
        VerbSpec(
            name: "help", operands: "[VERB]",
            summary: "show help for prefs or for one verb",
            options: [], operandCount: 0...1, run: HelpCommand.run),
    ]

    static func verb(named name: String) -> VerbSpec? { verbs.first { $0.name == name } }
}
