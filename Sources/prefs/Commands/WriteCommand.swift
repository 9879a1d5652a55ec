import PrefsCore

/// `prefs write DOMAIN KEY [TYPE] VALUE…` or `prefs write DOMAIN PLIST` — every change on the command
/// line is parsed first (a bad value changes nothing), then applied in one locked write. With
/// `--exit-code`, exits 3 when the suite changed and 0 when every value was already so.
enum WriteCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let request = try WriteRequest.parse(invocation.operands.dropFirst(), domain: domain.displayName)
        let changed = try context.store.update(domain, keys: request.topLevelKeys) { contents in
            try request.apply(to: &contents, domain: domain.displayName)
        }
        return invocation.changeStatus(changed)
    }
}
