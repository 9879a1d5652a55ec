/// One kind of store a URL names (`--store URL`, `$PREFS_STORE`): the URL schemes it answers to, how
/// messages show its URLs, and how it is opened. Adding a backend is its folder under `Backends/`
/// and one row in `StoreScheme.all`; without a URL, suites are files.
struct StoreScheme: Sendable {
    /// What a message about a bad URL calls it ("bad etcd URL").
    let name: String
    /// The schemes it answers to, lowercase, without `://`.
    let schemes: [String]
    /// The URLs it takes, as a message shows them.
    let form: String
    /// Checks a URL without contacting anything: a usage error (64) naming it when it is bad.
    let check: @Sendable (_ url: String) throws -> Void
    /// The store a URL names, set up from the environment (credentials, timeouts) before anything
    /// is contacted; files named by their paths stay on the file system either way.
    let open: @Sendable (_ url: String, _ fileSystem: any FileSystem, _ environment: Environment) throws -> any SuiteBackend

    /// Every store a URL can name: one row per backend.
    static let all: [StoreScheme] = [.etcd]

    /// The row whose scheme starts `url` (case aside); none is a usage error naming the URL.
    static func row(for url: String) throws -> StoreScheme {
        let lowered = url.lowercased()
        if let row = all.first(where: { $0.schemes.contains { lowered.hasPrefix($0 + "://") } }) { return row }
        throw PrefsError.usage("bad \(all.map(\.name).joined(separator: " or ")) URL '\(url)': expected \(forms)")
    }

    /// Every form, for a message.
    static var forms: String { all.map(\.form).joined(separator: "; or ") }
}

extension SuiteStore {
    /// The store a command line chose: `url` (`--store URL`), else `$PREFS_STORE` (empty counts as
    /// unset), else the files — through the row of `StoreScheme.all` its scheme names. Files named
    /// by their paths stay on `fileSystem` either way. A bad URL is a usage error (64) naming it
    /// (a bad `$PREFS_STORE` names the variable), before anything is contacted.
    package static func selected(url: String?, fileSystem: any FileSystem, environment: Environment) throws -> SuiteStore {
        let files = FileSuiteStorage(fileSystem: fileSystem, environment: environment)
        let chosen: String
        if let url {
            chosen = url
        } else if let variable = try environment["PREFS_STORE"] {
            do {
                try StoreScheme.row(for: variable).check(variable)
            } catch PrefsError.usage(let reason) {
                throw PrefsError.badEnvironment(name: "PREFS_STORE", value: variable, accepted: "\(StoreScheme.forms) (\(reason))")
            }
            chosen = variable
        } else {
            return SuiteStore(storage: files, files: files)
        }
        return SuiteStore(storage: try StoreScheme.row(for: chosen).open(chosen, fileSystem, environment), files: files)
    }
}
