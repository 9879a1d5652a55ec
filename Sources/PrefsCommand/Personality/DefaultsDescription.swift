import Glibc
import PrefsCore

/// Values as macOS `defaults read` prints them: `-[NSObject description]`, the old-style text of
/// Foundation. A scalar alone prints bare (a string as it is, a boolean as 1 or 0, a date as
/// `2026-01-02 03:04:05 +0000`, data as `{length = 2, bytes = 0xdead}`); a container prints one item
/// per line, indented 4 spaces a level, a nested container opening after its own indentation
/// (`key =     {`), dictionary keys sorted. Inside a container a string, number or date is quoted
/// unless it is made of ASCII letters and digits only, with `\"`, `\\`, `\n`, `\t`, `\r` escaped, and
/// every other character that is not printable ASCII as `\\Uxxxx` (a UTF-16 unit), with two
/// backslashes as macOS prints it: `"\\U9009\\U62e9" = "^j";`, a line a shell script pastes between
/// double quotes into `defaults write … -dict-add`, where it reads back as the text; data is never
/// quoted.
enum DefaultsDescription {
    /// What `defaults read DOMAIN KEY` prints for a value (without the final newline).
    static func text(_ value: PrefValue) -> String {
        switch value {
        case .string(let string): return string
        case .array, .dictionary: return container(value, level: 0)
        default: return scalar(value)
        }
    }

    /// A scalar's description, unquoted.
    static func scalar(_ value: PrefValue) -> String {
        switch value {
        case .string(let string): return string
        case .integer(let i): return String(i)
        case .unsignedInteger(let u): return String(u)
        case .real(let r): return real(r)
        case .bool(let b): return b ? "1" : "0"
        case .date(let date): return date.iso8601(wholeSeconds: true).replacingFirst("T", with: " ").dropLast() + " +0000"
        case .data(let bytes): return data(bytes)
        case .uid(let u): return "<CFKeyedArchiverUID>{value = \(u)}"
        case .array, .dictionary: return container(value, level: 0)
        }
    }

    /// NSNumber's description: 16 significant digits for a double, 7 for a float. A value that a
    /// 32-bit float holds exactly, and that is not a whole number, is taken for a float: what
    /// `defaults write -float` stores (prefs's files keep it as a 64-bit real).
    static func real(_ r: Double) -> String {
        let digits = r.isFinite && Double(Float(r)) == r && r.rounded() != r ? 7 : 16
        return CFormat.g(r, significantDigits: digits)
    }

    /// `{length = N, bytes = 0x…}`: every byte up to 24, else the first 16 and the last 8, in groups
    /// of four, around ` ... `.
    static func data(_ bytes: [UInt8]) -> String {
        var text = "{length = \(bytes.count), bytes = 0x"
        guard bytes.count > 24 else { return text + Hex.encode(bytes) + "}" }
        for start in stride(from: 0, to: 16, by: 4) { text += Hex.encode(Array(bytes[start..<start + 4])) + " " }
        text += "... "
        for start in stride(from: bytes.count - 8, to: bytes.count, by: 4) { text += Hex.encode(Array(bytes[start..<start + 4])) + " " }
        return text + "}"
    }

    static func container(_ value: PrefValue, level: Int) -> String {
        let indent = String(repeating: "    ", count: level), inner = indent + "    "
        switch value {
        case .array(let elements):
            guard !elements.isEmpty else { return indent + "(\n" + indent + ")" }
            return indent + "(\n" + elements.map { inner + item($0, level: level + 1) }.joined(separator: ",\n") + "\n" + indent + ")"
        case .dictionary(let dictionary):
            guard !dictionary.isEmpty else { return indent + "{\n" + indent + "}" }
            let entries = dictionary.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
            return indent + "{\n" + entries.map { inner + quoted($0.key) + " = " + item($0.value, level: level + 1) + ";\n" }.joined() + indent + "}"
        default:
            return item(value, level: level)
        }
    }

    /// An item inside a container.
    static func item(_ value: PrefValue, level: Int) -> String {
        switch value {
        case .array, .dictionary: return container(value, level: level)
        case .data, .uid: return scalar(value)
        default: return quoted(scalar(value))
        }
    }

    static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.utf8.allSatisfy { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        if plain { return text }
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                out += "\\\\U" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}

extension String {
    func replacingFirst(_ character: Character, with replacement: String) -> String {
        guard let index = firstIndex(of: character) else { return self }
        return String(self[..<index]) + replacement + String(self[self.index(after: index)...])
    }
}

/// printf's `%.Ng`, as Foundation's descriptions use it.
enum CFormat {
    static func g(_ value: Double, significantDigits: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = withVaList([Int32(significantDigits), value]) { vsnprintf(&buffer, buffer.count, "%.*g", $0) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
