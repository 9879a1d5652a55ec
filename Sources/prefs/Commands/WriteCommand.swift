import PrefsCore

/// `prefs write DOMAIN KEY [TYPE] VALUE…` or `prefs write DOMAIN PLIST` — every change on the command
/// line is parsed first (a bad value changes nothing), then applied in one locked write. Counters
/// (`-int-add`, `-float-add`) print their new values. `--if-absent` skips keys already stored;
/// `--if-equals VALUE` changes the one key only while it holds VALUE (else exit 4). With
/// `--exit-code`, exits 3 when the suite changed and 0 when every value was already so.
enum WriteCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let request = try WriteRequest.parse(invocation.operands.dropFirst(), domain: domain.displayName)
        var conditions = WriteRequest.Conditions(ifAbsent: invocation.has("if-absent"))
        if let text = invocation.value("if-equals") {
            guard !conditions.ifAbsent else { throw PrefsError.usage("write: --if-absent and --if-equals cannot be combined") }
            guard case .changes(let changes) = request, changes.count == 1 else {
                throw PrefsError.usage("write: --if-equals needs exactly one KEY [TYPE] VALUE")
            }
            do {
                conditions.expected = try changes[0].expected(text)
            } catch PrefsError.invalidValue(let message) {
                throw PrefsError.invalidValue("\(domain.displayName): \(message)")
            }
        }
        var sums: [PrefValue] = []
        let changed = try Changing.run(invocation, context, try context.store.file(for: domain), keys: request.topLevelKeys) { contents in
            sums = try request.apply(to: &contents, domain: domain.displayName, conditions: conditions)
        }
        Changing.printCounters(sums, invocation, context)
        return invocation.changeStatus(changed)
    }
}
