import PrefsCore

/// How `watch` prints a change in the readable form (`ReadablePrinter.changes`), and a key on one
/// line (`ExecRunner`'s `PREFS_KEYS`).
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
}
