import PrefsCore

/// `prefs import DOMAIN PATH|- [--replace | --if-absent] [--format FORMAT]` — a dictionary from a
/// plist or JSON document (format by content unless given) merged into the suite key by key (as
/// `defaults import` does), or with `--replace` made the whole suite; in JSON, a root member set to
/// `null` deletes that key. One locked write: a bad document changes nothing.
enum ImportCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let file = try context.store.target(for: domain)
        let source = invocation.operands[1]
        let replace = invocation.has("replace"), ifAbsent = invocation.has("if-absent")
        guard !(replace && ifAbsent) else { throw PrefsError.usage("import: --replace and --if-absent cannot be combined") }
        var deletions: [String] = []
        let incoming = try context.readDictionary(source) { bytes in
            let document = try PropertyList.decodeForImport(bytes, as: invocation.value("format").flatMap(PlistFormat.init(rawValue:)))
            deletions = document.deletedKeys
            return document.value
        }
        let keys = replace ? nil : KeySet(incoming.keys + deletions)
        let changed = try Changing.run(invocation, context, file, keys: keys, external: ExternalOptions(reading: [])) { contents in
            if replace {
                contents = incoming
                return
            }
            for key in deletions where !ifAbsent { _ = contents.removeValue(forKey: key) }
            for entry in incoming where !(ifAbsent && contents[entry.key] != nil) { contents[entry.key] = entry.value }
        }
        return invocation.changeStatus(changed)
    }
}
