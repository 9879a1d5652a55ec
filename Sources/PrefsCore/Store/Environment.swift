#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The environment variables PrefsCore consults, passed in explicitly so tests can point them at
/// temporary directories (tests never touch the real home).
public struct Environment: Sendable {
    /// nil: the process environment, read with getenv only for the variables asked for.
    let variables: [String: String]?

    public init(_ variables: [String: String]) { self.variables = variables }

    private init() { variables = nil }

    /// The process environment.
    public static let current = Environment()

    public subscript(name: String) -> String? {
        guard let variables else { return getenv(name).map { String(cString: $0) } }
        return variables[name]
    }

    /// An XDG base directory: the variable when it holds an absolute path (the spec says relative
    /// ones are ignored), otherwise `$HOME/<fallback>`.
    func baseDirectory(_ variable: String, fallback: String) throws -> String {
        if let value = self[variable], value.hasPrefix("/") { return value }
        guard let home = self["HOME"], home.hasPrefix("/") else {
            throw PrefsError.usage("neither \(variable) nor HOME is set to an absolute path")
        }
        return home + "/" + fallback
    }

    /// `$XDG_CONFIG_HOME`, where suites live (the directory Foundation's UserDefaults uses on Linux).
    public func configHome() throws -> String { try baseDirectory("XDG_CONFIG_HOME", fallback: ".config") }

    /// `$XDG_DATA_HOME` (default `~/.local/share`): `prefs register` writes the user's registered
    /// defaults under it.
    public func dataHome() throws -> String { try baseDirectory("XDG_DATA_HOME", fallback: ".local/share") }

    /// `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`), most important first: packages ship
    /// registered defaults under them. Relative entries are ignored, as the spec says.
    public func dataDirectories() -> [String] {
        let listed = (self["XDG_DATA_DIRS"] ?? "").split(separator: ":")
            .filter { $0.hasPrefix("/") }.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : String($0) }
        return listed.isEmpty ? ["/usr/local/share", "/usr/share"] : listed
    }
}
