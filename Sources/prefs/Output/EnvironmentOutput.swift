import PrefsCore

/// A suite as environment variables, for `export --format sh|env|github` and `exec`.
///
/// Each top-level key is one variable of the same name, so a key must be a valid name (letters,
/// digits and `_`, not starting with a digit); any other key is refused, naming it (`--keys` picks
/// the ones wanted). Keys the suite does not hold itself are left out before this when they are no
/// names (`exec`, `export --effective`): a global key such as `com.apple.swipescrolldirection`. A value is its text as `read` prints it bare — strings as they are, numbers,
/// `true`/`false`, dates ISO 8601 UTC, data lowercase hex — and a container is JSON on one line, as
/// `read --json --compact` prints it. A value holding a NUL byte, which no environment can hold, is
/// refused.
enum EnvironmentOutput {
    struct Variable: Equatable {
        let name: String
        let value: String
    }

    /// The variables of a suite's value (a dictionary), in its order.
    static func variables(_ value: PrefValue, domain: String) throws -> [Variable] {
        guard case .dictionary(let dictionary) = value else {
            throw PrefsError.invalidValue(domain: domain, key: nil, flag: nil, given: nil, reason: "is not a dictionary of keys")
        }
        var variables: [Variable] = []
        for entry in dictionary {
            guard isName(entry.key) else {
                throw refusal(domain, entry.key, "not a valid environment variable name (letters, digits and _, not starting with a digit); pick keys with --keys")
            }
            let text = try self.text(entry.value, domain: domain, key: entry.key)
            guard !text.utf8.contains(0) else { throw refusal(domain, entry.key, "holds a NUL byte, which no environment value can hold") }
            variables.append(Variable(name: entry.key, value: text))
        }
        return variables
    }

    /// `NAME`: ASCII letters, digits and `_`, not starting with a digit (POSIX's portable names).
    static func isName(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return key.utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || (0x30...0x39).contains($0) || $0 == 0x5F }
    }

    static func text(_ value: PrefValue, domain: String, key: String) throws -> String {
        if let bare = ValueOutput.bare(value) { return bare }
        do {
            return String(decoding: try JSONTextEncoder.encode(value, pretty: false), as: UTF8.self)
        } catch PrefsError.unrepresentable(_, let path, let reason) {
            throw refusal(domain, key + path, "cannot be written as JSON: \(reason)")
        }
    }

    static func refusal(_ domain: String, _ key: String, _ reason: String) -> PrefsError {
        .invalidValue(domain: domain, key: key, flag: nil, given: nil, reason: reason)
    }
}

/// The environment-file forms of `export`.
enum EnvironmentFormat: String {
    /// `export NAME='VALUE'`: safe to `eval` in any POSIX shell, whatever VALUE holds.
    case sh
    /// `NAME=VALUE`, read alike by systemd's `EnvironmentFile=` and `docker run --env-file`.
    case env
    /// `NAME=VALUE`, or `NAME<<DELIMITER` lines for a multi-line value, as GitHub Actions' `$GITHUB_ENV` takes.
    case github

    func encode(_ variables: [EnvironmentOutput.Variable], domain: String) throws -> [UInt8] {
        var out = ""
        for variable in variables {
            switch self {
            case .sh: out += "export \(variable.name)=\(EnvironmentFormat.singleQuoted(variable.value))\n"
            case .env: out += try EnvironmentFormat.envLine(variable, domain: domain)
            case .github: out += try EnvironmentFormat.githubLines(variable, domain: domain)
            }
        }
        return Array(out.utf8)
    }

    /// `'…'`, each `'` written `'\''`: inside single quotes a shell expands nothing.
    static func singleQuoted(_ text: String) -> String {
        "'" + text.replacing("'", with: #"'\''"#) + "'"
    }

    /// `NAME=VALUE` as it is: docker takes the rest of the line verbatim, systemd unquoted text. Refused
    /// (naming the key) when the two would read it differently or at all: a line break, a backslash,
    /// a leading quote, whitespace at either end, U+FEFF or a Unicode noncharacter.
    static func envLine(_ variable: EnvironmentOutput.Variable, domain: String) throws -> String {
        let scalars = variable.value.unicodeScalars
        func refuse(_ reason: String) -> PrefsError {
            EnvironmentOutput.refusal(domain, variable.name, reason + ", which an env file (systemd's EnvironmentFile=, docker's --env-file) cannot hold as it is; use --format sh")
        }
        if scalars.contains(where: { $0 == "\n" || $0 == "\r" }) { throw refuse("holds a line break") }
        if scalars.contains("\\") { throw refuse("holds a backslash") }
        if scalars.first == "\"" || scalars.first == "'" { throw refuse("starts with a quote") }
        let blank: Set<Unicode.Scalar> = [" ", "\t"]
        if let first = scalars.first, let last = scalars.last, blank.contains(first) || blank.contains(last) {
            throw refuse("starts or ends with whitespace")
        }
        if scalars.contains(where: { $0.value == 0xFEFF || isNoncharacter($0) }) { throw refuse("holds U+FEFF or a Unicode noncharacter") }
        return "\(variable.name)=\(variable.value)\n"
    }

    static func isNoncharacter(_ scalar: Unicode.Scalar) -> Bool {
        (0xFDD0...0xFDEF).contains(scalar.value) || scalar.value & 0xFFFE == 0xFFFE
    }

    /// `NAME=VALUE`, or for a value with a line break `NAME<<DELIMITER`, its lines, `DELIMITER` — a
    /// delimiter no line of the value equals (`EOF_PREFS`, else `EOF_PREFS_1`, …). A carriage
    /// return, which the runner takes for a line end, is refused.
    static func githubLines(_ variable: EnvironmentOutput.Variable, domain: String) throws -> String {
        let value = variable.value
        if value.unicodeScalars.contains("\r") {
            throw EnvironmentOutput.refusal(domain, variable.name, "holds a carriage return, which a GitHub Actions environment file cannot hold; use --format sh")
        }
        guard value.unicodeScalars.contains("\n") else { return "\(variable.name)=\(value)\n" }
        let lines = Set(value.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        var delimiter = "EOF_PREFS", n = 0
        while lines.contains(delimiter) {
            n += 1
            delimiter = "EOF_PREFS_\(n)"
        }
        return "\(variable.name)<<\(delimiter)\n\(value)\n\(delimiter)\n"
    }
}
