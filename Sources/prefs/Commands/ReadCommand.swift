import PrefsCore

/// `prefs read [DOMAIN [KEY]] [--json | --keys] [--origin] [--stored] [--defaults FILE]…` — what an
/// application sees: a scalar prints bare on one line (for `$(…)`); a container or a whole suite
/// prints in the readable form, or as JSON; `--keys` prints the keys of a dictionary one per line
/// (`--null`: each ended by a NUL byte instead).
/// Values come from every layer (`Layers`) unless `--stored`; `--origin` says which layer gave each.
/// With no domain, every suite's stored values. A missing suite or key exits 1.
enum ReadCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        guard !(invocation.has("json") && invocation.has("keys")) else {
            throw PrefsError.usage("read: --json and --keys cannot be combined")
        }
        if invocation.has("null") {
            guard invocation.has("keys") else { throw PrefsError.usage("read: --null needs --keys") }
            guard !invocation.has("origin") else { throw PrefsError.usage("read: --null and --origin cannot be combined") }
        }
        let showOrigin = invocation.has("origin")
        guard let argument = invocation.operands.first else {
            guard !showOrigin && !invocation.has("defaults") else { throw PrefsError.usage("read: --origin and --defaults need a domain") }
            var failure: PrefsError?
            var all = PrefDictionary()
            SuiteReading.everySuite(context, failure: &failure) { domain, contents in all[domain.displayName] = .dictionary(contents) }
            try print(.dictionary(all), invocation, context, domain: "", key: nil)
            return failure?.exitStatus ?? .success
        }
        let domain = try Domain(argument: argument)
        guard invocation.operands.count == 2 else {
            let suite = try SuiteReading.contents(of: domain, invocation, context)
            guard showOrigin else {
                try print(.dictionary(suite.values), invocation, context, domain: domain.displayName, key: nil)
                return .success
            }
            if invocation.has("json") {
                var described = PrefDictionary()
                for (entry, origin) in zip(suite.values, suite.origins) { described[entry.key] = withOrigin(entry.value, origin) }
                context.writeOutput(try ValueOutput.text(.dictionary(described), json: true))
            } else {
                let keysOnly = invocation.has("keys")
                context.writeOutput(Array(zip(suite.values, suite.origins).map { entry, origin in
                    "\(origin)\t\(ValueOutput.quotedIfNeeded(entry.key))" + (keysOnly ? "" : "\t" + ValueOutput.line(entry.value)) + "\n"
                }.joined().utf8))
            }
            return .success
        }
        let key = invocation.operands[1]
        if invocation.has("raw") { return try printRaw(key, in: domain, invocation, context) }
        let (value, origin) = try SuiteReading.value(of: key, in: domain, invocation, context)
        guard showOrigin else {
            try print(value, invocation, context, domain: domain.displayName, key: key)
            return .success
        }
        if invocation.has("json") {
            context.writeOutput(try ValueOutput.text(withOrigin(value, origin), json: true))
        } else if invocation.has("keys") {
            context.writeOutput(Array(try keys(of: value, domain: domain.displayName, key: key).map { "\(origin)\t\($0)\n" }.joined().utf8))
        } else {
            context.writeOutput(Array("\(origin)\t".utf8) + (try ValueOutput.text(value, json: false)))
        }
        return .success
    }

    /// `--raw`: a string's UTF-8 or a data value's bytes, exactly, with no newline added; an external
    /// one streams from its blob, never held in memory.
    static func printRaw(_ key: String, in domain: Domain, _ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        for option in ["json", "keys", "origin"] where invocation.has(option) {
            throw PrefsError.usage("read: --raw and --\(option) cannot be combined")
        }
        let (value, origin) = try SuiteReading.value(of: key, in: domain, invocation, context, materializing: false)
        let suite = try SuiteReading.layers(of: domain, invocation, context).blobPlace(for: origin)
        if let blob = try context.store.openExternal(value, place: suite, key: key) {
            guard blob.kind == .string || blob.kind == .data else {
                throw PrefsError.typeMismatch(domain: domain.displayName, key: key, reason: "--raw prints strings and data, and the value is a\(blob.kind == .array ? "n" : "") \(blob.kind.rawValue)")
            }
            if let descriptor = context.outputDescriptor {
                try blob.copy(toOutput: descriptor)
            } else {
                context.writeOutput(try blob.bytes())
            }
            return .success
        }
        switch value {
        case .data(let bytes): context.writeOutput(bytes)
        case .string(let text): context.writeOutput(Array(text.utf8))
        default:
            throw PrefsError.typeMismatch(domain: domain.displayName, key: key, reason: "--raw prints strings and data, and the value is \(value.typeNameWithArticle)")
        }
        return .success
    }

    /// A value as `read` prints it: readable, JSON, or its keys.
    static func print(_ value: PrefValue, _ invocation: Invocation, _ context: CommandContext, domain: String, key: String?) throws {
        guard invocation.has("keys") else {
            context.writeOutput(try ValueOutput.text(value, json: invocation.has("json")))
            return
        }
        let end = invocation.has("null") ? "\0" : "\n"
        context.writeOutput(Array(try keys(of: value, domain: domain, key: key).map { $0 + end }.joined().utf8))
    }

    static func keys(of value: PrefValue, domain: String, key: String?) throws -> [String] {
        guard case .dictionary(let dictionary) = value else {
            throw PrefsError.typeMismatch(domain: domain, key: key ?? "",
                                          reason: "--keys needs a dictionary, and the value is \(value.typeNameWithArticle)")
        }
        return dictionary.keys
    }

    static func withOrigin(_ value: PrefValue, _ origin: Origin) -> PrefValue {
        ["origin": .string(origin.description), "value": value]
    }
}

/// Reading shared by read, read-type, find and export: a domain's layers (a suite, a file, or
/// standard input), the value at a key and where it came from, and every suite in turn.
enum SuiteReading {
    /// The layers a reading verb sees: every one, or with `--stored` the domain's own file; plus
    /// the `--defaults FILE`s given.
    static func layers(of domain: Domain, _ invocation: Invocation, _ context: CommandContext) throws -> Layers {
        let defaults = invocation.options["defaults"] ?? []
        guard !defaults.contains("-") else { throw PrefsError.usage("--defaults takes a file, not standard input") }
        return try Layers(domain, in: context.store, defaults: defaults, storedOnly: invocation.has("stored"))
    }

    /// What a domain holds: its layers merged, or the dictionary on standard input (all `stored`;
    /// its layers are made only to refuse `--defaults`).
    static func contents(of domain: Domain, _ invocation: Invocation, _ context: CommandContext) throws -> Layers.Resolved {
        let layers = try layers(of: domain, invocation, context)
        guard domain == .standardInput else { return try layers.resolved() }
        let contents = try context.readDictionary("-")
        return Layers.Resolved(values: contents, origins: Array(repeating: .stored, count: contents.count))
    }



    /// The value at KEY and its layer: from the domain's files without building the rest of them, or
    /// from standard input.
    /// With `materializing` false, an external top-level value comes back as its reference, for
    /// `SuiteStore.openExternal` or `typeName` (with the suite `Layers.externalSuite(for:)` gives).
    static func value(of key: String, in domain: Domain, _ invocation: Invocation, _ context: CommandContext,
                      materializing: Bool = true) throws -> (PrefValue, Origin) {
        let path = try KeyArguments.path(key, in: domain)
        let layers = try layers(of: domain, invocation, context)
        let found: (PrefValue, Origin)?
        if domain == .standardInput {
            let contents = try context.readDictionary("-")
            found = try KeyPathError.attributing(domain: domain.displayName, path: path) { try contents.value(at: path) }.map { ($0, .stored) }
        } else {
            found = try layers.value(at: path, materializing: materializing)
        }
        guard let found else { throw PrefsError.keyNotFound(domain: domain.displayName, key: path.display) }
        return found
    }

    /// Every suite, then the global suite (as `defaults read` lists them). A suite that cannot be
    /// read is reported on standard error and skipped; `failure` keeps the first error.
    static func everySuite(_ context: CommandContext, failure: inout PrefsError?, _ body: (Domain, PrefDictionary) -> Void) {
        var domains: [Domain] = [.global]
        do {
            domains = try context.suiteNames().map { Domain.suite($0) } + domains
        } catch let error as PrefsError {
            context.printError(error.message)
            failure = failure ?? error
        } catch {
            failure = failure ?? PrefsError.internalError("\(error)")
        }
        for domain in domains {
            do {
                if let suite = try context.store.loadMaterialized(domain) { body(domain, suite.contents) }
            } catch let error as PrefsError {
                context.printError(error.message)
                failure = failure ?? error
            } catch {
                failure = failure ?? PrefsError.internalError("\(error)")
            }
        }
    }
}

/// KEY arguments, parsed with errors that name the domain.
enum KeyArguments {
    /// The keys of a comma-separated, repeatable option such as `--keys` (each a KEY or a :key:path).
    static func list(_ invocation: Invocation, _ option: String) throws -> [KeyPath] {
        try (invocation.options[option] ?? []).flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { item in
            do {
                return try KeyPath(argument: String(item))
            } catch PrefsError.usage(let message) {
                throw PrefsError.usage("--\(option): \(message)")
            }
        }
    }

    /// `allowingEmpty`: the empty argument names the empty key (for the verbs that remove keys).
    static func path(_ argument: String, in domain: Domain, allowingEmpty: Bool = false) throws -> KeyPath {
        do {
            return try KeyPath(argument: argument, allowingEmpty: allowingEmpty)
        } catch PrefsError.usage(let message) {
            throw PrefsError.usage("\(domain.displayName): \(message)")
        }
    }
}
