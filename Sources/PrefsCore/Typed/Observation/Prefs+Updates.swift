extension Prefs.Suite {
    /// The values of several keys now, then again each time one of them changes (Defaults'
    /// `updates(.a, .b)`): a `Prefs.Snapshot` to read each key from, typed. It watches as
    /// `values(of:)` does, with the same summing up of writes that come closer together than one
    /// reading; `started()` returns once the watch is in place.
    ///
    /// ```swift
    /// for try await snapshot in suite.values(of: .retries, .timeout) {
    ///     connect(retries: try snapshot[.retries], timeout: try snapshot[.timeout])
    /// }
    /// ```
    public func values(of first: Prefs.Keys, _ second: Prefs.Keys, _ more: Prefs.Keys...) -> Prefs.KeyValues {
        Prefs.KeyValues(suite: self, keys: [first.name, second.name] + more.map(\.name))
    }
}

extension Prefs {
    /// What the observed keys read at one moment (`Suite.values(of:_:_:)`).
    public struct Snapshot: Sendable, Equatable {
        let suite: Suite
        /// The observed keys' values through every layer (absent: none has one).
        let values: PrefDictionary

        public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool { lhs.suite.name == rhs.suite.name && lhs.values == rhs.values }

        /// The value of `key` then, typed as `suite[key]` reads it: the suite's layers, then the
        /// defaults registered in code, then the key's own default (which a key not observed gives
        /// unless it is registered in code). A value of another type is
        /// `PrefsError.typeMismatch`.
        public subscript<Value>(key: Key<Value>) -> Value {
            get throws {
                guard let value = values[key.name] ?? suite.registeredDefaults[key.name] else { return key.defaultValue }
                return try suite.decoded(Value.self, from: value, key: key.name)
            }
        }
    }

    /// Several keys' values as they change (`Suite.values(of:_:_:)`).
    public struct KeyValues: AsyncSequence, Sendable {
        public typealias Element = Snapshot
        let suite: Suite
        let keys: [String]

        /// Starts the watch and returns its iterator (see `Values.makeAsyncIterator()`).
        public func makeAsyncIterator() -> WatchIterator<Snapshot> {
            WatchThread.iterator(watching: suite.name) { hangUp, continuation, established in
                self.watch(until: hangUp, continuation, established)
            }
        }

        /// Starts the watch and returns once it is in place: every change made after this returns
        /// comes (its first snapshot is the one read then).
        public func started() async throws -> StartedWatch<Snapshot> {
            let iterator = makeAsyncIterator()
            try await iterator.established()
            return StartedWatch(iterator: iterator)
        }

        func watch(until hangUp: Int32, _ continuation: AsyncThrowingStream<Snapshot, any Error>.Continuation, _ established: WatchEstablished) {
            var current = PrefDictionary()
            let yield = { (changes: [WatchChange]) -> Bool in
                for change in changes { current[change.key] = change.new }
                continuation.yield(Snapshot(suite: suite, values: current))
                return true
            }
            do {
                let layers = try Layers(try suite.domain(), in: suite.store)
                let watcher = try layers.watcher(keys: keys.map { (name: $0, path: PrefKeyPath([$0])) })
                _ = try watcher.run(timeout: nil, closedWhen: hangUp, initial: { changes in
                    defer { established.succeed() }
                    return yield(changes)
                }, onChanges: yield, onError: { _ in })
                continuation.finish()
            } catch {
                established.fail(error)
                continuation.finish(throwing: error)
            }
        }
    }
}
