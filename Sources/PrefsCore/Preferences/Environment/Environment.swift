import Glibc

/// The environment variables PrefsCore consults, passed in explicitly so tests can point them at
/// temporary directories (tests never touch the real home). Every value is checked where it is used:
/// one that is not UTF-8, or not what the variable takes, is a usage error naming the variable and
/// what it accepts. A variable set to the empty string counts as unset (as the XDG spec says).
public struct Environment: Sendable {
    /// nil: the process environment, read with getenv only for the variables asked for.
    let variables: [String: String]?
    /// The file that names this machine when `PREFS_HOST_ID` is unset (tests point it elsewhere).
    package var machineIDFile = "/etc/machine-id"
    /// The settings given in code; nil: read from the `PREFS_*` variables, as the command does.
    /// Boxed: a reference keeps an Environment cheap to copy (a struct here would make the
    /// command's start-up build type metadata).
    private var given: GivenOptions?
    var options: StoreOptions? { given?.options }

    public init(_ variables: [String: String]) { self.variables = variables }

    private init() { variables = nil }

    /// The process environment.
    public static let current = Environment()

    /// Every variable prefs reads, for the documentation's ENVIRONMENT section.
    package static let names = ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
                               "HOME",
                               "PREFS_EXTERNAL_THRESHOLD", "PREFS_HISTORY", "PREFS_LOCK_TIMEOUT",
                               "PREFS_STORE", "PREFS_ETCD_TIMEOUT", "PREFS_ETCD_USER", "PREFS_ETCD_PASSWORD",
                               "PREFS_ETCD_CACERT", "PREFS_ETCD_CERT", "PREFS_ETCD_KEY", "PREFS_FALLBACK_CACHE",
                               "PREFS_HOST_ID", "XDG_STATE_HOME", "PREFS_LOCK_NAME", "PREFS_LOCK_TOKEN"]

    /// The variable's value (or the one `StoreOptions` gave in its place); nil when it is unset or empty.
    package subscript(name: String) -> String? {
        get throws {
            if let given = options?.given(name) { return given }
            guard let variables else {
                guard let pointer = getenv(name), pointer.pointee != 0 else { return nil }
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
                guard let value = String(validating: bytes, as: UTF8.self) else {
                    throw PrefsError.badEnvironment(name: name, value: ByteText.escaped(Array(bytes)), accepted: "UTF-8 text")
                }
                return value
            }
            guard let value = variables[name], !value.isEmpty else { return nil }
            return value
        }
    }

    /// An XDG base directory: the variable when it holds an absolute path (the spec says relative
    /// ones are ignored), otherwise `$HOME/<fallback>`; nil when neither is there.
    func optionalBaseDirectory(_ variable: String, fallback: String) throws -> String? {
        if let value = try self[variable], value.hasPrefix("/") { return value }
        guard let home = try self["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/" + fallback
    }

    func baseDirectory(_ variable: String, fallback: String) throws -> String {
        guard let directory = try optionalBaseDirectory(variable, fallback: fallback) else {
            throw PrefsError.usage("neither \(variable) nor HOME is set to an absolute path")
        }
        return directory
    }

    /// `$XDG_CONFIG_HOME`, where suites live (the directory Foundation's UserDefaults uses on Linux).
    package func configHome() throws -> String { try baseDirectory("XDG_CONFIG_HOME", fallback: ".config") }

    /// `$XDG_DATA_HOME` (default `~/.local/share`): `prefs register` writes the user's registered
    /// defaults under it.
    package func dataHome() throws -> String { try baseDirectory("XDG_DATA_HOME", fallback: ".local/share") }

    /// `$XDG_CACHE_HOME` (default `~/.cache`), where the snapshots of a remote store's reads are
    /// kept (`SnapshotCache`); nil when neither it nor `$HOME` gives one.
    package func cacheHome() throws -> String? { try optionalBaseDirectory("XDG_CACHE_HOME", fallback: ".cache") }

    /// `$PREFS_FALLBACK_CACHE`: 1 when a read answers from the host's snapshot when its store does
    /// not answer, as `--fallback-cache` asks; 0 or unset when it does not.
    package func fallbackCache() throws -> Bool {
        switch try self["PREFS_FALLBACK_CACHE"] {
        case nil, "0": return false
        case "1": return true
        case let text?: throw PrefsError.badEnvironment(name: "PREFS_FALLBACK_CACHE", value: text, accepted: "1 or 0")
        }
    }

    /// The data home, or nil when neither `$XDG_DATA_HOME` nor `$HOME` gives one.
    func optionalDataHome() throws -> String? { try optionalBaseDirectory("XDG_DATA_HOME", fallback: ".local/share") }

    /// `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`), most important first: packages ship
    /// registered defaults under them. Relative entries are ignored, as the spec says.
    package func dataDirectories() throws -> [String] {
        try directories("XDG_DATA_DIRS", default: ["/usr/local/share", "/usr/share"])
    }

    /// `$XDG_CONFIG_DIRS` (default `/etc/xdg`), most important first: administrators keep managed
    /// values and system defaults under them. Relative entries are ignored, as the spec says.
    package func configDirectories() throws -> [String] {
        try directories("XDG_CONFIG_DIRS", default: ["/etc/xdg"])
    }

    /// A `:`-separated list of absolute directories (relative entries ignored, one trailing `/`
    /// dropped), or `fallback` when it names none. Looked at byte by byte: every read of a suite
    /// asks for two such lists, and Character-wise checks cost it thousands of instructions.
    private func directories(_ name: String, default fallback: [String]) throws -> [String] {
        var listed: [String] = []
        for entry in (try self[name] ?? "").utf8.split(separator: UInt8(ascii: ":")) where entry.first == UInt8(ascii: "/") {
            let trimmed = entry.count > 1 && entry.last == UInt8(ascii: "/") ? entry.dropLast() : entry
            listed.append(String(decoding: trimmed, as: UTF8.self))
        }
        return listed.isEmpty ? fallback : listed
    }

    /// What packages ship for a suite under `$XDG_DATA_DIRS`: `DIR/prefs/FOLDER/NAME.plist`, then
    /// `.json`, for each directory in order (FOLDER: `defaults` or `schemas`).
    package func shippedFiles(_ folder: String, name: String) throws -> [String] {
        try dataDirectories().flatMap { directory in [".plist", ".json"].map { directory + "/prefs/" + folder + "/" + name + $0 } }
    }

    /// This environment with settings given in code instead of the `PREFS_*` variables.
    @inline(never)
    func with(_ options: StoreOptions) -> Environment {
        var copy = self
        copy.given = GivenOptions(options)
        return copy
    }

    /// `$PREFS_LOCK_TIMEOUT` (or `StoreOptions.lockTimeout`): how many seconds a writer waits for another's lock, a decimal number
    /// from 0 to 86400 (default 10).
    package func lockTimeout() throws -> Double {
        if let options { return try options.checked(options.lockTimeout, 0...86400, "lockTimeout", "0 to 86400 seconds") }
        guard let text = try self["PREFS_LOCK_TIMEOUT"] else { return 10 }
        guard let seconds = Environment.decimal(text), seconds <= 86400 else {
            throw PrefsError.badEnvironment(name: "PREFS_LOCK_TIMEOUT", value: text, accepted: "a number of seconds from 0 to 86400")
        }
        return seconds
    }

    /// The `StoreOptions` property that stands for each variable it can replace.
    static let optionNames = ["PREFS_ETCD_USER": "etcdUser", "PREFS_ETCD_PASSWORD": "etcdPassword", "PREFS_ETCD_CACERT": "etcdCACertificate",
                              "PREFS_ETCD_CERT": "etcdCertificate", "PREFS_ETCD_KEY": "etcdKey", "PREFS_HOST_ID": "hostID"]

    /// How a message names the setting `variable` when the store's settings were given in code: the
    /// `StoreOptions` property (`StoreOptions.etcdUser`) unless the value came from the variable
    /// (an option left nil reads it); the variable for the command.
    func settingName(_ variable: String) -> String {
        guard let options, let option = Environment.optionNames[variable] else { return variable }
        if options.given(variable) == nil {
            var variables = self
            variables.given = nil
            if (try? variables[variable]) != nil { return variable }
        }
        return "StoreOptions." + option
    }

    /// The refusal (64) of `value` for the setting `variable`, naming it as `settingName` does.
    func refused(_ variable: String, value: String, accepted: String) -> PrefsError {
        guard settingName(variable) != variable else {
            return .badEnvironment(name: variable, value: value, accepted: accepted)
        }
        return .usage("\(settingName(variable)) is \(value.isEmpty ? "missing" : "\"\(value)\""); it takes \(accepted)")
    }

    /// `$PREFS_EXTERNAL_THRESHOLD` (or `StoreOptions.externalThreshold`): values whose blob would be larger than this many bytes are
    /// stored externally; a whole number, optionally with K, M or G (KiB, MiB, GiB), up to 1024G.
    /// Default 100K.
    package func externalThreshold() throws -> Int {
        if let options { return try options.checked(options.externalThreshold, 0...(1 << 40), "externalThreshold", "0 to 1 TiB") }
        guard let text = try self["PREFS_EXTERNAL_THRESHOLD"] else { return 100 << 10 }
        var digits = Substring(text)
        var shift = 0
        if let last = digits.last, let s = ["K": 10, "k": 10, "M": 20, "m": 20, "G": 30, "g": 30][last] {
            shift = s
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.utf8.count <= 13, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let number = Int(digits), number <= (1 << 40) >> shift else {
            throw PrefsError.badEnvironment(name: "PREFS_EXTERNAL_THRESHOLD", value: text,
                                            accepted: "a number of bytes from 0 to 1024G, optionally with K, M or G")
        }
        return number << shift
    }

    /// Digits with an optional fraction (`10`, `0.5`): no sign, exponent, hex, inf or nan.
    static func decimal(_ text: String) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 20 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }) else { return nil }
        return Double(text)
    }
}

/// `StoreOptions` held by reference in an `Environment`.
private final class GivenOptions: Sendable {
    let options: StoreOptions

    init(_ options: StoreOptions) { self.options = options }
}

/// Bytes shown in a message: printable ASCII as it is, every other byte as `\xHH`.
package enum ByteText {
    package static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        for byte in bytes {
            if byte >= 0x20 && byte < 0x7F && byte != 0x5C {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + Hex.encode([byte])
            }
        }
        return text
    }
}
