/// ByHost suites as files, laid out as `defaults -currentHost` keeps them on macOS (in `ByHost/` of
/// the preferences directory): `$XDG_CONFIG_HOME/ByHost/SUITE.HOSTID.plist`, and for the global
/// suite `.GlobalPreferences.HOSTID.plist`. Foundation's UserDefaults on Linux reads none of them.
extension FileSuiteStorage {
    package var keepsByHostSuites: Bool { true }

    static func byHostPath(suite: String?, host: String, in environment: Environment) throws -> String {
        try environment.configHome() + "/ByHost/" + (suite ?? ".GlobalPreferences") + "." + host + ".plist"
    }

    /// The suites with a file `ByHost/SUITE.HOST.plist`, in code-point order (the global suite's
    /// starts with `.` and is left out); entries that cannot be suites are skipped as
    /// `suiteNames()` skips them.
    package func suiteNames(onHost host: String) throws -> SuiteListing {
        try suiteFiles(in: try environment.configHome() + "/ByHost", suffix: "." + host + ".plist")
    }
}
