import PrefsCore

/// The readable form of values: scalars bare on one line for `$(…)`, containers in a readable text
/// form (JSON is `JSONPrinter`'s).
enum ValueOutput {
    /// The bare form of a scalar (`ReadableText.bare`): nil for a container.
    static func bare(_ value: PrefValue) -> String? { ReadableText.bare(value) }

    /// What `read` prints for a value, with a final newline. With `abbreviatingData` (a whole
    /// suite), data over 64 bytes inside a container is shown as `{length = N, bytes = 0x… }`.
    static func text(_ value: PrefValue, abbreviatingData: Bool = false) -> [UInt8] {
        if let line = bare(value) { return Array((line + "\n").utf8) }
        var out = ""
        readable(value, indent: 0, abbreviatingData: abbreviatingData, into: &out)
        return Array((out + "\n").utf8)
    }

    /// The readable form (`ReadableText.readable`).
    static func readable(_ value: PrefValue, indent: Int?, abbreviatingData: Bool = false, into out: inout String) {
        ReadableText.readable(value, indent: indent, abbreviatingData: abbreviatingData, into: &out)
    }

    /// The readable form on one line (`{ a = 1; b = (x, y); }`), for listings and change reports.
    static func line(_ value: PrefValue, abbreviatingData: Bool = false) -> String {
        ReadableText.line(value, abbreviatingData: abbreviatingData)
    }

    static func quotedIfNeeded(_ string: String) -> String { ReadableText.quotedIfNeeded(string) }
}

extension ValueOutput {
    /// One line of a change report (`--dry-run`): `+ KEY = NEW` (added), `- KEY = OLD` (removed),
    /// `~ KEY = OLD -> NEW` (replaced), values on one line in the readable form, each longer than
    /// `reportLimit` summarised (`summary`).
    static func report(_ change: KeyChange) -> String {
        let key = quotedIfNeeded(change.key)
        switch (change.old, change.new) {
        case (nil, let new?): return "+ \(key) = \(reported(new))"
        case (let old?, nil): return "- \(key) = \(reported(old))"
        case (let old?, let new?): return "~ \(key) = \(reported(old)) -> \(reported(new))"
        case (nil, nil): return "~ \(key)"
        }
    }

    /// The longest value a change report prints whole, in bytes of its one-line form.
    static let reportLimit = 1024

    static func reported(_ value: PrefValue) -> String {
        let text = line(value)
        return text.utf8.count > reportLimit ? summary(value, line: text) : text
    }

    /// `<data: 700000 bytes, sha256 HEX>` (`ReadableText.summary`).
    static func summary(_ value: PrefValue, line: String) -> String { ReadableText.summary(value, line: line) }
}
