/// Settings read from a text source for `migrate`: the values (all strings) and the keys that could
/// not be read cleanly (a key given twice), which the migration reports as errors for those keys
/// rather than silently keeping one of the values.
package struct TextSource: Sendable {
    package var contents = PrefDictionary()
    package var problems: [(path: PrefKeyPath, reason: String)] = []
    /// The values written in quotes (INI), which stay text under `--infer-types`.
    package var quoted: [PrefKeyPath] = []

    /// Where each key was first set, for the "given twice" message (keys compared by bytes).
    private var lines: [[[UInt8]]: Int] = [:]

    mutating func set(_ value: String, at path: [String], line: Int, quoted: Bool = false) {
        let place = PrefKeyPath(path)
        let bytes = path.map { Array($0.utf8) }
        if let first = lines[bytes] {
            problems.append((place, "given twice (lines \(first) and \(line))"))
            return
        }
        lines[bytes] = line
        do {
            try contents.setValue(.string(value), at: place)
            if quoted { self.quoted.append(place) }
        } catch {
            problems.append((place, "clashes with a section of the same name (line \(line))"))
        }
    }

    /// A section header: its dictionary exists from here on, even if no key follows.
    mutating func startSection(_ name: String, line: Int) {
        switch contents[name] {
        case nil: contents[name] = .dictionary(PrefDictionary())
        case .dictionary?: break
        case _?: problems.append((PrefKeyPath([name]), "clashes with a key of the same name (line \(line))"))
        }
    }

    /// The lines of UTF-8 text (after a byte-order mark), ended by LF or CRLF. Split on bytes: as a
    /// Swift `Character`, CR LF is one grapheme and would never match "\n".
    static func lines(_ bytes: [UInt8], format: String) throws -> [Substring] {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        return try body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated().map { number, line in
            guard let text = String(validating: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self) else {
                throw PrefsError.malformed(source: nil, format: nil, reason: "\(format): line \(number + 1): not UTF-8 text")
            }
            return text[...]
        }
    }

    static func failure(_ format: String, line: Int, _ reason: String) -> PrefsError {
        .malformed(source: nil, format: nil, reason: "\(format): line \(line): \(reason)")
    }
}

/// INI files, much as Python's configparser reads them with interpolation off: `[section]`
/// headers, `key = value` or `key: value` lines, full-line `;` and `#` comments. Each section
/// becomes a dictionary of strings under its name (an empty section, an empty dictionary); keys
/// before the first section are top-level. Unlike configparser, keys keep their case and there are
/// no continuation lines. Keys and values are trimmed, an empty value is an empty string, a value
/// wholly in double or single quotes loses them (as PHP's `parse_ini_file`, git config and systemd
/// read it; configparser keeps them) and stays text under `--infer-types` (as PHP's typed INI
/// reading keeps a quoted `"8080"` or `"on"` a string), and nothing else is interpreted (no escapes; an inline `;`
/// stays part of the value). A section given twice is
/// merged; a key given twice in a section is a problem for that key. A line that is none of these
/// is a data error for the file.
package enum INISource {
    package static func read(_ bytes: [UInt8]) throws -> TextSource {
        var source = TextSource()
        var section: String?
        for (index, raw) in try TextSource.lines(bytes, format: "INI").enumerated() {
            let line = raw.trimmingWhitespace
            let number = index + 1
            if line.isEmpty || line.hasPrefix(";") || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else { throw TextSource.failure("INI", line: number, "a section header is [NAME]") }
                let name = String(line.dropFirst().dropLast().trimmingWhitespace)
                guard !name.isEmpty else { throw TextSource.failure("INI", line: number, "the section name is empty") }
                section = name
                source.startSection(name, line: number)
                continue
            }
            guard let (before, after) = line.splitAtFirstScalar(where: { $0 == "=" || $0 == ":" }) else {
                throw TextSource.failure("INI", line: number, "expected KEY = VALUE, [SECTION] or a comment")
            }
            let key = String(before.trimmingWhitespace)
            guard !key.isEmpty else { throw TextSource.failure("INI", line: number, "the key is empty") }
            let (value, quoted) = unquoted(after.trimmingWhitespace)
            source.set(value, at: section.map { [$0, key] } ?? [key], line: number, quoted: quoted)
        }
        return source
    }

    /// `"text"` or `'text'` without its quotes; any other value as it is. Whether it was quoted.
    static func unquoted(_ value: Substring) -> (String, Bool) {
        guard value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first else { return (String(value), false) }
        return (String(value.dropFirst().dropLast()), true)
    }
}

/// `.env` files as dotenv tools read them: `KEY=VALUE` lines, optionally after `export `, `#`
/// comment lines. A value is unquoted (trimmed, up to a ` #` comment), single-quoted (literal), or
/// double-quoted (with `\n`, `\t`, `\r`, `\"`, `\\` and `\$` escapes) and ends on its line. No
/// `$VARIABLE` is expanded. A key given twice is a problem for that key; a malformed line is a data
/// error for the file.
package enum DotEnvSource {
    package static func read(_ bytes: [UInt8]) throws -> TextSource {
        var source = TextSource()
        for (index, raw) in try TextSource.lines(bytes, format: ".env").enumerated() {
            var line = raw.trimmingWhitespace
            let number = index + 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") || line.hasPrefix("export\t") { line = line.dropFirst(7).trimmingWhitespace }
            guard let (before, after) = line.splitAtFirstScalar(where: { $0 == "=" }) else {
                throw TextSource.failure(".env", line: number, "expected KEY=VALUE")
            }
            let key = String(before.trimmingWhitespace)
            guard !key.isEmpty, !key.contains(where: \.isWhitespace) else {
                throw TextSource.failure(".env", line: number, "the key is empty or contains a space")
            }
            let value = try self.value(after.trimmingWhitespace, line: number)
            source.set(value, at: [key], line: number)
        }
        return source
    }

    static func value(_ text: Substring, line: Int) throws -> String {
        guard let quote = text.first, quote == "\"" || quote == "'" else {
            // A `#` after a space or tab starts a comment.
            var previous: Character = "x"
            for i in text.indices {
                if text[i] == "#" && (previous == " " || previous == "\t") { return String(text[..<i].trimmingWhitespace) }
                previous = text[i]
            }
            return String(text)
        }
        var value = ""
        var rest = text.dropFirst()
        while let c = rest.popFirst() {
            if c == quote {
                let tail = rest.trimmingWhitespace
                guard tail.isEmpty || tail.hasPrefix("#") else {
                    throw TextSource.failure(".env", line: line, "unexpected text after the closing quote")
                }
                return value
            }
            if c == "\\" && quote == "\"", let escaped = rest.popFirst() {
                switch escaped {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "\"", "\\", "$": value.append(escaped)
                default: value.append("\\"); value.append(escaped)
                }
                continue
            }
            value.append(c)
        }
        throw TextSource.failure(".env", line: line, "the quoted value does not end on its line")
    }
}

extension Substring {
    /// The text before and after the first Unicode scalar that matches (by scalars, so a combining
    /// mark after the separator does not hide it inside one Character).
    func splitAtFirstScalar(where matches: (Unicode.Scalar) -> Bool) -> (Substring, Substring)? {
        guard let index = unicodeScalars.firstIndex(where: matches) else { return nil }
        return (Substring(unicodeScalars[..<index]), Substring(unicodeScalars[unicodeScalars.index(after: index)...]))
    }

    var trimmingWhitespace: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
