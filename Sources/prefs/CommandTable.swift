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
            name: "lint", operands: "FILE…",
            summary: "check that property-list and JSON files are well formed, like plutil -lint",
            options: [], operandCount: 1...Int.max, run: LintCommand.run),
        VerbSpec(
            name: "export", operands: "DOMAIN PATH|-",
            summary: "write a suite or a plist/JSON file in another format, to a file or standard output",
            options: [OptionSpec("format", value: "FORMAT", choices: formatNames, "xml (default), binary, openstep, json or typed-json")],
            operandCount: 2...2, run: ExportCommand.run),
        VerbSpec(
            name: "help", operands: "[VERB]",
            summary: "show help for prefs or for one verb",
            options: [], operandCount: 0...1, run: HelpCommand.run),
    ]

    static func verb(named name: String) -> VerbSpec? { verbs.first { $0.name == name } }
}
