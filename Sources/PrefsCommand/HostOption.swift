import PrefsCore

/// `-currentHost` or `-host NAME` before the verb, as `defaults` takes them: the verb then works on
/// the ByHost suites of this machine or of host NAME (`SuiteStore.onHost`).
enum HostOption: Equatable, Sendable {
    case current
    case named(String)

    /// Takes a host option from the front of `arguments`, if one is there; at most one may be given.
    static func take(_ arguments: inout ArraySlice<String>, into host: inout HostOption?) throws -> Bool {
        let option: HostOption
        switch arguments.first {
        case "-currentHost":
            arguments = arguments.dropFirst()
            option = .current
        case "-host":
            arguments = arguments.dropFirst()
            guard let name = arguments.popFirst() else { throw PrefsError.usage("-host needs a value (NAME)") }
            option = .named(name)
        default:
            return false
        }
        guard host == nil else { throw PrefsError.usage("give -currentHost or -host NAME once, before the verb") }
        host = option
        return true
    }

    /// `store` on the host this option names (a store that keeps no ByHost suites refuses it first).
    func scope(_ store: SuiteStore) throws -> SuiteStore {
        try store.checkKeepsByHostSuites()
        return try store.onHost(try id(store))
    }

    /// The host ID it names: this machine's (`$PREFS_HOST_ID`, else `/etc/machine-id`), or NAME.
    func id(_ store: SuiteStore) throws -> String {
        switch self {
        case .named(let name): return name
        case .current:
            guard let id = try store.environment.hostID(fileSystem: store.fileSystem) else {
                throw PrefsError.usage("-currentHost: this machine has no host ID (\(store.environment.machineIDFile) is missing or empty); set PREFS_HOST_ID")
            }
            return id
        }
    }
}
