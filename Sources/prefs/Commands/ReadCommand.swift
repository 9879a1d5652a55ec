import PrefsCore

/// `prefs read [DOMAIN [KEY]] [--json | --keys]` — a scalar prints bare on one line (for `$(…)`); a
/// container, a whole suite, or (with no domain) every suite prints in the readable form, or as
/// JSON; `--keys` prints the keys of a dictionary one per line. A missing suite or key exits 1.
enum ReadCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        guard !(invocation.has("json") && invocation.has("keys")) else {
            throw PrefsError.usage("read: --json and --keys cannot be combined")
        }
        var failure: PrefsError?
        let value: PrefValue
        var domain: Domain?
        if let argument = invocation.operands.first {
            domain = try Domain(argument: argument)
        }
        switch (domain, invocation.operands.count) {
        case (let domain?, 2): value = try SuiteReading.value(of: invocation.operands[1], in: domain, context)
        case (let domain?, _): value = .dictionary(try SuiteReading.contents(of: domain, context))
        default:
            var all = PrefDictionary()
            SuiteReading.everySuite(context, failure: &failure) { domain, contents in all[domain.displayName] = .dictionary(contents) }
            value = .dictionary(all)
        }
        guard invocation.has("keys") else {
            context.writeOutput(try ValueOutput.text(value, json: invocation.has("json")))
            return failure?.exitStatus ?? .success
        }
        guard case .dictionary(let dictionary) = value else {
            throw PrefsError.typeMismatch(domain: domain?.displayName ?? "", key: invocation.operands[1],
                                          reason: "--keys needs a dictionary, and the value is \(value.typeNameWithArticle)")
        }
        context.writeOutput(Array(dictionary.keys.map { $0 + "\n" }.joined().utf8))
        return failure?.exitStatus ?? .success
    }
}

/// Reading shared by read, read-type and find: a domain's contents (a suite, a file, or standard
/// input), the value at a key, and every suite in turn.
enum SuiteReading {
    static func contents(of domain: Domain, _ context: CommandContext) throws -> PrefDictionary {
        if domain == .standardInput {
            guard case .dictionary(let contents) = try PropertyList.decode(try StandardInput.read()).value else {
                throw PrefsError.malformed(source: "standard input", format: nil, reason: "the root is not a dictionary")
            }
            return contents
        }
        guard let suite = try context.store.load(domain) else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
        return suite.contents
    }

    /// The value at KEY: from a suite or file without building the rest of it, or from standard input.
    static func value(of key: String, in domain: Domain, _ context: CommandContext) throws -> PrefValue {
        let path = try KeyArguments.path(key, in: domain)
        let found: PrefValue?
        if domain == .standardInput {
            let contents = try contents(of: domain, context)
            found = try KeyPathError.attributing(domain: domain.displayName, path: path) { try contents.value(at: path) }
        } else {
            found = try context.store.value(at: path, in: domain)
        }
        guard let found else { throw PrefsError.keyNotFound(domain: domain.displayName, key: path.display) }
        return found
    }

    /// Every suite, then the global suite (as `defaults read` lists them). A suite that cannot be
    /// read is reported on standard error and skipped; `failure` keeps the first error.
    static func everySuite(_ context: CommandContext, failure: inout PrefsError?, _ body: (Domain, PrefDictionary) -> Void) {
        var domains: [Domain] = [.global]
        do {
            domains = try context.store.suiteNames().map { Domain.suite($0) } + domains
        } catch let error as PrefsError {
            context.printError(error.message)
            failure = failure ?? error
        } catch {
            failure = failure ?? PrefsError.internalError("\(error)")
        }
        for domain in domains {
            do {
                if let suite = try context.store.load(domain) { body(domain, suite.contents) }
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
    static func path(_ argument: String, in domain: Domain) throws -> KeyPath {
        do {
            return try KeyPath(argument: argument)
        } catch PrefsError.usage(let message) {
            throw PrefsError.usage("\(domain.displayName): \(message)")
        }
    }
}
