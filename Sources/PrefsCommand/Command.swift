import PrefsCore

/// What a verb's options are parsed into: a plain value with a field per option.
protocol CommandValues: Sendable {
    init()
}

/// A verb: what `--help` says of it, its typed options, and the code that runs it — parses the
/// operands, calls one PrefsCore operation, prints.
/// (`SendableMetatype`: the command table's `@Sendable` closures call the command's static members.)
protocol Command: SendableMetatype {
    associatedtype Values: CommandValues
    static var verb: Verb { get }
    /// What each operand is, for the completions; when the verb takes any number of operands, the
    /// last kind goes on. (Not in `Verb`: every start builds each verb's `Verb`, and only
    /// `prefs completion` reads these.)
    static var operandKinds: [WordKind] { get }
    static var options: [Option<Values>] { get }
    /// Refuses (64) options that do not go together, and operands of the wrong shape, before
    /// anything is read or the store is opened (argument-parser's `validate()`); by default nothing.
    static func validate(_ values: Values, _ operands: [String]) throws
    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus
    /// The context the verb runs in: fenced by `--fence` for the verbs that take it (`FenceOptions`).
    static func fenced(_ values: Values, _ context: CommandContext) throws -> CommandContext
}

/// What `--help`, the man page's synopsis and the completions say of a verb.
struct Verb: Sendable {
    let name: String
    let operands: String
    let summary: String
    let operandCount: ClosedRange<Int>
    /// More about the operands, for `prefs help VERB` (the man page has everything).
    var details = ""
    /// The operands end with `-- COMMAND [ARG...]`: the `--` is kept as an operand, so the command
    /// can tell its own operands from the COMMAND's (`exec`).
    var runsCommand = false
}

/// A verb in the command table: its description, the spellings of its options, and its command with
/// the options typed. `CommandTable.verbs` is the one list that parsing, `--help`, and the
/// consistency tests against the man page, completions and README (which names every verb) all read.
struct VerbSpec: Sendable {
    let verb: Verb
    /// The command, for what only `prefs completion` asks of it (`operandKinds`).
    let command: any Command.Type
    /// The spellings of the verb's options, built when first asked for: a run builds only its own
    /// verb's options, not every verb's.
    private let optionSpecs: @Sendable () -> [OptionSpec]
    /// Types the options (validating every value), validates them together (`Command.validate`)
    /// and runs the command; nothing has happened before.
    let run: @Sendable (Invocation, CommandContext) throws -> ExitStatus

    init<C: Command>(_ command: C.Type) {
        verb = C.verb
        self.command = command
        optionSpecs = { C.options.map(\.spec) }
        run = { invocation, context in
            var values = C.Values()
            for option in C.options {
                guard let given = invocation.options[option.spec.name] else { continue }
                try option.set(&values, given)
            }
            try C.validate(values, invocation.operands)
            var context = try C.fenced(values, context)
            context.store.changeVerb = C.verb.name
            return try C.run(values, invocation.operands, context)
        }
    }

    var options: [OptionSpec] { optionSpecs() }
    var operandKinds: [WordKind] { command.operandKinds }
    var name: String { verb.name }
    /// Whether the verb changes stored data: it has `--dry-run` (no "did you mean" leads to it
    /// from a word that is more than one slip away).
    var changesData: Bool { options.contains { $0.name == "dry-run" } }
    var usage: String { "prefs \(verb.name)" + (verb.operands.isEmpty ? "" : " \(verb.operands)") }

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name } ?? CommandTable.common.first { $0.name == name }
    }

    func option(short: Character) -> OptionSpec? { options.first { $0.short == short } }
}

extension ChangeOptions {
    /// The status of a command that changed something (3 with `--exit-code`) or found it already so.
    func status(_ outcome: ChangeOutcome) -> ExitStatus { outcome.changed && exitCode ? .changed : .success }
}

extension Command {
    static func validate(_ values: Values, _ operands: [String]) throws {}

    /// Two options that do not go together, for `validate` to throw (64):
    /// `VERB: FIRST and SECOND cannot be combined`, then `note` (`" (--compact prints JSON)"`).
    static func conflict(_ first: String, _ second: String, _ note: String = "") -> PrefsError {
        .usage("\(verb.name): \(first) and \(second) cannot be combined\(note)")
    }

    /// `VERB: FIRST cannot be combined with SECOND` (64): FIRST is the option the verb is about.
    static func conflict(_ first: String, with second: String) -> PrefsError {
        .usage("\(verb.name): \(first) cannot be combined with \(second)")
    }
}
