import PrefsCore

/// A suite as environment variables, for `export --format sh|env|github` and `exec`.
///
/// Each top-level key is one variable of the same name, so a key must be a valid name (letters,
/// digits and `_`, not starting with a digit); any other key is refused, naming it (`--keys` picks
/// the ones wanted). A name on `EnvironmentPolicy`'s deny list (`LD_PRELOAD`, `BASH_ENV`, `PATH`…)
/// is refused unless the user named it in `--keys`, and so is a variable too large for an
/// environment. Keys the suite does not hold itself are chosen before this (`OtherLayerKeys`). A
/// value is its text as `read` prints it bare — strings as they are, numbers, `true`/`false`, dates
/// ISO 8601 UTC, data lowercase hex — and a container is JSON on one line, as `read --json
/// --compact` prints it. A value holding a NUL byte, which no environment can hold, is refused.
enum EnvironmentOutput {
    struct Variable: Equatable {
        let name: String
        let value: String
    }

    /// The variables of a suite's value (a dictionary), in its order. `named`: the user named the
    /// keys (`--keys`), so none is denied for its name.
    static func variables(_ value: PrefValue, domain: String, named: Bool) throws -> [Variable] {
        guard case .dictionary(let dictionary) = value else {
            throw PrefsError.invalidValue(domain: domain, key: nil, flag: nil, given: nil, reason: "is not a dictionary of keys")
        }
        var variables: [Variable] = []
        for entry in dictionary {
            guard isName(entry.key) else {
                throw refusal(domain, entry.key, "not a valid environment variable name (letters, digits and _, not starting with a digit); pick keys with --keys")
            }
            if !named, let denied = EnvironmentPolicy.check(entry.key, domain: domain) { throw denied }
            let text = try self.text(entry.value, domain: domain, key: entry.key)
            guard !text.utf8.contains(0) else { throw refusal(domain, entry.key, "holds a NUL byte, which no environment value can hold") }
            let variable = Variable(name: entry.key, value: text)
            try EnvironmentPolicy.checkSize(variable, domain: domain)
            variables.append(variable)
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

/// Which keys become variables: a suite's own (stored, this host's) always — one that is no name is
/// then refused — and from its other layers (managed values, defaults; the global suite's are not
/// read, `-g` names it as a DOMAIN of its own) only names: the others are counted, and said once.
/// The global suite named as a DOMAIN is shared by every program (a Mac's holds keys such as
/// `com.apple.swipescrolldirection`), so its own keys that are no names are left out too (and not
/// counted again where they show in another DOMAIN's layers). Every key
/// when the user named them (`--keys`: picked afterwards).
final class OtherLayerKeys {
    let named: Bool
    let sharedSuite: Bool
    private(set) var leftOut = 0

    init(named: Bool, domain: Domain) {
        self.named = named
        sharedSuite = domain == .global
    }

    func keeps(_ key: String, _ origin: Origin) -> Bool {
        if named || (origin == .stored || origin == .byHost) && !sharedSuite { return true }
        if EnvironmentOutput.isName(key) { return true }
        // Read into a suite's layers because -g is a DOMAIN too, which counts it.
        if origin == .global || origin == .globalByHost { return false }
        leftOut += 1
        return false
    }

    /// `VERB: N keys of DOMAIN are no variable names and were left out`, when some were.
    func report(_ verb: String, domain: String, _ context: CommandContext) {
        guard leftOut > 0 else { return }
        let are = leftOut == 1 ? "key of \(domain) is no variable name and was" : "keys of \(domain) are no variable names and were"
        context.printError("\(verb): \(leftOut) \(are) left out")
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
        let line = "\(variable.name)=\(variable.value)"
        if line.utf8.count > envLineLimit { throw refuse("is a line of \(line.utf8.count) bytes, longer than docker's --env-file reads (\(envLineLimit))") }
        return line + "\n"
    }

    /// The longest line docker's `--env-file` reads: Go's bufio.Scanner takes 64 KiB, the newline included.
    static let envLineLimit = 64 * 1024 - 1

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
