/// What a change of one target is checked against, found before it (`SuiteStore.checks(for:)`):
/// the schema (as `schemaChoice` says), and the managed values that bind the target.
package struct ChangeChecks {
    let schema: LoadedSchema?
    let managed: SuiteStore.Managed?
}

/// Which schema a change is checked against.
package enum SchemaChoice: Sendable {
    /// The suite's own: the user's (`prefs register --schema`), else the first a package ships.
    case installed
    /// `--schema FILE`: this schema, read once for the whole run (`usingSchemaFile`).
    case given(LoadedSchema)
    /// `--no-schema`: none; the change is stored unchecked.
    case none
}

/// A schema as found: what it says, where it is, and how messages and `--origin` name it.
package struct LoadedSchema: Sendable {
    package let schema: Schema
    package let location: SuiteLocation
    package let source: String
}

/// Schemas through the store: found by `SuiteBackend.schemaLocations` (so another store keeps the
/// user's where it keeps suites), checked on every change `update` makes, installed by `register`.
extension SuiteStore {
    /// The schema of the suite filed as `name` (a suite's name or `NSGlobalDomain`), as
    /// `schemaChoice` says; nil when there is none. A schema that is malformed is an error (65).
    /// `prefetched`: a schema place already read (with other values, in one request), and what it holds.
    /// A name that could escape the store is refused first (64).
    package func schema(named name: String, prefetched: (location: SuiteLocation, stored: StoredSuite?)? = nil) throws -> LoadedSchema? {
        try Domain.checkRegistrationName(name)
        return try schema(filedAs: name, prefetched: prefetched)
    }

    /// `schema(named:)` for a name the caller has checked (a checked domain's).
    func schema(filedAs name: String, prefetched: (location: SuiteLocation, stored: StoredSuite?)? = nil) throws -> LoadedSchema? {
        switch schemaChoice {
        case .none:
            return nil
        case .given(let loaded):
            return loaded
        case .installed:
            for location in try storage.schemaLocations(for: name) {
                if let prefetched, prefetched.location == location {
                    guard let stored = prefetched.stored else { continue }
                    return try loadedSchema(stored, at: location)
                }
                if let loaded = try loadSchema(at: location, regularOnly: true) { return loaded }
            }
            return nil
        }
    }

    /// The place where a remote store keeps the suite's installed schema, when it is the first
    /// place the schema is looked for: a reader can read it in the request that looks up values.
    /// (Files are not read ahead: `loadSchema` checks what a file is before opening it.)
    func schemaPlaceInStore(named name: String) throws -> SuiteLocation? {
        guard case .installed = schemaChoice, storage.isRemote,
              let first = try storage.schemaLocations(for: name).first, !first.isFile else { return nil }
        return first
    }

    func loadedSchema(_ stored: StoredSuite, at location: SuiteLocation) throws -> LoadedSchema {
        let source = describe(location)
        return LoadedSchema(schema: try Schema(document: stored.contents, source: source), location: location, source: source)
    }

    /// The store with the schema in the file `path` (`--schema FILE`) for every change: read once,
    /// as a pipe (`--schema <(…)`) can be read only once.
    package func usingSchemaFile(_ path: String) throws -> SuiteStore {
        guard let loaded = try loadSchema(at: .file(path)) else { throw PrefsError.fileNotFound(path: path) }
        var store = self
        store.schemaChoice = .given(loaded)
        return store
    }

    /// The schema at a location; nil when there is none. Its store reads it (`SuiteBackend.loadSchema`:
    /// a file at most `Schema.maximumSize` bytes, and with `regularOnly` never a FIFO or a device).
    func loadSchema(at location: SuiteLocation, regularOnly: Bool = false) throws -> LoadedSchema? {
        try storage(for: location).loadSchema(location, regularOnly: regularOnly).map { try loadedSchema($0, at: location) }
    }

    /// The name a change's suite files its schema under; nil for a file that is no suite's and for
    /// a schema itself.
    func schemaName(for target: SuiteTarget) -> String? {
        switch target.location {
        case .suite(let name), .registered(let name): return name
        case .global: return Domain.global.registrationName
        case .byHost(let suite, _): return suite ?? Domain.global.registrationName
        case .file: return target.blobSuite
        case .schema, .managed: return nil
        }
    }

    /// What a change of `target` is checked against (`ChangeChecks`), found once before it: its
    /// schema and the managed values that bind it, read together (on a remote store, in one request).
    func checks(for target: SuiteTarget) throws -> ChangeChecks {
        let managedPlaces = try managedPlaces(for: target.location)
        let inStore = managedPlaces.compactMap { if case .inStore(let location) = $0 { location } else { nil } }
        let schemaPlace: SuiteLocation?
        if case .schema = target.location { schemaPlace = nil } else { schemaPlace = try schemaName(for: target).flatMap { try schemaPlaceInStore(named: $0) } }
        let places = (schemaPlace.map { [$0] } ?? []) + inStore
        let loaded = places.isEmpty ? [] : try storage.lookup("", in: [], loading: places).loaded
        return ChangeChecks(schema: try schema(for: target, prefetched: schemaPlace.map { ($0, loaded[0]) }),
                            managed: managed(managedPlaces, loaded: Array(loaded.dropFirst(schemaPlace == nil ? 0 : 1))))
    }

    /// The schema a change of `target` is checked against: `--schema FILE`'s for any suite or file
    /// (not for a schema itself), else the suite's own. `prefetched`: its place, already read.
    func schema(for target: SuiteTarget, prefetched: (location: SuiteLocation, stored: StoredSuite?)? = nil) throws -> LoadedSchema? {
        if case .schema = target.location { return nil }
        if case .given(let loaded) = schemaChoice { return loaded }
        return try schemaName(for: target).flatMap { try schema(filedAs: $0, prefetched: prefetched) }
    }

    /// `change`, refusing what breaks the target's schema: each top-level key it adds or changes
    /// must be declared (in a suite that allows no other) and keep its rules. Keys left as they
    /// were are not checked, so a value an application stored does not block other changes.
    static func checkingSchema(_ change: @escaping (inout PrefDictionary) throws -> Void, for target: SuiteTarget, schema: LoadedSchema?)
        -> (inout PrefDictionary) throws -> Void {
        guard let loaded = schema else { return change }
        return { contents in
            let before = contents
            try change(&contents)
            try PrefDictionary.zip(before, contents) { old, new in
                guard let new, old?.value != new.value else { return }
                if let reason = loaded.schema.violation(key: new.key, value: new.value) {
                    throw PrefsError.schemaViolation(domain: target.displayName, key: PrefKeyPath.escape(new.key), reason: reason, schema: loaded.source)
                }
            }
        }
    }

    /// `register DOMAIN --schema FILE|-`: installs a schema as the user's for the suite, after
    /// checking it whole (a malformed one installs nothing). The document is kept as written.
    package func installSchema(from source: String, for domain: Domain, dryRun: Bool = false) throws -> ChangeOutcome {
        try domain.checkName()
        guard let name = domain.registrationName else {
            throw PrefsError.usage("\(domain.displayName): a file has no schema; name a suite")
        }
        let input = DocumentInput(fileSystem: fileSystem)
        let bytes = try input.bytes(from: source, atMost: Schema.maximumSize, what: "schema")
        let sourceName = DocumentInput.name(of: source)
        let document = try input.dictionary(from: source) { _ in try PropertyList.decode(bytes).value }
        _ = try Schema(document: document, source: sourceName)
        // Installed, it must still be small enough to be read: an XML file is larger than its JSON.
        guard try PropertyList.encode(.dictionary(document), as: .xml).count <= Schema.maximumSize else {
            throw PrefsError.malformed(source: sourceName, format: nil, reason: "schema: larger than \(Schema.maximumSize >> 20) MiB once installed as a property list")
        }
        let target = SuiteTarget(location: .schema(name), displayName: "\(domain.displayName) (schema)", blobSuite: nil)
        return try change(target, dryRun: dryRun) { $0 = document }
    }
}

extension SuiteStore {
    /// The store for `delete` and `reset`: removing a value is never refused by a schema (a value
    /// an application stored can always be removed).
    var removing: SuiteStore {
        var store = self
        store.schemaChoice = .none
        return store
    }
}
