import PrefsCore

/// `prefs reset DOMAIN [KEY…]` — removes the stored values of the keys (every stored key when none is
/// named) so the registered defaults show again, in one locked write; a suite's file goes when
/// nothing is left in it (a file named by its path stays, empty). Idempotent: a key that is not
/// stored is already reset (exit 0).
enum ResetCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let paths = try invocation.operands.dropFirst().map { try KeyArguments.path($0, in: domain, allowingEmpty: true) }
        let changed = try Changing.run(invocation, context, try context.store.target(for: domain), removingEmpty: domain.registrationName != nil,
                                       external: ExternalOptions(reading: paths.allSatisfy { $0.components.count == 1 } ? [] : nil)) { contents in
            guard !paths.isEmpty else {
                contents = PrefDictionary()
                return
            }
            for path in paths {
                _ = try KeyPathError.attributing(domain: domain.displayName, path: path) { try contents.removeValue(at: path) }
            }
        }
        return invocation.changeStatus(changed)
    }
}
