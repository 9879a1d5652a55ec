import PrefsCore

/// `prefs register DOMAIN FILE|-|PLIST`, `prefs register DOMAIN KEY [TYPE] VALUE…` and
/// `prefs register DOMAIN --delete KEY…` — change the user's registered defaults for a suite (its
/// file under `$XDG_DATA_HOME/prefs/defaults`), never the suite itself. A dictionary (a plist or JSON
/// file, standard input, or plist text) is merged key by key, or with `--replace` becomes the whole
/// registration; KEY VALUE groups are typed as `write` types them. All or nothing, in one locked write.
enum RegisterCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let file = try context.store.registrationTarget(for: domain)
        let name = "\(domain.displayName) (registered)"
        let replace = invocation.has("replace")
        var sums: [PrefValue] = []
        let change: (inout PrefDictionary) throws -> Void
        if let deletions = invocation.options["delete"] {
            guard invocation.operands.count == 1, !replace else {
                throw PrefsError.usage("register: --delete takes no VALUE and no --replace")
            }
            let paths = try deletions.map { try KeyArguments.path($0, in: domain, allowingEmpty: true) }
            change = { contents in
                for path in paths {
                    let removed = try KeyPathError.attributing(domain: name, path: path) { try contents.removeValue(at: path) }
                    guard removed != nil else { throw PrefsError.keyNotFound(domain: name, key: path.display) }
                }
            }
        } else {
            guard invocation.operands.count >= 2 else { throw PrefsError.usage("usage: \(CommandTable.verb(named: "register")!.usage)") }
            let request = try request(invocation.operands.dropFirst(), domain: name, context)
            change = { contents in
                if case .replaceDomain(let registered) = request, !replace {
                    for entry in registered { contents[entry.key] = entry.value }
                    return
                }
                if replace { contents = PrefDictionary() }
                sums = try request.apply(to: &contents, domain: name)
            }
        }
        let changed = try Changing.run(invocation, context, file, removingEmpty: true, change)
        Changing.printCounters(sums, invocation, context)
        return invocation.changeStatus(changed)
    }

    /// The words after the domain: a file, `-`, or plist text (a whole dictionary, starting with `{`,
    /// `(` or `<` as `write` reads it), or KEY VALUE groups.
    static func request(_ words: ArraySlice<String>, domain: String, _ context: CommandContext) throws -> WriteRequest {
        guard words.count == 1, let source = words.first, !(source.first.map { "{(<".contains($0) } ?? false) else {
            return try WriteRequest.parse(words, domain: domain)
        }
        let registered = try context.readDictionary(source)
        return .replaceDomain(registered)
    }
}
