/// One key of `describe`: what the schema says of it, and what an application sees now.
public struct KeyDescription: Sendable {
    public let name: String
    public let key: Schema.Key
    /// The value an application sees, and the layer it comes from; nil when none has it.
    public let value: PrefValue?
    public let origin: Origin?

    /// Whether an administrator manages the key: no verb of a user changes it (77).
    public var isManaged: Bool {
        if case .managed? = origin { return true }
        return false
    }
}

/// `describe` and `check`: a suite's schema read back, and its stored values checked against it.
extension SuiteStore {
    /// `describe DOMAIN [KEY]`: the schema's keys (or just KEY, which it must declare), each with
    /// the value it has now and where that comes from. `.schemaNotFound` when there is no schema.
    public func describeSchema(of domain: Domain, key: String?) throws -> (schema: LoadedSchema, keys: [KeyDescription]) {
        try domain.checkName()
        guard let name = domain.registrationName else { throw PrefsError.usage("\(domain.displayName): a file has no schema; name a suite") }
        guard let loaded = try schema(filedAs: name) else { throw PrefsError.schemaNotFound(domain: domain.displayName) }
        let resolved = try layers(of: domain, scope: ReadScope()).resolved(evenIfMissing: true)
        var keys: [KeyDescription] = []
        for declared in loaded.schema.keys where key.map({ $0.utf8Compare(declared.name) == 0 }) ?? true {
            let (found, position) = resolved.values.search(declared.name)
            let index = found ? position : nil
            keys.append(KeyDescription(name: declared.name, key: declared.key, value: index.map { resolved.values.entries[$0].value },
                                       origin: index.map { resolved.origins[$0] }))
        }
        if let key, keys.isEmpty { throw PrefsError.keyNotFound(domain: "\(domain.displayName) (schema)", key: KeyPath.escape(key)) }
        return (loaded, keys)
    }

    /// `check DOMAIN`: each stored top-level value that breaks the suite's schema, as
    /// `KEY: REASON`; nil when the suite has no schema.
    public func schemaProblems(_ domain: Domain) throws -> (schema: LoadedSchema, problems: [String])? {
        try domain.checkName()
        guard let name = domain.registrationName, let loaded = try schema(filedAs: name) else { return nil }
        var problems: [String] = []
        for entry in try load(domain)?.contents ?? PrefDictionary() {
            if let reason = loaded.schema.violation(key: entry.key, value: entry.value) { problems.append(KeyPath.escape(entry.key) + ": " + reason) }
        }
        return (loaded, problems)
    }
}
