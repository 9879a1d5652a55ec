extension FileSuiteStorage {
    /// inotify on the layers' directories (`SuiteWatcher`) where the kernel sees the files; on a
    /// file system it does not (`InMemoryFileSystem`), the values read again every few
    /// milliseconds (`PollingWatcher`), so code that observes a suite can be unit-tested in memory.
    package func watcher(for layers: Layers, keys: [(name: String, path: PrefKeyPath)]?) throws -> any ValueWatcher {
        guard fileSystem.isWatchableByKernel else { return PollingWatcher(layers, keys: keys) }
        return try SuiteWatcher(layers, keys: keys, files: self)
    }
}
