extension FileSuiteStorage {
    /// inotify on the places' directories (`InotifyFeed`) where the kernel sees the files; on a
    /// file system it does not (`InMemoryFileSystem`), a look every few milliseconds
    /// (`PollingFeed`), so code that observes a suite can be unit-tested in memory.
    package func changeFeed(for locations: @escaping () throws -> [SuiteLocation]) throws -> (any ChangeFeed)? {
        guard fileSystem.isWatchableByKernel else { return PollingFeed() }
        return try InotifyFeed(locations, files: self)
    }
}
