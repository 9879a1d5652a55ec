extension Prefs.Suite {
    /// This suite with its reads cached: each key's value is read from the store once and kept
    /// until the suite may have changed, so a server reading a setting per request pays about what
    /// Foundation's cached `UserDefaults` pays (`Tests/Benchmarks/README.md`) — without ever serving a value
    /// older than the last completed write by anyone (another process, `prefs write`, a
    /// `UserDefaults` app). Make it once and share it (it is `Sendable`; copies share the cache):
    ///
    /// ```swift
    /// let settings = Prefs.Suite("com.example.server").cachingReads()
    /// let timeout = try settings[.timeout]   // a dictionary lookup until the suite changes
    /// ```
    ///
    /// How a change is told, per store:
    /// - **files**: each read takes the events of the suite's files' directories from the process's
    ///   inotify instance (one `read` that finds nothing; `KernelChangeQueue`). The kernel queues a
    ///   change's event before the writer's call returns, so a read after a completed write always
    ///   sees it. Where inotify cannot watch, each file's identity (inode, size, times) is compared
    ///   instead, and a file changed in the last two seconds is read again every time
    ///   (`FileIdentities`). On a network file system, whose other hosts' changes no local check can
    ///   see cheaply, nothing is kept.
    /// - **an `InMemoryFileSystem`**: each file's identity, which is exact there.
    /// - **etcd**: the store's watch, on a thread of its own; a kept value may be older than the
    ///   last write by as long as the watch takes to report it (`WatchedStore`). The suite's files
    ///   (packages' defaults, managed values) are checked as on disk.
    ///
    /// Writes through this suite (`set`, `update`, `reset`) drop what was kept, so it always reads
    /// its own writes. The defaults registered in code are not cached (they never change behind the
    /// suite's back). A cached suite on files holds a watch of each of its files' directories while
    /// it lives, in the one inotify instance the process shares between every cached and observed
    /// suite (a user has 128 instances by default, `fs.inotify.max_user_instances`, and 8,192 or more
    /// watches, `fs.inotify.max_user_watches`; a directory watched for several suites is one watch).
    public func cachingReads() -> Prefs.Suite {
        var cached = self
        let suite = self
        cached.cache = ReadCache { ReadCache.signal(for: suite) }
        return cached
    }
}

extension ReadCache {
    /// How the values of `suite` are kept fresh (see `Suite.cachingReads()`).
    static func signal(for suite: Prefs.Suite) -> any ChangeSignal {
        let store = suite.store, name = suite.name
        let layers: Layers
        do {
            layers = try Layers(try suite.domain(), in: store)
        } catch {
            return NoCaching("\(error)")
        }
        // The files' change feed tells of the suite's files, whatever the store.
        let feed = try? store.files.changeFeed(for: { try ReadCache.files(of: layers, suite: name).map(SuiteLocation.file) })
        guard let files = feed?.readCacheSignal(suite: name) else { return NoCaching("the store's files report no changes") }
        if keepsInFiles(layers) { return files }
        return CombinedSignals([WatchedStore(layers, suite: name), files])
    }

    /// Whether the store keeps the suite in a file, as its storage says (`filePath(of:)`, nil for a
    /// store without files): then every change of it is a change of its layers' files.
    static func keepsInFiles(_ layers: Layers) -> Bool {
        guard let location = try? layers.store.location(of: layers.domain) else { return false }
        return (try? layers.store.storage(for: location).filePath(of: location)) != nil
    }

    /// Every file a read of the suite may look at: its layers' files, and where a schema may appear.
    static func files(of layers: Layers, suite: String) throws -> [String] {
        var paths = try layers.paths()
        guard keepsInFiles(layers) else { return paths }
        for location in try layers.store.storage.schemaLocations(for: suite) {
            guard let path = try layers.store.storage(for: location).filePath(of: location) else { continue }
            let base = path.hasSuffix(".json") ? String(path.dropLast(5)) : path.hasSuffix(".plist") ? String(path.dropLast(6)) : path
            paths += [base + ".plist", base + ".json"]
        }
        return paths
    }
}
