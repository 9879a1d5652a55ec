import PrefsCore

/// `prefs read [DOMAIN [KEY]] [--json | --keys]` — a scalar prints bare on one line (for `$(…)`); a
/// container, a whole suite, or (with no domain) every suite prints in the readable form, or as
/// JSON; `--keys` prints the keys of a dictionary one per line. A missing suite or key exits 1.
enum ReadCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let value: PrefValue
        var failure: PrefsError?
        switch invocation.operands.count {
        case 0: value = .dictionary(allSuites(context, failure: &failure))
        case 1: value = .dictionary(try SuiteReading.contents(of: try Domain(argument: invocation.operands[0]), context))
        default: value = try SuiteReading.value(of: invocation.operands[1], in: try Domain(argument: invocation.operands[0]), context)
        }
        guard invocation.has("keys") else {
            context.writeOutput(try ValueOutput.text(value, json: invocation.has("json")))
            return failure?.exitStatus ?? .success
        }
        guard case .dictionary(let dictionary) = value else {
            throw PrefsError.typeMismatch(domain: invocation.operands[0], key: invocation.operands[1], reason: "--keys needs a dictionary, and the value is a \(value.typeName)")
        }
        context.writeOutput(Array(dictionary.keys.map { $0 + "\n" }.joined().utf8))
        return failure?.exitStatus ?? .success
    }

    /// Every suite by name, and the global suite as NSGlobalDomain (like `defaults read`). A suite that
    /// cannot be read is reported on standard error and left out; `failure` keeps the first error.
    static func allSuites(_ context: CommandContext, failure: inout PrefsError?) -> PrefDictionary {
        var all = PrefDictionary()
        var domains = ((try? context.store.suiteNames()) ?? []).map { Domain.suite($0) }
        domains.append(.global)
        for domain in domains {
            do {
                if let suite = try context.store.load(domain) { all[domain.displayName] = .dictionary(suite.contents) }
            } catch let error as PrefsError {
                context.printError(error.message)
                failure = failure ?? error
            } catch {
                failure = failure ?? PrefsError.internalError("\(error)")
            }
        }
        return all
    }
}

/// Reading shared by read, read-type and find: a domain's contents (a suite, a file, or standard
/// input) and the value at a key.
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
        let path = try KeyPath(argument: key)
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
}
