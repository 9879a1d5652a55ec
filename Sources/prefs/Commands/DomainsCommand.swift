import PrefsCore

/// `prefs domains` — the suite names, one per line, sorted.
enum DomainsCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let names = try context.suiteNames()
        context.writeOutput(Array(names.map { $0 + "\n" }.joined().utf8))
        return .success
    }
}
