/// `write S K VALUE` without a type flag stores VALUE as the schema types K: an integer key gets
/// an integer (`-int`), a boolean key a boolean, and so on; a VALUE that does not spell one is
/// refused (65). A flag given, a string key, or a container keeps `write`'s own typing.
extension WriteRequest {
    func typed(by schema: Schema, domain: String) throws -> WriteRequest {
        guard case .changes(let changes) = self else { return self }
        return .changes(try changes.map { change in
            guard change.flag == nil, case .set(.string(let text)) = change.action,
                  let type = schema.valueType(at: change.path), let flag = type.typeFlag, type != .string else { return change }
            let value = try PrefsError.locating(domain: domain, key: change.path.display) {
                try WriteRequest.typed(flag, text, label: "\(type.rawValue) (the schema's type)")
            }
            return Change(path: change.path, action: .set(value), flag: flag)
        })
    }
}

extension Schema {
    /// The type a value at `path` has: a key's, or an array key's element type at `:KEY:N`.
    func valueType(at path: PrefKeyPath) -> ValueType? {
        guard let key = key(path.first) else { return nil }
        switch path.components.count {
        case 1: return key.type
        case 2 where key.type == .array && path.components[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }): return key.element
        default: return nil
        }
    }
}

extension SuiteStore {
    /// A write's untyped VALUEs typed by the target's schema (as `schemaChoice` says).
    func typedBySchema(_ request: WriteRequest, for target: SuiteTarget) throws -> WriteRequest {
        try SuiteStore.typed(request, by: try schema(for: target), for: target)
    }

    static func typed(_ request: WriteRequest, by schema: LoadedSchema?, for target: SuiteTarget) throws -> WriteRequest {
        guard let schema else { return request }
        return try request.typed(by: schema.schema, domain: target.displayName)
    }
}
