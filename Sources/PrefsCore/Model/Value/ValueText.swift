/// Values typed on a command line, parsed strictly: a value that does not fit its type is an error,
/// never a silent 0 or false (`defaults write … -int abc` stores 0; prefs refuses).
package enum ValueText {
    static func refuse(_ flag: String, _ text: String, _ expected: String) -> PrefsError {
        .invalidValue(domain: nil, key: nil, flag: flag, given: text, reason: expected)
    }

    /// `-int`: decimal, optionally signed, from −2^63 to 2^64−1.
    package static func integer(_ text: String, flag: String = "-int") throws -> PrefValue {
        guard let value = NumberText.integer(text.utf8) else {
            throw refuse(flag, text, "not a decimal integer from -9223372036854775808 to 18446744073709551615")
        }
        return value
    }

    /// `-float`: a 64-bit real (`1.5`, `-2e-3`, `nan`, `inf`); a finite number too large is refused.
    package static func real(_ text: String, flag: String = "-float") throws -> PrefValue {
        guard let value = NumberText.real(text.utf8, allowNamedValues: true) else {
            throw refuse(flag, text, "not a 64-bit real number")
        }
        return .real(value)
    }

    /// `-bool`: true, false, yes or no, in any case.
    package static func bool(_ text: String, flag: String = "-bool") throws -> PrefValue {
        switch text.lowercased() {
        case "true", "yes": return .bool(true)
        case "false", "no": return .bool(false)
        default: throw refuse(flag, text, "not true, false, yes or no")
        }
    }

    /// `-date`: ISO 8601 (`2026-01-02T03:04:05Z`, `…+01:00`, a date alone) or defaults' own
    /// `2026-01-02 03:04:05 +0000`.
    package static func date(_ text: String, flag: String = "-date") throws -> PrefValue {
        guard let date = PrefDate(iso8601: text) else {
            throw refuse(flag, text, "not an ISO 8601 date with a time zone (2026-01-02T03:04:05Z) in the years 0001–9999")
        }
        return .date(date)
    }

    /// `-data`: hexadecimal digits, two per byte.
    package static func data(_ text: String, flag: String = "-data") throws -> PrefValue {
        guard let bytes = Hex.decode(text) else { throw refuse(flag, text, "not hexadecimal bytes (two digits per byte)") }
        return .data(bytes)
    }

    /// `-json`: a JSON value (the plain mapping, or typed JSON when marked as such).
    package static func json(_ text: String, flag: String = "-json") throws -> PrefValue {
        do {
            return try PropertyList.decode(Array(text.utf8), as: .json).typedIfMarked()
        } catch let error as PrefsError {
            throw PrefsError.invalidDocument(domain: nil, key: nil, what: flag, error: error)
        }
    }

    /// A property list given as text (OpenStep `(a, b)` / `{ k = v; }` / `<0a0b>`, XML, or JSON), as
    /// `defaults write` accepts.
    package static func propertyList(_ text: String) throws -> PrefValue {
        do {
            return try PropertyList.decode(Array(text.utf8)).value
        } catch let error as PrefsError {
            throw PrefsError.invalidDocument(domain: nil, key: nil, what: "property list \"\(text.prefix(40))\"", error: error)
        }
    }
}

extension PrefValue {
    /// A JSON value read as plain JSON, turned into what it describes when it is typed JSON.
    func typedIfMarked() throws -> PrefValue {
        TypedJSON.isTypedDocument(self) ? try TypedJSON.decode(self) : self
    }
}
