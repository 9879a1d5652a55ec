extension FileSuiteStorage {
    /// A schema file, read at most `Schema.maximumSize` bytes (checked as it is read: a pipe or a
    /// device that never ends is refused too); with `regularOnly`, a FIFO or a device is refused
    /// (an installed or shipped schema is read on every write: one must never block it). Most
    /// suites have no schema: its path is worked out once, one stat, and nothing opened.
    public func loadSchema(_ location: SuiteLocation, regularOnly: Bool) throws -> StoredSuite? {
        let path = try path(of: location)
        guard let status = try fileSystem.status(of: path) else { return nil }
        if regularOnly && status.isSpecial { throw PrefsError.malformed(source: path, format: nil, reason: "schema: not a regular file") }
        let bytes: [UInt8]
        do {
            bytes = try DocumentInput(fileSystem: fileSystem).fileBytes(path, atMost: Schema.maximumSize, what: "schema")
        } catch PrefsError.fileNotFound {
            return nil
        }
        return try FileSuiteStorage.decode(bytes, path: path)
    }
}
