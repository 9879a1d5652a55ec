import PrefsCore

/// `prefs domains [--null]` — the suite names, sorted, one per line (`--null`: each ended by a NUL
/// byte, so names holding spaces or newlines survive loops).
enum DomainsCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let names = try context.suiteNames()
        let end = invocation.has("null") ? "\0" : "\n"
        context.writeOutput(Array(names.map { $0 + end }.joined().utf8))
        return .success
    }
}
