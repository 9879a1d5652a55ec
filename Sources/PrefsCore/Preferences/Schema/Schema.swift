/// A suite's schema: for each key it declares, a type, a default, a range or a list of choices and a
/// description; and whether keys it does not declare may be stored. Read from a plist or JSON
/// dictionary (see `Schema.init(document:source:)` for the format, documented in the man page):
///
///     { "description": "…", "allowUndeclaredKeys": false,
///       "keys": { "timeout": { "type": "integer", "default": 30, "min": 1, "max": 300,
///                              "description": "seconds before giving up" },
///                 "logLevel": { "type": "string", "choices": ["debug", "info"], "default": "info" },
///                 "hosts": { "type": "array", "element": "string" } } }
package struct Schema: Equatable, Sendable {
    /// The eight value types, named as `read-type` names them.
    package enum ValueType: String, CaseIterable, Sendable {
        case string, integer, float, boolean, date, data, array, dictionary

        /// Whether `value` is of this type (an integer is not a float: nothing is coerced).
        package func matches(_ value: PrefValue) -> Bool {
            switch (self, value) {
            case (.string, .string), (.integer, .integer), (.integer, .unsignedInteger), (.float, .real), (.boolean, .bool),
                 (.date, .date), (.data, .data), (.array, .array), (.dictionary, .dictionary): return true
            default: return false
            }
        }

        /// "an integer", "a string".
        package var withArticle: String { (self == .integer || self == .array ? "an " : "a ") + rawValue }

        /// The type flag `write` types a VALUE of this type with; nil for the containers.
        package var typeFlag: String? {
            switch self {
            case .string: return "-string"
            case .integer: return "-int"
            case .float: return "-float"
            case .boolean: return "-bool"
            case .date: return "-date"
            case .data: return "-data"
            case .array, .dictionary: return nil
            }
        }

        /// Whether a range (min, max) means something for values of this type.
        var isOrdered: Bool { self == .integer || self == .float || self == .date }
    }

    /// What a schema says of one key.
    package struct Key: Equatable, Sendable {
        package var type: ValueType
        /// For an array: the type of every element (nil: any).
        package var element: ValueType?
        package var defaultValue: PrefValue?
        package var minimum: PrefValue?
        package var maximum: PrefValue?
        /// The only values allowed (for an array, its elements), when the set is closed.
        package var choices: [PrefValue]?
        package var description: String?

        package init(type: ValueType) { self.type = type }

        /// The type that a range or choices constrain: the element type for an array.
        var constrained: ValueType? { type == .array ? element : type }
    }

    /// The declared keys, in code-point order.
    package var keys: [(name: String, key: Key)]
    /// Whether keys the schema does not declare may be stored (default true).
    package var allowsUndeclaredKeys: Bool
    package var description: String?

    package init(keys: [(name: String, key: Key)], allowsUndeclaredKeys: Bool = true, description: String? = nil) {
        self.keys = keys.sorted { $0.name.utf8Compare($1.name) < 0 }
        self.allowsUndeclaredKeys = allowsUndeclaredKeys
        self.description = description
    }

    package static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.allowsUndeclaredKeys == rhs.allowsUndeclaredKeys && lhs.description == rhs.description
            && lhs.keys.count == rhs.keys.count && zip(lhs.keys, rhs.keys).allSatisfy { $0.name.utf8Compare($1.name) == 0 && $0.key == $1.key }
    }

    /// What the schema says of `name`; nil when it does not declare it.
    package func key(_ name: String) -> Key? {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            switch keys[middle].name.utf8Compare(name) {
            case 0: return keys[middle].key
            case ..<0: low = middle + 1
            default: high = middle
            }
        }
        return nil
    }

    /// The defaults the schema declares: registered defaults of the lowest layer.
    package var defaults: PrefDictionary {
        PrefDictionary(keys.compactMap { entry in entry.key.defaultValue.map { (entry.name, $0) } })
    }

    /// The largest schema file read: a schema is read on every write of its suite.
    package static let maximumSize = 4 << 20
}
