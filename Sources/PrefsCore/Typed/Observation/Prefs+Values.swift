extension Prefs.Suite {
    /// The value of `key` now, then each time it changes, whoever changes it (this process, another
    /// one, `prefs write`, a `UserDefaults` app): a change to any layer that changes what a read of
    /// `key` gives. Iterating it watches the suite (inotify on its files' directories, or etcd's
    /// watch) on a thread of its own; the watch ends when the iterating task is cancelled or stops
    /// iterating. On an `InMemoryFileSystem`, which the kernel does not see, the values are read
    /// again every few milliseconds instead, so observing code can be unit-tested in memory.
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

        /// Starts the watch (on a thread of its own) and returns its iterator.
        public func makeAsyncIterator() -> Iterator {
            let (stream, release) = WatchThread.stream(watching: suite.name) { hangUp, continuation in
                self.watch(until: hangUp, continuation)
            }
            return Iterator(base: stream.makeAsyncIterator(), release: release)
        }

        /// The values as they come; dropping it (a loop that ends with `break`) stops the watch.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Value, any Error>.Iterator
            let release: StopOnRelease

            /// The next one, when it comes; nil once the task is cancelled.
            public mutating func next() async throws -> Value? { try await base.next() }

            /// The next one, when it comes, on `actor`; nil once the task is cancelled.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Value? {
                try await base.next(isolation: actor)
            }
        }

        /// Runs the watcher until `hangUp` hangs up, yielding each typed value.
        func watch(until hangUp: Int32, _ continuation: AsyncThrowingStream<Value, any Error>.Continuation) {
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
                let keys = [(name: key.name, path: KeyPath([key.name]))]
                let watcher = try layers.watcher(keys: keys)
                _ = try watcher.run(timeout: nil, closedWhen: hangUp,
                                    initial: { yield($0.first?.new) },
                                    onChanges: { yield($0.last?.new) },
                                    onError: { _ in })
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}
