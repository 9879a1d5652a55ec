import PrefsCore

/// The `defaults` verbs that read: each calls one PrefsCore operation and prints as macOS
/// `defaults` prints. They see stored values only: a suite's own file (its ByHost suite with a
/// host), never the global suite or registered defaults.
enum DefaultsVerbs {
    static let stored = ReadScope(storedOnly: true)

    /// `read DOMAIN [KEY]`.
    static func read(_ domain: Domain, _ rest: ArraySlice<String>, _ context: CommandContext) throws {
        guard let key = rest.first else {
            let values = try exists { try context.store.contents(of: domain, scope: stored).values } ?? PrefDictionary()
            guard !values.isEmpty else { throw DefaultsFailure.log("\nDomain \(DefaultsMessages.name(domain)) does not exist\n") }
            return context.print(DefaultsDescription.text(.dictionary(values)))
        }
        guard let value = try exists({ try context.store.value(at: PrefKeyPath([key]), in: domain, scope: stored).value }) else {
            throw DefaultsFailure.log("\nThe domain/default pair of (\(DefaultsMessages.preferencesName(domain)), \(key)) does not exist\n")
        }
        context.print(DefaultsDescription.text(value))
    }

    /// `read-type DOMAIN KEY`: `Type is string` (data, integer, float, boolean, date, array,
    /// dictionary).
    static func readType(_ domain: Domain, _ rest: ArraySlice<String>, _ context: CommandContext) throws {
        guard let key = rest.first else { throw DefaultsFailure.usage }
        guard let type = try exists({ try context.store.typeName(at: PrefKeyPath([key]), in: domain, scope: stored).type }) else {
            throw DefaultsFailure.log("\nThe domain/default pair of (\(DefaultsMessages.preferencesName(domain)), \(key)) does not exist\n")
        }
        guard type != "uid" else { throw DefaultsFailure.log("Found a value that is not of a known property list type") }
        context.print("Type is \(type)")
    }

    /// `read` alone: every domain's stored values, as one dictionary keyed by domain (the global
    /// domain as `Apple Global Domain`).
    static func readAll(_ context: CommandContext) throws {
        let every = try context.store.everySuite()
        report(every, context)
        var all = PrefDictionary()
        for (domain, contents) in every.suites { all[DefaultsMessages.name(domain)] = .dictionary(contents) }
        context.print(DefaultsDescription.text(.dictionary(all)))
        if !every.failures.isEmpty { throw DefaultsFailure.failed }
    }

    /// `domains`: the domain names on one line, sorted, separated by `, `; the global one left out.
    static func domains(_ context: CommandContext) throws {
        let listing = try context.store.suiteNames()
        for skipped in listing.skipped { context.writeError(DefaultsMessages.nslog(skipped.message)) }
        context.print(listing.names.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }.joined(separator: ", "))
    }

    /// `find WORD`: for each domain whose name, keys or string values contain WORD (ignoring case),
    /// `Found N keys in domain 'D': {…}` with the keys that match (every key, when the name does).
    /// Nothing found is said on standard error, with exit 0.
    static func find(_ word: String, _ context: CommandContext) throws {
        let every = try context.store.everySuite()
        report(every, context)
        let needle = word.lowercased()
        func matches(_ value: PrefValue) -> Bool {
            switch value {
            case .string(let string): return string.lowercased().contains(needle)
            case .array(let elements): return elements.contains(where: matches)
            case .dictionary(let dictionary): return dictionary.contains { $0.key.lowercased().contains(needle) || matches($0.value) }
            default: return false
            }
        }
        var found = 0
        for (domain, contents) in every.suites.sorted(by: { DefaultsMessages.name($0.domain).utf16.lexicographicallyPrecedes(DefaultsMessages.name($1.domain).utf16) }) {
            let nameMatches = DefaultsMessages.preferencesName(domain).lowercased().contains(needle)
            let results = PrefDictionary(contents.filter { nameMatches || $0.key.lowercased().contains(needle) || matches($0.value) }.map { ($0.key, $0.value) })
            guard !results.isEmpty else { continue }
            context.print("Found \(results.count) keys in domain '\(DefaultsMessages.name(domain))': \(DefaultsDescription.text(.dictionary(results)))")
            found += 1
        }
        if found == 0 { context.writeError(DefaultsMessages.nslog("No domain, key, nor value containing '\(word)'")) }
        if !every.failures.isEmpty { throw DefaultsFailure.failed }
    }

    /// `export DOMAIN PATH`: a binary plist, atomically; `export DOMAIN -`: XML on standard output.
    static func export(_ domain: Domain, _ rest: ArraySlice<String>, _ context: CommandContext) throws {
        guard let destination = rest.first else { throw DefaultsFailure.log("\nNeed a path to write to") }
        let found = try exists { try context.store.exportedValue(of: domain, effective: false, defaults: [], keys: nil) }
        guard let value = found else { throw DefaultsFailure.log("\nThe domain \(DefaultsMessages.preferencesName(domain)) does not exist\n") }
        if destination.trimmingSpaces == "-" {
            context.writeOutput(try PropertyList.encode(value, as: .xml))
        } else {
            try context.fileSystem.writeFile(destination, try PropertyList.encode(value, as: .binary), newFileMode: 0o666,
                                             lockTimeout: try context.environment.lockTimeout())
        }
    }

    /// The result of a read, or nil when the suite, its file or the key is not there.
    static func exists<T>(_ body: () throws -> T) throws -> T? {
        do {
            return try body()
        } catch PrefsError.suiteNotFound, PrefsError.keyNotFound, PrefsError.fileNotFound {
            return nil
        }
    }

    /// What reading every suite passed over or could not read, through NSLog.
    static func report(_ every: SuiteStore.EverySuite, _ context: CommandContext) {
        for skipped in every.skipped { context.writeError(DefaultsMessages.nslog(skipped.message)) }
        for failure in every.failures { context.writeError(DefaultsMessages.nslog(failure.message)) }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (as `defaults` trims `-` for standard input).
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
