/// The verbs that remove, move and bring in keys, each one atomic change (or a dry run).
extension SuiteStore {
    /// `delete DOMAIN [KEY]`: a key (or key path), or with no key the whole suite. `.keyNotFound`
    /// (or `.suiteNotFound`) when it was not there.
    public func delete(_ path: PrefKeyPath?, in domain: Domain, dryRun: Bool = false) throws -> ChangeOutcome {
        try delete(path.map { [$0] } ?? [], in: domain, dryRun: dryRun)
    }

    /// `delete DOMAIN [KEY…]`: the keys (or key paths), in one atomic change, or with none the whole
    /// suite. When one is not there, `.keyNotFound` and nothing changes.
    public func delete(_ paths: [PrefKeyPath], in domain: Domain, dryRun: Bool = false) throws -> ChangeOutcome {
        for path in paths { try path.check(in: domain.displayName) }
        guard !paths.isEmpty else {
            try refuseRemovingManaged(domain)
            guard dryRun else {
                guard try remove(domain) else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
                return ChangeOutcome(changed: true)
            }
            guard let suite = try loadMaterialized(domain) else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
            return ChangeOutcome(changed: true, report: suite.contents.changes(to: PrefDictionary()))
        }
        let external = ExternalOptions(reading: paths.contains { $0.components.count > 1 } ? nil : [])
        return try removing.change(try target(for: domain), keys: KeySet(paths.map(\.first)), dryRun: dryRun, external: external) { contents in
            for path in paths {
                let removed = try PrefKeyPathError.attributing(domain: domain.displayName, path: path) { try contents.removeValue(at: path) }
                guard removed != nil else { throw PrefsError.keyNotFound(domain: domain.displayName, key: path.display) }
            }
        }
    }

    /// `rename DOMAIN OLD NEW`: moves a value to a new key (replacing what NEW held).
    public func rename(_ old: PrefKeyPath, to new: PrefKeyPath, in domain: Domain, dryRun: Bool = false) throws -> ChangeOutcome {
        for path in [old, new] { try path.check(in: domain.displayName) }
        let external = ExternalOptions(reading: old.components.count > 1 || new.components.count > 1 ? nil : [])
        // A deadline moves with its value (a whole key's, or within one key).
        var store = self
        if old.components.count == 1 || old.first.utf8.elementsEqual(new.first.utf8) { store.expiry = ExpiryChange(moves: [(old.first, new.first)]) }
        return try store.change(try target(for: domain), keys: [old.first, new.first], dryRun: dryRun, external: external) { contents in
            let value = try PrefKeyPathError.attributing(domain: domain.displayName, path: old) { try contents.removeValue(at: old) }
            guard let value else { throw PrefsError.keyNotFound(domain: domain.displayName, key: old.display) }
            try PrefKeyPathError.attributing(domain: domain.displayName, path: new) { try contents.setValue(value, at: new) }
        }
    }

    /// `reset DOMAIN [KEY…]`: removes the stored values of the keys (every key when none is named) so
    /// registered defaults show again; a suite left empty goes (a file named by its path stays). A
    /// key that is not stored is already reset.
    public func reset(_ paths: [PrefKeyPath], in domain: Domain, dryRun: Bool = false) throws -> ChangeOutcome {
        for path in paths { try path.check(in: domain.displayName) }
        let external = ExternalOptions(reading: paths.allSatisfy { $0.components.count == 1 } ? [] : nil)
        let target = try target(for: domain)
        let removing = self.removing
        let checks = try removing.checks(for: target)
        try refuseManaged(paths.map(\.first), in: target, managed: checks.managed)
        return try removing.change(target, removingEmpty: domain.registrationName != nil, dryRun: dryRun, external: external, checks: checks) { contents in
            guard !paths.isEmpty else {
                contents = PrefDictionary()
                return
            }
            for path in paths {
                _ = try PrefKeyPathError.attributing(domain: domain.displayName, path: path) { try contents.removeValue(at: path) }
            }
        }
    }

    /// How `import` merges a document.
    package enum ImportMode: Sendable {
        /// Key by key, as `defaults import` does.
        case merge
        /// Only the keys not stored yet.
        case ifAbsent
        /// The suite becomes exactly the document.
        case replace
    }

    /// `import DOMAIN PATH|-`: the dictionary a document holds (format by content, or `format`) merged
    /// key by key, kept where already stored, or made the whole suite; in JSON, a root member set to
    /// `null` deletes that key when merging.
    package func importDocument(from source: String, format: PlistFormat?, into domain: Domain, mode: ImportMode, dryRun: Bool = false) throws -> ChangeOutcome {
        let target = try target(for: domain)
        let (incoming, deleted) = try DocumentInput(fileSystem: fileSystem).importable(from: source, format: format)
        let keys = mode == .replace ? nil : KeySet(incoming.keys + deleted)
        return try change(target, keys: keys, dryRun: dryRun, external: ExternalOptions(reading: [])) { contents in
            if mode == .replace {
                contents = incoming
                return
            }
            for key in deleted where mode == .merge { _ = contents.removeValue(forKey: key) }
            for entry in incoming where !(mode == .ifAbsent && contents[entry.key] != nil) { contents[entry.key] = entry.value }
        }
    }

    /// What `register` does to a suite's registered defaults.
    package enum Registration: Sendable {
        /// A dictionary merged in key by key (or, `replacing`, made the whole registration).
        case document(PrefDictionary)
        /// KEY [TYPE] VALUE groups, typed as `write` types them.
        case request(WriteRequest)
        /// Keys (or key paths) removed; each must be there.
        case deletion([PrefKeyPath])
    }

    /// `register DOMAIN …`: changes the user's registered defaults for the suite (never the suite
    /// itself); a registration left empty goes.
    package func register(_ registration: Registration, for domain: Domain, replacing: Bool, dryRun: Bool = false) throws -> ChangeOutcome {
        let target = try registrationTarget(for: domain)
        let name = target.displayName
        var registration = registration
        if case .request(let request) = registration { registration = .request(try typedBySchema(try readingFilesInline(request, for: target), for: target)) }
        var sums: [PrefValue] = []
        var outcome = try change(target, removingEmpty: true, dryRun: dryRun) { contents in
            switch registration {
            case .deletion(let paths):
                for path in paths {
                    let removed = try PrefKeyPathError.attributing(domain: name, path: path) { try contents.removeValue(at: path) }
                    guard removed != nil else { throw PrefsError.keyNotFound(domain: name, key: path.display) }
                }
            case .document(let registered):
                if replacing { contents = PrefDictionary() }
                for entry in registered { contents[entry.key] = entry.value }
            case .request(let request):
                if replacing { contents = PrefDictionary() }
                sums = try request.apply(to: &contents, domain: name)
            }
        }
        outcome.sums = sums
        return outcome
    }
}
