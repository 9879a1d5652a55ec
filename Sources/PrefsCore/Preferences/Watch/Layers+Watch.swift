/// Watching: the store that holds the domain's suite offers a change feed (inotify on files,
/// etcd's watch, a look every few milliseconds on a file system the kernel does not see), and the
/// core's `Watcher` reads what changed, so every caller (`prefs watch`, `Suite.values(of:)`,
/// `Suite.changes(of:)`, `Suite.updates`) gets the right one without knowing which store it is, and
/// a store without one (the in-memory etcd, the minimal store) is refused alike by all (64).
extension Layers {
    /// What reports the changes of these layers: `keys` as typed, nil for every top-level key.
    /// A store that cannot be watched refuses (64).
    package func watcher(keys: [(name: String, path: PrefKeyPath)]?) throws -> any ValueWatcher {
        let location = try store.location(of: domain)
        let storage = store.storage(for: location)
        let layers = self
        guard let feed = try storage.changeFeed(for: { try Watcher.watchedLocations(of: layers) }) else {
            throw PrefsError.usage(SuiteStore.notWatchable(domain))
        }
        let watcher = Watcher(self, keys: keys, feed: feed)
        // A value's expiry is no event any feed sees: the watch wakes at the next deadline.
        return storage is ExpiringStorage ? ExpiringWatcher(watcher, layers: self, keys: keys) : watcher
    }

    /// The same layers read through another store.
    func on(_ store: SuiteStore) throws -> Layers {
        try Layers(domain, in: store, defaults: commandLineDefaults, storedOnly: storedOnly, globalSuite: globalSuite)
    }
}

extension SuiteStore {
    /// Why a store without a change feed refuses `watch` (64).
    static func notWatchable(_ domain: Domain) -> String {
        "\(domain.displayName): this store cannot be watched (it does not report changes); leave out --store and PREFS_STORE to watch files"
    }
}
