import PrefsCore

/// `prefs dump [FILE|-] [--registered]` — every suite, the global one too (and with `--registered`
/// the user's registered defaults), as one lossless typed-JSON document, for `load` to restore:
/// written as it is read, external values streamed from their blobs, to standard output or to FILE
/// (replaced atomically, mode 0600 when new: it holds every setting).
enum DumpCommand: Command {
    struct Values: CommandValues {
        var registered = false
    }

    static let verb = Verb(name: "dump", operands: "[FILE|-]", summary: "write every suite as one lossless document, for load (a backup)",
                           operandCount: 0...1, details: HelpText.dumpDetails)

    static let operandKinds: [WordKind] = [.file]

    static let options: [Option<Values>] = [
        .flag("registered", "include the user's registered defaults (prefs register)") { $0.registered = $1 },
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let path = operands.first ?? "-"
        var summary = DumpSummary()
        if path == "-" {
            summary = try context.store.dump(registered: values.registered) { piece in
                if let failure = context.outputFailure() { throw PrefsError.outputFailed(errno: failure) }
                context.writeOutput(Array(piece))
            }
        } else {
            try context.fileSystem.writeFile(path, newFileMode: 0o600, lockTimeout: try context.environment.lockTimeout()) { write in
                summary = try context.store.dump(registered: values.registered, to: write)
            }
        }
        for skipped in summary.skipped { context.printWarning(skipped.message) }
        for (suite, source) in try context.store.managedSources(of: summary.suites) {
            context.printWarning("\(suite): the managed values (\(source)) are the administrator's and not in the dump")
        }
        return .success
    }
}
