extension Prefs.Suite {
    /// The value of `key` now, then each time it changes, whoever changes it (this process, another
    /// one, `prefs write`, a `UserDefaults` app): a change to any layer that changes what a read of
    /// `key` gives. Iterating it watches the suite (inotify on its files' directories, in the one
    /// instance the process shares between every observed and cached suite, or etcd's watch) on a
    /// thread of its own; the watch ends when the iterating task is cancelled or stops
    /// iterating. On an `InMemoryFileSystem`, which the kernel does not see, the values are read
    /// again every few milliseconds instead, so observing code can be unit-tested in memory. Each
    /// value comes from reading the suite again after a write (on files, as soon as the new file is
    /// renamed into place or closed by its writer): writes closer together than one reading give
    /// only the last value, and a value written and written back gives none. `started()` returns once the watch is in place.
    ///
    /// ```swift
    /// for try await retries in suite.values(of: .retries) { … }
    /// ```
    ///
    /// A stored value of another type ends the sequence with `PrefsError.typeMismatch`; a layer that
    /// cannot be read for a moment (a corrupt file) is passed over and the watch goes on.
    public func values<Value>(of key: Prefs.Key<Value>) -> Prefs.Values<Value> {
        Prefs.Values(suite: self, key: key)
    }
}

extension Prefs {
    /// The values of a key as they change (`Suite.values(of:)`).
    public struct Values<Value: Codable & Sendable>: AsyncSequence, Sendable {
        public typealias Element = Value
        let suite: Suite
        let key: Key<Value>

        /// Starts the watch and returns its iterator. The watch is set up as the iteration begins:
        /// a change made at once may come before it is in place, and then not be seen (the value
        /// the watch reads first may or may not include it). `started()` returns once it is.
        public func makeAsyncIterator() -> WatchIterator<Value> {
            WatchThread.iterator(watching: suite.name) { hangUp, continuation, established in
                self.watch(until: hangUp, continuation, established)
            }
        }

        /// Starts the watch and returns once it is in place: every change made after this returns
        /// comes (its first value is the one read then). Throws what kept the watch from being set
        /// up (an unreadable suite, no inotify instance left, an etcd store out of reach).
        ///
        /// ```swift
        /// let themes = try await suite.values(of: .theme).started()
        /// try suite.set(.theme, .dark)             // seen
        /// for try await theme in themes { … }
        /// ```
        public func started() async throws -> StartedWatch<Value> {
            let iterator = makeAsyncIterator()
            try await iterator.established()
            return StartedWatch(iterator: iterator)
        }

        /// Runs the watcher until `hangUp` hangs up, yielding each typed value.
        func watch(until hangUp: Int32, _ continuation: AsyncThrowingStream<Value, any Error>.Continuation, _ established: WatchEstablished) {
            let yield = { (value: PrefValue?) -> Bool in
                do {
                    let typed = try value.map { try suite.decoded(Value.self, from: $0, key: key.name) }
                        ?? suite.registeredDefaults[key.name].map { try suite.decoded(Value.self, from: $0, key: key.name) }
                        ?? key.defaultValue
                    continuation.yield(typed)
                    return true
                } catch {
                    continuation.finish(throwing: error)
                    return false
                }
            }
            do {
                let layers = try Layers(try suite.domain(), in: suite.store)
                let keys = [(name: key.name, path: PrefKeyPath([key.name]))]
                let watcher = try layers.watcher(keys: keys)
                _ = try watcher.run(timeout: nil, closedWhen: hangUp,
                                    initial: { changes in
                                        defer { established.succeed() }
                                        return yield(changes.first?.new)
                                    },
                                    onChanges: { yield($0.last?.new) },
                                    onError: { _ in })
                continuation.finish()
            } catch {
                established.fail(error)
                continuation.finish(throwing: error)
            }
        }
    }
}
