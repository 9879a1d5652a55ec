/// What a domain argument names: a suite, the global suite, a file, or standard input.
public enum Domain: Equatable, Sendable {
    case suite(String)
    case global
    case file(String)
    case standardInput

    public static let globalSpellings: Set<String> = ["-g", "-globalDomain", "NSGlobalDomain"]

    /// Interprets a domain argument. A path (contains `/`, or ends in `.plist` or `.json`) is that
    /// file; `-g`, `-globalDomain` and `NSGlobalDomain` are the global suite; `-` is standard input.
    /// Anything else is a suite name, checked so it cannot escape the store: not empty, not `.` or
    /// `..`, no leading `.`, no NUL or other control character.
    public init(argument: String) throws {
        if argument == "-" {
            self = .standardInput
        } else if Domain.globalSpellings.contains(argument) {
            self = .global
        } else if argument.contains("/") || argument.hasSuffix(".plist") || argument.hasSuffix(".json") {
            guard !argument.utf8.contains(0) else { throw PrefsError.badName(domain: nil, name: argument, reason: "a path cannot contain NUL") }
            self = .file(argument)
        } else {
            try Domain.checkSuiteName(argument)
            self = .suite(argument)
        }
    }

    static func checkSuiteName(_ name: String) throws {
        if name.isEmpty { throw PrefsError.badName(domain: nil, name: name, reason: "the suite name is empty") }
        if name.hasPrefix(".") { throw PrefsError.badName(domain: nil, name: name, reason: "suite name \"\(name)\" starts with '.'") }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw PrefsError.badName(domain: nil, name: name, reason: "suite name \"\(name)\" contains a control character")
        }
    }

    /// The file that holds this domain (nil for standard input).
    public func path(in environment: Environment) throws -> String? {
        switch self {
        case .suite(let name): return try environment.configHome() + "/" + name + ".plist"
        case .global: return try environment.configHome() + "/.GlobalPreferences.plist"
        case .file(let path): return path
        case .standardInput: return nil
        }
    }

    /// The name its registered defaults are filed under (`prefs/defaults/NAME.plist`): the suite's
    /// name, or `NSGlobalDomain`. Files and standard input have no registered defaults (nil).
    public var registrationName: String? {
        switch self {
        case .suite(let name): return name
        case .global: return "NSGlobalDomain"
        case .file, .standardInput: return nil
        }
    }

    /// How messages name it.
    public var displayName: String {
        switch self {
        case .suite(let name): return name
        case .global: return "NSGlobalDomain"
        case .file(let path): return path
        case .standardInput: return "standard input"
        }
    }
}
