import PrefsCore

/// `prefs find WORD [--json | --null]` — every suite whose name, and every key or string value,
/// contains WORD (ignoring case). One match per line: the suite, then a tab and the key path for a key
/// or value match (`--null`: each match ended by a NUL byte instead). Exits 1 when nothing matches,
/// like grep; a suite that cannot be read is reported and skipped (exit 65 at the end).
enum FindCommand {
    struct Match {
        let suite: String
        let key: KeyPath?
        let value: PrefValue?
    }

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        guard !(invocation.has("json") && invocation.has("null")) else {
            throw PrefsError.usage("find: --json and --null cannot be combined")
        }
        let word = invocation.operands[0].lowercased()
        var matches: [Match] = []
        var failure: PrefsError?
        SuiteReading.everySuite(context, failure: &failure) { domain, contents in
            let name = domain.displayName
            if name.lowercased().contains(word) { matches.append(Match(suite: name, key: nil, value: nil)) }
            search(.dictionary(contents), path: [], suite: name, word: word, into: &matches)
        }
        if invocation.has("json") {
            let list = matches.map { match -> PrefValue in
                var entry: PrefDictionary = ["suite": .string(match.suite)]
                entry["key"] = match.key.map { .string($0.display) }
                entry["value"] = match.value
                return .dictionary(entry)
            }
            context.writeOutput(try PropertyList.encode(.array(list), as: .json))
        } else {
            let end = invocation.has("null") ? "\0" : "\n"
            let lines = matches.map { $0.suite + ($0.key.map { "\t" + $0.display } ?? "") + end }
            context.writeOutput(Array(lines.joined().utf8))
        }
        if let failure { return failure.exitStatus }
        return matches.isEmpty ? .notFound : .success
    }

    static func search(_ value: PrefValue, path: [String], suite: String, word: String, into matches: inout [Match]) {
        switch value {
        case .dictionary(let dictionary):
            for entry in dictionary {
                let child = path + [entry.key]
                if entry.key.lowercased().contains(word) {
                    matches.append(Match(suite: suite, key: KeyPath(child), value: entry.value))
                } else {
                    search(entry.value, path: child, suite: suite, word: word, into: &matches)
                }
            }
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                search(element, path: path + [String(i)], suite: suite, word: word, into: &matches)
            }
        case .string(let s) where s.lowercased().contains(word):
            matches.append(Match(suite: suite, key: KeyPath(path), value: value))
        default:
            break
        }
    }
}
