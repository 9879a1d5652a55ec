extension Prefs.Suite {
    /// The stored form of `value` for `key`. Any error is a `PrefsError.invalidValue` naming the
    /// suite and the key (and where in the value it went wrong).
    func encoded<Value: Encodable>(_ value: Value, key: String) throws -> PrefValue? {
        do {
            return try PrefValueEncoder().encode(value)
        } catch let error as PrefCodingError {
            throw PrefsError.invalidValue(domain: name, key: key, flag: nil, given: nil, reason: error.sentence)
        } catch let error as PrefsError {
            throw error.at(domain: name, key: key)
        } catch {
            // The value's own `encode(to:)` refused (an `EncodingError`, or an error of its own).
            let (path, detail) = CodingRefusal.parts(of: error)
            throw PrefsError.invalidValue(domain: name, key: key, flag: nil, given: nil, reason: CodingRefusal.place(path) + detail)
        }
    }

    /// `value`, stored under `key`, as a `Value`. Any error is a `PrefsError.typeMismatch` naming the
    /// suite, the key and what was found: the type's own refusal too (an enum's unknown raw value:
    /// `com.example.app: theme: found purple: cannot initialize Theme from invalid String value purple`).
    /// A `Bool` reads the strings `UserDefaults.bool(forKey:)` reads (`booleanWord`).
    func decoded<Value: Decodable>(_ type: Value.Type, from value: PrefValue, key: String) throws -> Value {
        try Prefs.Suite.decoded(type, from: value, key: key, suite: name)
    }

    /// `decoded(_:from:key:)` for the suite `name`.
    static func decoded<Value: Decodable>(_ type: Value.Type, from value: PrefValue, key: String, suite name: String) throws -> Value {
        let value = Value.self == Bool.self || Value.self == Bool?.self ? value.booleanWord ?? value : value
        do {
            return try PrefValueDecoder().decode(type, from: value)
        } catch let error as PrefCodingError {
            throw PrefsError.typeMismatch(domain: name, key: key, reason: error.sentence)
        } catch let error as PrefsError {
            throw error.at(domain: name, key: key)
        } catch {
            let (path, detail) = CodingRefusal.parts(of: error)
            let found = CodingRefusal.member(at: path, of: value).map { ReadableText.line($0) } ?? "nothing"
            throw PrefsError.typeMismatch(domain: name, key: key, reason: CodingRefusal.place(path) + "found \(found): " + detail)
        }
    }
}

extension PrefValue {
    /// The boolean a string stands for as `UserDefaults.bool(forKey:)` reads it — `true`, `yes` and
    /// `1` true, `false`, `no` and `0` false, in any case (what `prefs write S K true` stores, as
    /// macOS `defaults` does) — else nil. Other strings, which Foundation reads by their first
    /// letter (`tomato` true, `banana` false), stay a type mismatch.
    var booleanWord: PrefValue? {
        guard case .string(let text) = self, text.utf8.count <= 5 else { return nil }
        switch text.lowercased() {
        case "true", "yes", "1": return .bool(true)
        case "false", "no", "0": return .bool(false)
        default: return nil
        }
    }
}

/// What a value's own `Codable` conformance threw, as a sentence's parts.
enum CodingRefusal {
    /// Where in the value (the error's coding path) and what it said, starting lowercase.
    static func parts(of error: any Error) -> (path: [any CodingKey], detail: String) {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
             DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return (context.codingPath, context.debugDescription.lowercasedFirst)
        case EncodingError.invalidValue(_, let context):
            return (context.codingPath, context.debugDescription.lowercasedFirst)
        default:
            return ([], "\(error)".lowercasedFirst)
        }
    }

    /// `at window.frame.0: `, or nothing at the top.
    static func place(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "" : "at \(path.map(\.stringValue).joined(separator: ".")): "
    }

    /// The member of `value` at `path` (dictionary keys and array indices), if there is one.
    static func member(at path: [any CodingKey], of value: PrefValue) -> PrefValue? {
        path.reduce(value as PrefValue?) { found, key in
            switch found {
            case .dictionary(let dictionary)?: return dictionary[key.stringValue]
            case .array(let elements)?: return key.intValue.flatMap { elements.indices.contains($0) ? elements[$0] : nil }
            default: return nil
            }
        }
    }
}
