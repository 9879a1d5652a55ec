/// Where a value an application sees comes from (`read --origin`).
public enum Origin: Equatable, Sendable, CustomStringConvertible {
    /// An administrator's managed values (a file, or where the store keeps them), over everything.
    case managed(String)
    /// The domain's own file.
    case stored
    /// The global suite's file (`-g`), under a suite's own values.
    case global
    /// The domain's suite for this host (`Layers+ByHost.swift`), over its own values.
    case byHost
    /// The global suite for this host, over the global suite.
    case globalByHost
    /// An administrator's system defaults, under the global suite and over registered defaults.
    case system(String)
    /// A registered-defaults file: the user's (`prefs register`) or one a package ships.
    case registered(String)
    /// A `--defaults FILE` given on the command line.
    case commandLine(String)
    /// The defaults a suite's schema declares, the lowest layer.
    case schema(String)

    public var description: String {
        switch self {
        case .managed(let path): return "managed:" + path
        case .system(let path): return "system:" + path
        case .stored: return "stored"
        case .global: return "global"
        case .byHost: return "byhost"
        case .globalByHost: return "global-byhost"
        case .registered(let path): return "registered:" + path
        case .commandLine: return "command-line"
        case .schema(let path): return "schema:" + path
        }
    }
}

/// What an application sees in a domain, as UserDefaults resolves it: an administrator's managed
/// values over everything (`managed:FILE`), then the domain's stored values
/// (its values for this host first, `Layers+ByHost.swift`), over the global suite's stored values
/// (for a suite; again this host's first), over an administrator's system defaults (`system:FILE`,
/// each `$XDG_CONFIG_DIRS` directory's in order), over its registered defaults — the
/// `--defaults FILE`s given on the command line (a later one over an earlier one), then the user's
/// file under `$XDG_DATA_HOME`, then each `$XDG_DATA_DIRS` directory's in order (see
/// `SuiteStore.registeredLayers`), and last the defaults of the suite's schema (`schema:FILE`). Layers resolve per top-level key: the highest layer that has the
/// key gives its whole value, and dictionaries are not merged. A file domain has only itself.
///
/// Every layer is read and checked on every read, even once the answer is known, so a malformed
/// layer is always reported (a data error) and never half-trusted. Registered values are only ever
/// read here; nothing writes them into a suite.
package struct Layers: Sendable {
    package let store: SuiteStore
    package let domain: Domain
    let commandLineDefaults: [String]
    let storedOnly: Bool
    /// Whether a suite's layers take the global suite's values (false for what is handed to another
    /// program, `exec` and `export --format sh`: another user may write the global suite).
    let globalSuite: Bool

    /// `defaults`: the `--defaults FILE`s in the order given. `storedOnly`: just the domain's own file.
    /// `globalSuite` false: a suite's layers without the global suite's.
    /// A name that could escape the store is refused first (`Domain.checkName`, 64).
    package init(_ domain: Domain, in store: SuiteStore, defaults: [String] = [], storedOnly: Bool = false, globalSuite: Bool = true) throws {
        try domain.checkName()
        if !defaults.isEmpty {
            guard domain.registrationName != nil else {
                throw PrefsError.usage("\(domain.displayName): a file has no registered defaults, so --defaults needs a suite")
            }
            guard !storedOnly else { throw PrefsError.usage("--defaults and --stored cannot be combined") }
        }
        self.store = store
        self.domain = domain
        commandLineDefaults = defaults
        self.storedOnly = storedOnly
        self.globalSuite = globalSuite
    }

    struct Layer {
        let origin: Origin
        let location: SuiteLocation
        /// The contents, when they are not the location's own (a schema's defaults, managed values:
        /// their location is then only how they are named).
        var defaults: PrefDictionary? = nil
        /// Whether the layer having contents makes the domain exist (not the global suite's layers).
        var establishes = true
    }

    /// The layers, highest first.
    func layers() throws -> [Layer] {
        try layersAboveSchema() + schemaLayer(prefetched: nil)
    }

    /// Every layer but the schema's defaults.
    func layersAboveSchema() throws -> [Layer] {
        guard !storedOnly, let name = domain.registrationName else { return [try ownLayer()] }
        let administered = try store.administered.directories()
        var layers = try managedLayers(for: name, directories: administered) + storedLayers()
        layers += systemDefaultsLayers(for: name, directories: administered)
        layers += commandLineDefaults.reversed().map { Layer(origin: .commandLine($0), location: .file($0)) }
        layers += try store.registeredLayers(for: name)
        return layers
    }

    /// The schema's defaults, the lowest layer (none with `--stored`, for a file, or without a
    /// schema). `prefetched`: a schema place already read, with what it holds.
    func schemaLayer(prefetched: (location: SuiteLocation, stored: StoredSuite?)?) throws -> [Layer] {
        guard !storedOnly, let name = domain.registrationName, let loaded = try store.schema(filedAs: name, prefetched: prefetched) else { return [] }
        return [Layer(origin: .schema(loaded.source), location: loaded.location, defaults: loaded.schema.defaults)]
    }

    /// The files the layers are in, where they are files (for `watch`).
    package func paths() throws -> [String] {
        let layered = try layers().compactMap { layer -> String? in
            // The managed files: every place one may appear (`managedPaths`).
            if case .managed = layer.origin { return nil }
            return try store.storage(for: layer.location).filePath(of: layer.location)
        }
        return layered + (try managedPaths().filter { path in !layered.contains { $0.utf8Compare(path) == 0 } })
    }

    /// A layer's contents; nil when it does not exist (a `--defaults FILE` must exist).
    /// External values are read in.
    func contents(of layer: Layer) throws -> PrefDictionary? {
        if let defaults = layer.defaults { return defaults }
        if layer.isAdministered, case .file(let path) = layer.location { return try store.administered.load(path)?.contents }
        if case .registered = layer.origin, case .file(let path) = layer.location { try store.administered.checkNotSpecial(path) }
        guard let contents = try store.load(at: layer.location)?.contents else {
            if case .commandLine(let path) = layer.origin { throw PrefsError.fileNotFound(path: path) }
            return nil
        }
        guard let place = try blobPlace(for: layer) else { return contents }
        return try store.materializedContents(contents, place: place, domain: place.suite)
    }

    /// Where the external values of a value from `origin` are, if anywhere: the domain's own (a suite
    /// or the global suite) or the global suite's; nil for files, ByHost suites and registered
    /// defaults.
    package func blobPlace(for origin: Origin) throws -> BlobPlace? {
        switch origin {
        case .registered, .commandLine, .schema, .managed, .system: return nil
        case .stored, .global, .byHost, .globalByHost:
            guard let layer = try layers().first(where: { $0.origin == origin }) else { return nil }
            return try blobPlace(for: layer)
        }
    }

    func blobPlace(for layer: Layer) throws -> BlobPlace? {
        switch layer.origin {
        case .registered, .commandLine, .schema, .managed, .system: return nil
        case .stored, .global, .byHost, .globalByHost: return try store.blobPlace(for: layer.location)
        }
    }

    /// What a read of a domain that does not exist fails with: a suite is not found (1); a file named
    /// by its path is missing input (66), as for `lint` and `import`.
    package var absent: PrefsError {
        if case .file(let path) = domain { return .fileNotFound(path: path) }
        return .suiteNotFound(domain: domain.displayName)
    }

    /// Whether a layer counts toward the domain existing: the global suite alone (its stored or its
    /// managed values) does not make one.
    static func establishes(_ layer: Layer) -> Bool { layer.establishes && layer.origin != .global && layer.origin != .globalByHost }

    /// The value at `path` and the layer that gave it; nil when no layer has it. When none has it and
    /// the domain has neither a file nor registered defaults, `.suiteNotFound`. (A key the global
    /// suite holds answers even for a suite that does not exist, as `UserDefaults(suiteName:)` does.) The domain's and
    /// the global suite's files are read the fast way (`SuiteStore.lookup`); registration files are
    /// small and decoded whole. An external value is read in from its blob, unless `materializing`
    /// is false and `path` is a top-level key: then its reference is returned as stored (for
    /// `SuiteStore.openExternal` and `typeName`).
    package func value(at path: PrefKeyPath, materializing: Bool = true) throws -> (value: PrefValue, origin: Origin)? {
        var answer: (value: PrefValue, origin: Origin)?
        var answerLayer: Layer?
        var exists = false
        var all = try layersAboveSchema()
        // The layers that are suites of the store, not files (the suite, the global suite, the
        // user's registered defaults), are read together, with the suite's schema when the store
        // keeps it: one request to a remote store.
        let together = all.indices.filter { all[$0].location.isFile == false && all[$0].defaults == nil }
        let schemaPlace = storedOnly ? nil : try domain.registrationName.flatMap { try store.schemaPlaceInStore(named: $0) }
        let batch = try store.storage.lookup(path.first, in: together.map { all[$0].location }, loading: schemaPlace.map { [$0] } ?? [])
        all += try schemaLayer(prefetched: schemaPlace.map { ($0, batch.loaded[0]) })
        for (index, layer) in all.enumerated() {
            let found: (exists: Bool, value: PrefValue?)
            if let position = together.firstIndex(of: index) {
                found = batch.found[position]
            } else if layer.origin == .stored {
                found = try store.lookup(path.first, in: layer.location)
            } else {
                let contents = try contents(of: layer)
                found = (contents != nil, contents?[path.first])
            }
            if Layers.establishes(layer) && found.exists { exists = true }
            if answer == nil, let value = found.value {
                answer = (value, layer.origin)
                answerLayer = layer
            }
        }
        guard var answer, let answerLayer else {
            guard exists else { throw absent }
            return nil
        }
        if materializing || path.components.count > 1 {
            let place = try blobPlace(for: answerLayer)
            answer.value = try store.materialized(answer.value, place: place, domain: place?.suite ?? domain.displayName, key: path.first)
        }
        let value = try PrefKeyPathError.attributing(domain: domain.displayName, path: path) {
            try answer.value.value(at: path.components.dropFirst())
        }
        return value.map { ($0, answer.origin) }
    }

    /// Every top-level key with the value an application sees and where it came from.
    package struct Resolved: Equatable, Sendable {
        package let values: PrefDictionary
        /// `origins[i]` is where `values.entries[i]` came from.
        package let origins: [Origin]

        package init(values: PrefDictionary, origins: [Origin]) {
            self.values = values
            self.origins = origins
        }
    }

    /// All the layers merged. Throws `.suiteNotFound` when the domain has neither a file nor
    /// registered defaults, unless `evenIfMissing` (then it is what an app would see: the global
    /// suite's values, perhaps none).
    package func resolved(evenIfMissing: Bool = false) throws -> Resolved {
        var values = PrefDictionary()
        var origins: [Origin] = []
        var exists = false
        for layer in try layers() {
            guard let contents = try contents(of: layer) else { continue }
            if Layers.establishes(layer) { exists = true }
            var mergedEntries: [PrefDictionary.Entry] = [], mergedOrigins: [Origin] = []
            var higher = 0
            PrefDictionary.zip(values, contents) { high, low in
                if let high {
                    mergedEntries.append(high)
                    mergedOrigins.append(origins[higher])
                    higher += 1
                } else if let low {
                    mergedEntries.append(low)
                    mergedOrigins.append(layer.origin)
                }
            }
            values = PrefDictionary(sortedEntries: mergedEntries)
            origins = mergedOrigins
        }
        guard exists || evenIfMissing else { throw absent }
        return Resolved(values: values, origins: origins)
    }
}

extension SuiteStore {
    /// A suite's registered defaults, most important first, each with how the store names it
    /// (`describe`: a file's path): the places the store keeps (`SuiteBackend.registrationLocations`:
    /// the user's, which `prefs register` changes), then the files packages ship,
    /// `DIR/prefs/defaults/NAME.plist` and `.json` under each `$XDG_DATA_DIRS` directory in order —
    /// whatever the store (none in a store of managed values). Each place once: a package's file
    /// the store lists already (a data directory that is the data home) is not listed again. The
    /// names are what tells, so nothing more is read than the layers' origins need. Given as layers
    /// (`.registered(NAME)`), an array of a type every read builds anyway: an array of another type
    /// is one more generic type a short command sets up at run time (bench-startup.sh).
    func registeredLayers(for name: String) throws -> [Layers.Layer] {
        var layers = try storage.registrationLocations(for: name).map { Layers.Layer(origin: .registered(describe($0)), location: $0) }
        guard !storage.holdsManagedValues else { return layers }
        for file in try environment.shippedFiles("defaults", name: name)
        where !layers.contains(where: { if case .registered(let listed) = $0.origin { listed.utf8Compare(file) == 0 } else { false } }) {
            layers.append(Layers.Layer(origin: .registered(file), location: .file(file)))
        }
        return layers
    }
}
