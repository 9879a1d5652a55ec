/// What a domain argument names: a suite, the global suite, a file, or standard input.
public enum Domain: Equatable, Sendable {
    case suite(String)
    case global
    case file(String)
    case standardInput

    public static let globalSpellings = ["-g", "-globalDomain", "NSGlobalDomain", ".GlobalPreferences", "Apple Global Domain"]

    /// Interprets a domain argument. A path (contains `/` — `~/…` and `~USER/…` too —, is `~`, or ends in
    /// `.plist` or `.json`) is that file, found as `SuiteStore.resolvedPath` says; `-g`,
    /// `-globalDomain`, `NSGlobalDomain`, `.GlobalPreferences` and `Apple Global Domain` are the
    /// global suite; `-` is standard input. Anything else is a suite name, checked so it cannot
    /// escape the store: not empty, not `.` or `..`, no leading `.`, no NUL or other control
    /// character. With `plistNamesAreSuites` (the `defaults` personality, as CFPreferences takes
    /// domains), only `/` makes a path: `NAME.plist` is the suite `NAME.plist`.
    public init(argument: String, plistNamesAreSuites: Bool = false) throws {
        if argument == "-" {
            self = .standardInput
        } else if Domain.globalSpellings.contains(argument) {
            self = .global
        } else if argument == "-app" {
            throw PrefsError.usage("-app: there are no application bundles on Linux; name the domain (the application's identifier)")
        } else if Domain.isPath(argument, plistNamesAreSuites: plistNamesAreSuites) {
            guard !argument.utf8.contains(0) else { throw PrefsError.badName(domain: nil, name: argument, reason: "a path cannot contain NUL") }
            self = .file(argument)
        } else {
            try Domain.checkSuiteName(argument)
            self = .suite(argument)
        }
    }

    static func isPath(_ argument: String, plistNamesAreSuites: Bool) -> Bool {
        if argument == "~" || argument.utf8.contains(UInt8(ascii: "/")) { return true }
        return !plistNamesAreSuites && (argument.hasSuffix(".plist") || argument.hasSuffix(".json"))
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
