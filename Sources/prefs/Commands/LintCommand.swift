import PrefsCore

/// `prefs lint FILE…` — like `plutil -lint`: `FILE: OK` on standard output for each good file, one
/// error line on standard error for each bad one. Exits 0 when all are good, otherwise with the
/// status of the first file that failed (65 malformed, 66 missing, 74 unreadable).
enum LintCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        var status = ExitStatus.success
        for path in invocation.operands {
            let name = path == "-" ? "standard input" : path
            do {
                _ = try PropertyList.validate(try context.readInput(path))
                context.print("\(name): OK")
            } catch let error as PrefsError {
                context.printError(error.attributed(to: name).message)
                if status == .success { status = error.exitStatus }
            }
        }
        return status
    }
}
