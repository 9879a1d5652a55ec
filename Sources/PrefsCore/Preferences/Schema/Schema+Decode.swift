/// Reading a schema from the dictionary a plist or JSON file holds, strictly: a member the format
/// does not have (a misspelt `mni`), a type that is not one of the eight, a range on a string, a
/// default outside its own range or choices — each is a malformed schema (65), naming the key and
/// the member, and nothing of it is used.
extension Schema {
    static let rootMembers: Set<String> = ["keys", "allowUndeclaredKeys", "description"]
    static let keyMembers: Set<String> = ["type", "element", "default", "min", "max", "choices", "description"]

    /// The schema a document holds; `source` names it in errors.
    package init(document: PrefDictionary, source: String) throws {
        func malformed(_ reason: String) -> PrefsError { .malformed(source: source, format: nil, reason: "schema: " + reason) }
        for entry in document where !Schema.rootMembers.contains(entry.key) {
            throw malformed("unknown member \"\(PrefKeyPath.escape(entry.key))\" (a schema has keys, allowUndeclaredKeys and description)")
        }
        guard case .dictionary(let declared)? = document["keys"] else {
            throw malformed("\"keys\" must be a dictionary of the keys the suite has")
        }
        var allows = true
        switch document["allowUndeclaredKeys"] {
        case nil: break
        case .bool(let value)?: allows = value
        case let other?: throw malformed("\"allowUndeclaredKeys\" must be a boolean, not \(other.typeNameWithArticle)")
        }
        var description: String?
        switch document["description"] {
        case nil: break
        case .string(let text)?: description = text
        case let other?: throw malformed("\"description\" must be a string, not \(other.typeNameWithArticle)")
        }
        var keys: [(name: String, key: Key)] = []
        for entry in declared {
            let name = PrefKeyPath.escape(entry.key)
            if entry.key.isEmpty { throw malformed("a key name is empty") }
            if entry.key.utf8.contains(0) { throw malformed("key \(name): a key name cannot contain NUL") }
            guard case .dictionary(let members) = entry.value else {
                throw malformed("key \(name): must be a dictionary (type, default, min, max, choices, description), not \(entry.value.typeNameWithArticle)")
            }
            do {
                keys.append((entry.key, try Key(members)))
            } catch let reason as SchemaReason {
                throw malformed("key \(name): " + reason.text)
            }
        }
        self.init(keys: keys, allowsUndeclaredKeys: allows, description: description)
    }
}

/// Why a key's declaration is refused (the caller adds the schema and the key).
struct SchemaReason: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

extension Schema.Key {
    init(_ members: PrefDictionary) throws {
        for entry in members where !Schema.keyMembers.contains(entry.key) {
            throw SchemaReason("unknown member \"\(PrefKeyPath.escape(entry.key))\" (a key has type, element, default, min, max, choices and description)")
        }
        self.init(type: try Schema.Key.type(members["type"], member: "type"))
        if let element = members["element"] {
            guard type == .array else { throw SchemaReason("\"element\" is for arrays, and the type is \(type.rawValue)") }
            self.element = try Schema.Key.type(element, member: "element")
        }
        switch members["description"] {
        case nil: break
        case .string(let text)?: description = text
        case let other?: throw SchemaReason("\"description\" must be a string, not \(other.typeNameWithArticle)")
        }
        try readConstraints(members)
        if let value = members["default"] {
            let given = try Schema.Key.dated(value, as: type, element: element)
            if let violation = violation(given) { throw SchemaReason("the default breaks the key's own rule: expected \(rule), \(violation)") }
            defaultValue = given
        }
    }

    static func type(_ value: PrefValue?, member: String) throws -> Schema.ValueType {
        guard let value else { throw SchemaReason("no \"\(member)\"") }
        guard case .string(let name) = value, let type = Schema.ValueType(rawValue: name) else {
            let names = Schema.ValueType.allCases.map(\.rawValue).joined(separator: ", ")
            throw SchemaReason("\"\(member)\" must be one of \(names), not \(SchemaViolation.describe(value))")
        }
        return type
    }

    /// min, max and choices: checked against the type they constrain, and against each other.
    mutating func readConstraints(_ members: PrefDictionary) throws {
        let hasRange = members["min"] != nil || members["max"] != nil
        if hasRange || members["choices"] != nil {
            guard let constrained else { throw SchemaReason("a range or choices constrain a scalar, or an array's elements (give \"element\")") }
            if hasRange && members["choices"] != nil { throw SchemaReason("give a range (min, max) or choices, not both") }
            if hasRange && !constrained.isOrdered { throw SchemaReason("min and max are for integers, floats and dates, not \(constrained.rawValue)s") }
        }
        for (member, bound) in [("min", members["min"]), ("max", members["max"])] {
            guard let bound else { continue }
            let value = try Schema.Key.dated(bound, as: constrained!, element: nil)
            let numeric: Bool
            switch value {
            case .integer, .unsignedInteger, .real: numeric = constrained != .date
            case .date: numeric = constrained == .date
            default: numeric = false
            }
            guard numeric, !value.isNaN else {
                throw SchemaReason("\"\(member)\" must be \(constrained == .date ? "a date" : "a number"), not \(SchemaViolation.describe(value))")
            }
            if member == "min" { minimum = value } else { maximum = value }
        }
        if let minimum, let maximum, Schema.compare(minimum, maximum) == .orderedDescending {
            throw SchemaReason("min \(SchemaViolation.describe(minimum)) is above max \(SchemaViolation.describe(maximum))")
        }
        guard let list = members["choices"] else { return }
        guard case .array(let given) = list, !given.isEmpty else { throw SchemaReason("\"choices\" must be a non-empty array") }
        let choices = try given.map { try Schema.Key.dated($0, as: constrained!, element: nil) }
        for choice in choices where !constrained!.matches(choice) {
            throw SchemaReason("choice \(SchemaViolation.describe(choice)) is not \(constrained!.withArticle)")
        }
        self.choices = choices
    }

    /// A JSON schema spells a date as ISO 8601 text: for a date type, such a string is the date.
    static func dated(_ value: PrefValue, as type: Schema.ValueType, element: Schema.ValueType?) throws -> PrefValue {
        switch (value, type) {
        case (.string(let text), .date):
            guard let date = PrefDate(iso8601: text) else { throw SchemaReason("\(SchemaViolation.describe(value)) is not an ISO 8601 date") }
            return .date(date)
        case (.array(let elements), .array) where element == .date:
            return .array(try elements.map { try dated($0, as: .date, element: nil) })
        default:
            return value
        }
    }
}

extension PrefValue {
    var isNaN: Bool {
        if case .real(let x) = self { return x.isNaN }
        return false
    }
}
