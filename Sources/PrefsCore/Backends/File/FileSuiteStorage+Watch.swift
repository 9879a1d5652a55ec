extension FileSuiteStorage {
    /// inotify on the places' directories (`InotifyFeed`) where the kernel sees the files; on a
    /// file system it does not (`InMemoryFileSystem`), a look every few milliseconds
    /// (`PollingFeed`), so code that observes a suite can be unit-tested in memory, and for a read
    /// cache the files' identities, which are exact there (`FileIdentities`).
    package func changeFeed(for locations: @escaping () throws -> [SuiteLocation]) throws -> (any ChangeFeed)? {
        guard fileSystem.isWatchableByKernel else {
            let files = self
            return PollingFeed(readCache: { _ in
                FileIdentities.inMemory(files.fileSystem, paths: { try locations().compactMap { try files.filePath(of: $0) } })
            })
        }
        return InotifyFeed(locations, files: self)
    }
}
