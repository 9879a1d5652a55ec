extension SuiteStore {
    /// Whether a suite named to `check` or `gc` is there: it is stored (even if it cannot be parsed:
    /// the check reports that), or its external storage has blobs (a suite whose file is gone may have
    /// left orphans behind).
    package func hasSuiteOrBlobs(_ domain: Domain) throws -> Bool {
        // What has no external storage at all (a ByHost suite, a file) is a usage error before that.
        _ = try blobPlace(checking: domain)
        let location = try location(of: domain)
        let storage = storage(for: location)
        do {
            if try storage.lookup("", in: location).exists { return true }
        } catch let error as PrefsError where error.exitStatus == .dataError {
            return true
        }
        guard let suite = storage.blobSuite(for: location), let blobs = try storage.blobStore() else { return false }
        return (try? blobs.suites().contains(suite)) ?? true
    }
}
