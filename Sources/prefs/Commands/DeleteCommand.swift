import PrefsCore

/// `prefs delete DOMAIN [KEY]` — removes a key (or key path), or the whole suite. Exits 1 when it was
/// not there; with `--exit-code`, 3 when it was removed; `--dry-run` prints what would go.
enum DeleteCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        guard invocation.operands.count == 2 else {
            if invocation.has("dry-run") {
                guard let suite = try context.store.loadMaterialized(domain) else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
                _ = Changing.report(from: suite.contents, to: PrefDictionary(), context)
                return invocation.changeStatus(true)
            }
            guard try context.store.remove(domain) else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
            return invocation.changeStatus(true)
        }
        let path = try KeyArguments.path(invocation.operands[1], in: domain, allowingEmpty: true)
        let changed = try Changing.run(invocation, context, try context.store.target(for: domain), keys: [path.first],
                                         external: ExternalOptions(reading: path.components.count > 1 ? nil : [])) { contents in
            let removed = try KeyPathError.attributing(domain: domain.displayName, path: path) { try contents.removeValue(at: path) }
            guard removed != nil else { throw PrefsError.keyNotFound(domain: domain.displayName, key: path.display) }
        }
        return invocation.changeStatus(changed)
    }
}
