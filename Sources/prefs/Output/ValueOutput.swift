import PrefsCore

/// How values are printed: scalars bare on one line for `$(…)`, containers in a readable text form,
/// or JSON.
enum ValueOutput {
    /// The bare form of a scalar: strings as they are, integers in decimal, reals in the shortest
    /// form that reads back exactly, booleans as true/false, dates as ISO 8601 UTC (fraction only when
    /// there is one), data as lowercase hex, UIDs as their number.
    static func bare(_ value: PrefValue) -> String? {
        switch value {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .unsignedInteger(let u): return String(u)
        case .real(let r): return r.description
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return d.iso8601()
        case .data(let bytes): return Hex.encode(bytes)
        case .uid(let u): return String(u)
        case .array, .dictionary: return nil
        }
    }

    /// What `read` prints for a value (with a final newline).
    static func text(_ value: PrefValue, json: Bool) throws -> [UInt8] {
        if json { return try PropertyList.encode(value, as: .json) }
        if let line = bare(value) { return Array((line + "\n").utf8) }
        var out = ""
        readable(value, indent: 0, into: &out)
        return Array((out + "\n").utf8)
    }

    /// The readable form, close to what `defaults read` prints but with every type visible:
    /// `{ key = value; }`, `( a, b )`, numbers and booleans bare, dates ISO 8601, data `<0a0b>`,
    /// UIDs `uid(7)`, strings quoted whenever they could be mistaken for anything else. With no
    /// indent, all on one line.
    static func readable(_ value: PrefValue, indent: Int?, into out: inout String) {
        let pad = indent.map { "\n" + String(repeating: "    ", count: $0 + 1) } ?? ""
        let close = indent.map { "\n" + String(repeating: "    ", count: $0) } ?? ""
        let inner = indent.map { $0 + 1 }
        switch value {
        case .string(let s): out += quotedIfNeeded(s)
        case .data(let bytes): out += "<" + Hex.encode(bytes) + ">"
        case .uid(let u): out += "uid(\(u))"
        case .array(let elements):
            guard !elements.isEmpty else { out += "()"; return }
            out += "("
            for (i, element) in elements.enumerated() {
                out += i == 0 ? pad : (indent == nil ? ", " : "," + pad)
                readable(element, indent: inner, into: &out)
            }
            out += close + ")"
        case .dictionary(let dictionary):
            guard !dictionary.isEmpty else { out += "{}"; return }
            out += "{"
            for entry in dictionary {
                out += (indent == nil ? " " : pad) + quotedIfNeeded(entry.key) + " = "
                readable(entry.value, indent: inner, into: &out)
                out += ";"
            }
            out += (indent == nil ? " " : close) + "}"
        default:
            out += bare(value) ?? ""
        }
    }

    /// The readable form on one line (`{ a = 1; b = (x, y); }`), for listings and change reports.
    static func line(_ value: PrefValue) -> String {
        var out = ""
        readable(value, indent: nil, into: &out)
        return out
    }

    static let reservedWords: Set<String> = ["true", "false", "yes", "no", "nan", "inf", "infinity", "uid"]

    static func quotedIfNeeded(_ string: String) -> String {
        let utf8 = string.utf8
        let plain = utf8.first.map { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || $0 == 0x5F } ?? false
            && utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2E || $0 == 0x2D }
            && !reservedWords.contains(string.lowercased())
        if plain { return string }
        var quoted = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                quoted += "\\U" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}

extension ValueOutput {
    /// One line of a change report (`--dry-run`): `+ KEY = NEW` (added), `- KEY = OLD` (removed),
    /// `~ KEY = OLD -> NEW` (replaced), values on one line in the readable form.
    static func report(_ change: KeyChange) -> String {
        let key = quotedIfNeeded(change.key)
        switch (change.old, change.new) {
        case (nil, let new?): return "+ \(key) = \(line(new))"
        case (let old?, nil): return "- \(key) = \(line(old))"
        case (let old?, let new?): return "~ \(key) = \(line(old)) -> \(line(new))"
        case (nil, nil): return "~ \(key)"
        }
    }
}
