import PrefsCore

/// `prefs rename DOMAIN OLD NEW` — moves a value to a new key (replacing what NEW held), in one
/// locked write. Exits 1 when OLD is not there; `--dry-run` prints what would change.
enum RenameCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let old = try KeyArguments.path(invocation.operands[1], in: domain, allowingEmpty: true)
        let new = try KeyArguments.path(invocation.operands[2], in: domain)
        let changed = try Changing.run(invocation, context, try context.store.target(for: domain), keys: [old.first, new.first],
                                         external: ExternalOptions(reading: old.components.count > 1 || new.components.count > 1 ? nil : [])) { contents in
            let value = try KeyPathError.attributing(domain: domain.displayName, path: old) { try contents.removeValue(at: old) }
            guard let value else { throw PrefsError.keyNotFound(domain: domain.displayName, key: old.display) }
            try KeyPathError.attributing(domain: domain.displayName, path: new) { try contents.setValue(value, at: new) }
        }
        return invocation.changeStatus(changed)
    }
}
