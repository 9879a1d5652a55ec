extension Prefs.Suite {
    /// A suite on a new, empty `InMemoryFileSystem` — for unit tests of code that reads, writes and
    /// observes settings: the same semantics and errors as on disk (layers, defaults, atomic
    /// `update`, `values(of:)` and `changes(of:)`), nothing written to the machine. Copies share
    /// the store; `Prefs.Suite(otherName, store: suite.store)` is another suite in it.
    ///
    /// ```swift
    /// let suite = Prefs.Suite.inMemory("com.example.app")
    /// try suite.set(.retries, 9)
    /// ```
    public static func inMemory(_ name: String) -> Prefs.Suite {
        Prefs.Suite(name, store: SuiteStore(fileSystem: InMemoryFileSystem(), environment: Environment(["HOME": "/home/test"])))
    }
}
