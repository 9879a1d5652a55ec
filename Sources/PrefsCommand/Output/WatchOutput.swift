import PrefsCore

/// How `watch` prints a change.
enum WatchOutput {
    /// `KEY OLD -> NEW`: scalars bare as `read` prints them, containers on one line, `(absent)` for
    /// a key that had no value and `(removed)` for one that has none now. A key or string holding a
    /// line break or another control character is quoted, so a change is always one line.
    static func line(_ change: WatchChange) -> String {
        func text(_ value: PrefValue?, missing: String) -> String {
            guard let value else { return missing }
            if case .string(let string) = value { return oneLine(string) }
            return ValueOutput.bare(value) ?? ValueOutput.line(value)
        }
        return "\(oneLine(change.key)) \(text(change.old, missing: "(absent)")) -> \(text(change.new, missing: "(removed)"))"
    }

    /// `text` as it is, or quoted when it holds a line break or another control character: one line.
    static func oneLine(_ text: String) -> String {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? ValueOutput.quotedIfNeeded(text) : text
    }

    /// `{"suite":…,"key":…,"old":…,"new":…}` on one line; null for no value.
    static func jsonLine(_ change: WatchChange, domain: Domain) -> String {
        func json(_ value: PrefValue?) -> String {
            guard let value else { return "null" }
            // A real JSON cannot spell (NaN, infinity) is given as its text.
            let bytes = (try? JSONTextEncoder.encode(value, pretty: false)) ?? (try? JSONTextEncoder.encode(.string(ValueOutput.line(value)), pretty: false))
            return String(decoding: bytes ?? Array("null".utf8), as: UTF8.self)
        }
        return "{\"suite\":\(json(.string(domain.displayName))),\"key\":\(json(.string(change.key))),\"old\":\(json(change.old)),\"new\":\(json(change.new))}"
    }
}
