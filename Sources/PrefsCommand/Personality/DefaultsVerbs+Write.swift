import PrefsCore

/// The `defaults` verbs that change a domain, each one PrefsCore operation (locked, atomic,
/// durable, as every prefs change), failing with the messages of macOS `defaults`. A failure of
/// prefs's own (a suite that cannot be parsed, a lock not obtained…) is `defaults`' "Could not
/// write domain" message with prefs's reason after it.
extension DefaultsVerbs {
    /// `write DOMAIN KEY VALUE` and `write DOMAIN PLIST`.
    static func write(_ domain: Domain, _ rest: ArraySlice<String>, _ context: CommandContext) throws {
        let request: WriteRequest
        do {
            request = try WriteRequest.parseDefaults(rest)
        } catch {
            throw DefaultsFailure(error)
        }
        do {
            _ = try context.store.write(request, to: domain, options: WriteOptions())
        } catch PrefsError.typeMismatch {
            guard case .changes(let changes) = request, let change = changes.first, let flag = change.flag, flag.hasSuffix("-add") else { throw PrefsError.internalError("type mismatch") }
            let type = flag == "-array-add" ? "an array" : "a dictionary"
            throw DefaultsFailure.log("Value for key \(change.path.first) is not \(type); cannot append.  Leaving defaults unchanged.")
        } catch let error as PrefsError {
            throw DefaultsFailure.log("Could not write domain \(DefaultsMessages.name(domain)); exiting (\(error.message))")
        }
    }

    /// `rename DOMAIN OLD NEW`.
    static func rename(_ domain: Domain, _ rest: ArraySlice<String>, _ context: CommandContext) throws {
        guard rest.count == 2, let old = rest.first, let new = rest.last else { throw DefaultsFailure.usage }
        do {
            _ = try context.store.rename(PrefKeyPath([old]), to: PrefKeyPath([new]), in: domain, dryRun: false)
        } catch PrefsError.keyNotFound, PrefsError.suiteNotFound {
            throw DefaultsFailure.log("Key \(old) does not exist in domain \(DefaultsMessages.name(domain)); leaving defaults unchanged")
        } catch let error as PrefsError {
            throw DefaultsFailure.log("Failed to write domain \(DefaultsMessages.name(domain)) (\(error.message))")
        }
    }

    /// `delete DOMAIN [KEY]` (also `remove` and `delete-all`).
    static func delete(_ domain: Domain, _ rest: ArraySlice<String>, _ context: CommandContext) throws {
        guard rest.count <= 1 else { throw DefaultsFailure.usage }
        do {
            _ = try context.store.delete(rest.first.map { PrefKeyPath([$0]) }, in: domain, dryRun: false)
        } catch PrefsError.keyNotFound, PrefsError.suiteNotFound {
            throw DefaultsFailure.log("\nDomain (\(DefaultsMessages.preferencesName(domain))) not found.\nDefaults have not been changed.\n")
        }
    }

    /// `import DOMAIN PATH|-`: a binary, XML or old-style plist dictionary (not JSON, as on macOS),
    /// merged key by key.
    static func importPlist(_ domain: Domain, _ rest: ArraySlice<String>, _ context: CommandContext) throws {
        guard let source = rest.first else { throw DefaultsFailure.log("\nNeed a path to read from") }
        let bytes: [UInt8]
        do {
            bytes = try DocumentInput(fileSystem: context.fileSystem).bytes(from: source.trimmingSpaces == "-" ? "-" : source)
        } catch {
            throw DefaultsFailure.log("Could not read data from \(source)")
        }
        let value: PrefValue
        do {
            let decoded = try PropertyList.decode(bytes)
            guard [.binary, .xml, .openStep].contains(decoded.format) else {
                throw PrefsError.malformed(source: nil, format: decoded.format, reason: "not a property list")
            }
            value = decoded.value
        } catch let error as PrefsError {
            throw DefaultsFailure.log("Could not parse property list from \(source) due to \(error.message)")
        }
        guard case .dictionary(let incoming) = value else {
            throw DefaultsFailure.log("Property list \(DefaultsDescription.text(value)) was not a dictionary\nDefaults have not been changed.\n")
        }
        _ = try context.store.merge(incoming, into: domain)
    }
}
