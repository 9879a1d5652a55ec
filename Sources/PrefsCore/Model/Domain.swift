/// What a domain argument names: a suite, the global suite, a file, or standard input.
public enum Domain: Equatable, Sendable {
    case suite(String)
    case global
    case file(String)
    case standardInput

    package static let globalSpellings = ["-g", "-globalDomain", "NSGlobalDomain", ".GlobalPreferences", "Apple Global Domain"]

    /// Interprets a domain argument. A path (contains `/` — `~/…` and `~USER/…` too —, is `~`, or ends in
    /// `.plist` or `.json`) is that file, found as `SuiteStore.resolvedPath` says; `-g`,
    /// `-globalDomain`, `NSGlobalDomain`, `.GlobalPreferences` and `Apple Global Domain` are the
    /// global suite; `-` is standard input. Anything else is a suite name, checked so it cannot
    /// escape the store: not empty, not `.` or `..`, no leading `.`, no NUL or other control
    /// character. With `plistNamesAreSuites` (the `defaults` personality, as CFPreferences takes
    /// domains), only `/` makes a path: `NAME.plist` is the suite `NAME.plist`.
    package init(argument: String, plistNamesAreSuites: Bool = false) throws {
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

    /// Refuses a suite name that could name a place outside the store (`.badName`, 64): empty, `.`,
    /// `..` or any leading `.`, a `/`, NUL or another control character. Byte by byte: it is on
    /// every command's path.
    static func checkSuiteName(_ name: String) throws {
        let refusal = name.utf8.withContiguousStorageIfAvailable(Domain.refusal) ?? Array(name.utf8).withUnsafeBufferPointer(Domain.refusal)
        guard let refusal else { return }
        throw PrefsError.badName(domain: nil, name: name, reason: refusal.reason(name))
    }

    /// Why a name is refused, if it is.
    private enum Refusal {
        case empty, leadingDot, slash, control
        func reason(_ name: String) -> String {
            switch self {
            case .empty: return "the suite name is empty"
            case .leadingDot: return "suite name \"\(name)\" starts with '.'"
            case .slash: return "suite name \"\(name)\" contains '/'"
            case .control: return "suite name \"\(name)\" contains a control character"
            }
        }
    }

    private static func refusal(_ bytes: UnsafeBufferPointer<UInt8>) -> Refusal? {
        guard let first = bytes.first else { return .empty }
        if first == UInt8(ascii: ".") { return .leadingDot }
        for byte in bytes {
            if byte == UInt8(ascii: "/") { return .slash }
            if byte < 0x20 || byte == 0x7F { return .control }
        }
        return nil
    }

    /// Checks that the domain cannot name a place outside the store, as `Domain(argument:)` does for
    /// a command line: a suite's name (`checkSuiteName`), a path without NUL. A Swift program may
    /// build any `Domain`, so every entry of the façade checks the one it is given, once, before
    /// anything is touched (`SuiteStore.location(of:)`, `Layers.init`, registrations, schemas).
    package func checkName() throws {
        switch self {
        case .suite(let name): try Domain.checkSuiteName(name)
        case .file(let path) where path.utf8.contains(0): throw PrefsError.badName(domain: nil, name: path, reason: "a path cannot contain NUL")
        case .global, .file, .standardInput: return
        }
    }

    /// Checks a name registered defaults and schemas are filed under: a suite's name, or
    /// `NSGlobalDomain` for the global suite's.
    static func checkRegistrationName(_ name: String) throws {
        if name != Domain.global.registrationName { try checkSuiteName(name) }
    }

    /// The name its registered defaults are filed under (`prefs/defaults/NAME.plist`): the suite's
    /// name, or `NSGlobalDomain`. Files and standard input have no registered defaults (nil).
    package var registrationName: String? {
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
