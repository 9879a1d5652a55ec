/// Named locks (`prefs lock`, `prefs locks`) and fenced changes (`--fence`), through the store's
/// capability (`SuiteBackend.locks()`, `fenced(by:)`).
extension SuiteStore {
    /// The store's locks; a store without any is refused (64).
    package func locks() throws -> any LockService {
        guard let locks = try storage.locks() else { throw PrefsError.usage(SuiteStore.keepsNoLocks) }
        return locks
    }

    /// This store with every change fenced by the lock `name` held with `token`: a change commits
    /// only while it is (else `fenceFailed`, 4, nothing changed), files named by their paths too.
    /// Not held now: `fenceFailed` at once.
    package func fenced(name: String, token: Int64) throws -> SuiteStore {
        let fence = try locks().fence(name: name, token: token)
        try fence.check()
        var fenced = SuiteStore(storage: try storage.fenced(by: fence), files: try files.fenced(by: fence), administered: administered)
        fenced.host = host
        fenced.schemaChoice = schemaChoice
        return fenced
    }
}
