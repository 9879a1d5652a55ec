/// A match of `find`: a suite whose name holds the word (no key), or a key or string value.
package struct FindMatch: Sendable, Equatable {
    package let suite: String
    package let key: PrefKeyPath?
    package let value: PrefValue?

    package init(suite: String, key: PrefKeyPath?, value: PrefValue?) {
        self.suite = suite
        self.key = key
        self.value = value
    }
}

extension SuiteStore {
    /// `export`: what a domain holds — a suite's stored values, or with `effective` every layer
    /// merged; a file in any format, or standard input — keeping only `keys` when given.
    /// `keeping`: with `effective`, whether a top-level key is kept, given the layer its value comes
    /// from (the suite's own, stored or for this host; managed, the global suite, system or
    /// registered defaults, the schema). A key left out is not looked for further down: its value is
    /// not the one an application sees. `globalSuite` false: a suite's layers without the global suite's (what is
    /// handed to another program), so a key the global suite holds shows the suite's own defaults.
    package func exportedValue(of domain: Domain, effective: Bool, defaults: [String], keys: [PrefKeyPath]?, globalSuite: Bool = true,
                              keeping: (String, Origin) -> Bool = { _, _ in true }) throws -> PrefValue {
        guard effective || defaults.isEmpty else { throw PrefsError.usage("export: --defaults needs --effective") }
        var scope = ReadScope(defaults: defaults)
        scope.globalSuite = globalSuite
        let layers = try layers(of: domain, scope: scope)
        var value: PrefValue
        switch domain {
        case .suite, .global:
            if effective {
                let resolved = try layers.resolved()
                let kept = zip(resolved.values.entries, resolved.origins).filter { entry, origin in keeping(entry.key, origin) }
                value = .dictionary(PrefDictionary(sortedEntries: kept.map(\.0)))
            } else {
                guard let suite = try loadMaterialized(domain) else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
                value = .dictionary(suite.contents)
            }
        case .file(let path):
            value = try decodedDocument(try resolvedPath(path))
        case .standardInput:
            value = try decodedDocument("-")
        }
        if let keys { value = try SuiteStore.selecting(keys, from: value, domain: domain) }
        return value
    }

    func decodedDocument(_ source: String) throws -> PrefValue {
        do {
            return try PropertyList.decode(try DocumentInput(fileSystem: fileSystem).bytes(from: source)).value
        } catch let error as PrefsError {
            throw error.attributed(to: DocumentInput.name(of: source))
        }
    }

    /// Only the values at these keys, each at its place; a key that is not there is `.keyNotFound`.
    static func selecting(_ keys: [PrefKeyPath], from value: PrefValue, domain: Domain) throws -> PrefValue {
        guard case .dictionary(let root) = value else {
            throw PrefsError.typeMismatch(domain: domain.displayName, key: "", reason: "--keys needs a dictionary, and the root is \(value.typeNameWithArticle)")
        }
        var selected = PrefDictionary()
        for path in keys {
            try PrefKeyPathError.attributing(domain: domain.displayName, path: path) {
                guard let found = try root.value(at: path) else { throw PrefsError.keyNotFound(domain: domain.displayName, key: path.display) }
                try selected.setValue(found, at: path)
            }
        }
        return .dictionary(selected)
    }

    /// `find WORD`: every suite whose name, and every key or string value, contains `word` (ignoring
    /// case), in suite order; a key that matches is reported without looking inside its value.
    package static func find(_ word: String, in suites: [(domain: Domain, contents: PrefDictionary)]) -> [FindMatch] {
        let word = word.lowercased()
        var matches: [FindMatch] = []
        for (domain, contents) in suites {
            let name = domain.displayName
            if name.lowercased().contains(word) { matches.append(FindMatch(suite: name, key: nil, value: nil)) }
            search(.dictionary(contents), path: [], suite: name, word: word, into: &matches)
        }
        return matches
    }

    static func search(_ value: PrefValue, path: [String], suite: String, word: String, into matches: inout [FindMatch]) {
        switch value {
        case .dictionary(let dictionary):
            for entry in dictionary {
                let child = path + [entry.key]
                if entry.key.lowercased().contains(word) {
                    matches.append(FindMatch(suite: suite, key: PrefKeyPath(child), value: entry.value))
                } else {
                    search(entry.value, path: child, suite: suite, word: word, into: &matches)
                }
            }
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                search(element, path: path + [String(i)], suite: suite, word: word, into: &matches)
            }
        case .string(let s) where s.lowercased().contains(word):
            matches.append(FindMatch(suite: suite, key: PrefKeyPath(path), value: value))
        default:
            break
        }
    }
}
