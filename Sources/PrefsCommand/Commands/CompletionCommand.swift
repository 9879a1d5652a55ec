import PrefsCore

/// `prefs completion bash|zsh|fish` — prints the shell's completion script, written from the command
/// table (the files under completions/ are this output).
enum CompletionCommand: Command {
    struct Values: CommandValues {}

    /// The shells there is a script for.
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    // A literal: every start builds each verb's `Verb` (CompletionTests checks it names every shell).
    static let verb = Verb(name: "completion", operands: "bash|zsh|fish",
                           summary: "print the completion script for bash, zsh or fish", operandCount: 1...1, details: """
                               Verbs, options, type flags, suite names, file names, the keys of the named suite and the
                               choices its schema gives a key. Install the output as the shell's completion for prefs:
                               bash: /usr/share/bash-completion/completions/prefs (or source it); zsh: _prefs in a
                               directory of $fpath; fish: ~/.config/fish/completions/prefs.fish.
                               """)

    static let operandKinds: [WordKind] = [.choice(Shell.allCases.map { $0.rawValue })]

    static let options: [Option<Values>] = []

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        guard let shell = Shell(rawValue: operands[0]) else {
            throw PrefsError.usage("completion: no script for '\(operands[0])' (usage: prefs \(verb.name) \(verb.operands))")
        }
        context.writeOutput(Array(script(for: shell).utf8))
        return .success
    }

    static func script(for shell: Shell) -> String {
        let table = CompletionTable()
        switch shell {
        case .bash: return BashScript.text(table)
        case .zsh: return ZshScript.text(table)
        case .fish: return FishScript.text(table)
        }
    }
}
