import Synchronization

extension Prefs {
    /// A suite, read and written through typed keys. A read sees what an application sees: every
    /// layer of the suite (managed values, the stored suite, the global suite, system and
    /// registered defaults files, the schema's defaults), then the defaults registered in code
    /// (`register(defaults:)`), then the key's own default. A write changes the stored suite only,
    /// atomically, as `prefs write` does: no concurrent writer's change is lost.
    ///
    /// One shared thing, as a `UserDefaults` is: copies share the store and the defaults registered
    /// in code (a copy made before `register(defaults:)` sees them; another `Prefs.Suite(name)`, made
    /// apart, has its own). It is `Sendable`. Unless `cachingReads()` made it, nothing is cached: each read goes to
    /// the store and sees the last completed write of any process.
    public struct Suite: Sendable {
        /// The suite's name (`com.example.app`): the file `$XDG_CONFIG_HOME/com.example.app.plist`.
        public let name: String
        /// Where the suite lives.
        public let store: SuiteStore
        /// The defaults registered in code, in memory and never written: below every layer of the
        /// store, above the keys' own defaults. Shared by the suite's copies.
        public var registeredDefaults: PrefDictionary { registered.values.withLock { $0 } }
        /// Where `register(defaults:)` keeps them, shared by copies.
        let registered = RegisteredDefaults()
        /// The values kept by `cachingReads()`, shared by copies; nil: every read goes to the store.
        var cache: ReadCache?

        /// The suite `name` in the user's files, found from the process environment (`XDG_CONFIG_HOME`,
        /// `HOME`…), where `prefs` and `UserDefaults(suiteName:)` find it. `options` set the store's
        /// external threshold and timeouts; without them, they come from the `PREFS_*` variables, as
        /// for `prefs` (`StoreOptions`).
        public init(_ name: String, options: StoreOptions? = nil) {
            self.init(name, store: SuiteStore(environment: .current, options: options))
        }

        /// The suite `name` in `store`: files found from another environment
        /// (`SuiteStore(environment:)`), an etcd store (`SuiteStore(url:)`), or the store of another
        /// suite (`suite.store`, say of `Prefs.Suite.inMemory` in a unit test).
        ///
        /// A suite file the typed API creates is a binary property list, as `UserDefaults` writes on
        /// macOS, so that every value — a `Date` to the fraction of a second — reads back as stored;
        /// a suite that exists keeps its format. An XML suite (what `prefs write` creates, as
        /// `defaults` does) keeps dates in whole seconds: a `Date` with a fraction of a second is
        /// refused there (`PrefsError.invalidValue`, naming the suite and key; nothing changes),
        /// never silently rounded.
        public init(_ name: String, store: SuiteStore) {
            self.name = name
            self.store = store.creatingSuites(as: .binary)
        }

        /// The suite's domain. The store refuses a name that could escape it (empty, a leading `.`,
        /// a `/`, a control character: `PrefsError.badName`) before any file is touched, once per
        /// read or write (`Domain.checkName`).
        func domain() throws -> Domain { .suite(name) }

        /// The value of `key`: the first layer that has it, else the default registered in code, else
        /// the key's default. A stored value of another type is an error (`PrefsError.typeMismatch`),
        /// never silently replaced by the default.
        public subscript<Value>(key: Key<Value>) -> Value {
            get throws {
                guard let value = try prefValue(key.name) else { return key.defaultValue }
                return try decoded(Value.self, from: value, key: key.name)
            }
        }

        /// The value at `name` as stored (through every layer, then the defaults registered in code).
        public func prefValue(_ name: String) throws -> PrefValue? {
            guard let cache else { return try storedValue(name) ?? registeredDefaults[name] }
            return try cache.value(of: name) { try storedValue(name) } ?? registeredDefaults[name]
        }

        /// The value at `name` through every layer of the store; nil when none has it.
        func storedValue(_ name: String) throws -> PrefValue? {
            do {
                return try store.value(at: PrefKeyPath([name]), in: try domain(), scope: ReadScope()).value
            } catch PrefsError.keyNotFound, PrefsError.suiteNotFound {
                return nil
            }
        }

        /// Runs a write, then drops what the cache kept (whether the write succeeded or not).
        func writing<T>(_ write: () throws -> T) rethrows -> T {
            defer { cache?.invalidate() }
            return try write()
        }

        /// Stores `value` under `key` (an optional key's nil removes it). Returns whether the suite
        /// changed: storing the value already stored writes nothing.
        @discardableResult
        public func set<Value>(_ key: Key<Value>, _ value: Value) throws -> Bool {
            let encoded = try encoded(value, key: key.name)
            return try writing { try store.update(try domain(), keys: KeySet([key.name])) { $0[key.name] = encoded } }
        }

        /// Several changes in one atomic write: `change` sees the stored values (`Changes`) and what
        /// it sets is written together, or nothing is when it throws.
        @discardableResult
        public func update(_ change: (inout Changes) throws -> Void) throws -> Bool {
            try writing {
                try store.update(try domain()) { contents in
                    var changes = Changes(suite: self, contents: contents)
                    try change(&changes)
                    contents = changes.contents
                }
            }
        }

        /// Removes the stored values of `keys`, so the defaults show again (`prefs reset`).
        @discardableResult
        public func reset(_ keys: Keys...) throws -> Bool {
            try writing {
                try store.update(try domain(), keys: KeySet(keys.map(\.name)), removingEmpty: true) { contents in
                    for key in keys { contents[key.name] = nil }
                }
            }
        }

        /// Registers defaults in code, in memory only: read below every layer of the store and above
        /// the keys' own defaults, never written (`UserDefaults.register(defaults:)`). A later
        /// registration of a key replaces an earlier one. Every copy of the suite sees them, those
        /// made before too (`cachingReads()`, a suite captured by a task); a suite made apart with
        /// `Prefs.Suite(name)` does not.
        public func register(defaults: PrefDictionary) {
            registered.values.withLock { values in
                for entry in defaults { values[entry.key] = entry.value }
            }
        }

        /// Registers one typed default in code (see `register(defaults:)`).
        public func register<Value>(_ key: Key<Value>, _ value: Value) throws {
            let encoded = try encoded(value, key: key.name)
            registered.values.withLock { $0[key.name] = encoded }
        }
    }

    /// The stored values of a suite being changed by `Suite.update`, through typed keys.
    public struct Changes {
        let suite: Suite
        /// The stored values, as they will be written.
        public var contents: PrefDictionary

        /// The stored value of `key` (not the layers below), else the key's default; setting stores it.
        public subscript<Value>(key: Key<Value>) -> Value {
            get throws {
                guard let value = contents[key.name] else { return key.defaultValue }
                return try suite.decoded(Value.self, from: value, key: key.name)
            }
        }

        /// Sets the value of `key`, to be written with the others (an optional key's nil removes it).
        public mutating func set<Value>(_ key: Key<Value>, _ value: Value) throws {
            contents[key.name] = try suite.encoded(value, key: key.name)
        }
    }
}

extension PrefCodingError: CustomStringConvertible {
    /// `at window.frames.0: expected a real, found a string`, or the reason alone at the top.
    var sentence: String { path.isEmpty ? reason : "at \(place): \(reason)" }

    var description: String { sentence }
}

extension SuiteStore {
    /// This store, with the suite files it creates written in `format` (JSON for a `.json` path
    /// whatever `format` is); a store without files is unchanged.
    package func creatingSuites(as format: PlistFormat) -> SuiteStore {
        var store = SuiteStore(storage: ExpiringStorage.unwrapped(storage).creatingSuites(as: format), files: files.creatingSuites(as: format),
                               administered: administered)
        store.host = host
        store.schemaChoice = schemaChoice
        store.expiry = expiry
        return store
    }
}
