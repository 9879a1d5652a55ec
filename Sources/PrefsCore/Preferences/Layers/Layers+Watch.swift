/// Watching: the store that holds the domain's suite makes the watcher (inotify on files, etcd's
/// watch, polling on a file system the kernel does not see), so every caller gets the right one
/// without knowing which store it is.
extension Layers {
    /// What reports the changes of these layers: `keys` as typed, nil for every top-level key.
    /// A store that cannot be watched refuses (64).
    package func watcher(keys: [(name: String, path: PrefKeyPath)]?) throws -> any ValueWatcher {
        let location = try store.location(of: domain)
        return try store.storage(for: location).watcher(for: self, keys: keys)
    }

    /// The same layers read through another store.
    func on(_ store: SuiteStore) throws -> Layers {
        try Layers(domain, in: store, defaults: commandLineDefaults, storedOnly: storedOnly, globalSuite: globalSuite)
    }
}
