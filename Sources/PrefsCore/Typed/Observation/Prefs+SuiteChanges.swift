extension Prefs.Suite {
    /// The suite's values as they change, whoever changes them (this process, another one,
    /// `prefs write`, a `UserDefaults` app): one `Prefs.Change` per key whose value a read gives
    /// changed, with the value before and after. Only changes come, not the values now: the watch
    /// starts when iteration does (`started()` returns once it is in place).
    ///
    /// Changes are found by comparing: each time the suite was written, the watcher reads the
    /// values again (on files, as soon as the new file is in place) and reports
    /// how they differ from the last reading, key by key in the order the reading lists them (the
    /// suite's keys in code-point order, or the keys given), not in the order they were written.
    /// Writes closer together than one reading (well under a millisecond) are summed up, with
    /// nothing to say so: a key changed several times comes once, from the value before the first
    /// write to the value after the last, and a key changed and changed back does not come at all.
    ///
    /// `keys`: only these keys' changes; none given, every top-level key's. Like `values(of:)`, it
    /// watches on a thread of its own (inotify — the one instance the process shares between every
    /// observed and cached suite —, or etcd's watch; on an `InMemoryFileSystem`, reading again every
    /// few milliseconds), ends when the iterating task is cancelled or stops iterating,
    /// and passes over a layer that cannot be read for a moment.
    ///
    /// ```swift
    /// for try await change in suite.changes() {
    ///     print(change.key, change.old ?? "(absent)", change.new ?? "(absent)")
    /// }
    /// ```
    public func changes(of keys: Prefs.Keys...) -> Prefs.SuiteChanges {
        Prefs.SuiteChanges(suite: self, keys: keys.isEmpty ? nil : keys.map(\.name))
    }
}

extension Prefs {
    /// One change of a suite's values (`Suite.changes(of:)`): the key, and the value a read gave
    /// before and gives after — through every layer, then the defaults registered in code; nil when
    /// there is neither (a read then gives the key's own default).
    public typealias Change = WatchChange

    /// A suite's changes as they happen (`Suite.changes(of:)`).
    public struct SuiteChanges: AsyncSequence, Sendable {
        public typealias Element = Change
        let suite: Suite
        /// The watched keys; nil: every top-level key.
        let keys: [String]?

        /// Starts the watch and returns its iterator. The watch is set up as the iteration begins:
        /// a change made at once may come before it is in place, and then not be seen.
        /// `started()` returns once it is.
        public func makeAsyncIterator() -> WatchIterator<Change> {
            WatchThread.iterator(watching: suite.name) { hangUp, continuation, established in
                self.watch(until: hangUp, continuation, established)
            }
        }

        /// Starts the watch and returns once it is in place: every change made after this returns
        /// comes. Throws what kept the watch from being set up (an unreadable suite, no inotify
        /// instance left, an etcd store out of reach).
        ///
        /// ```swift
        /// let changes = try await suite.changes(of: .theme).started()
        /// try suite.set(.theme, .dark)             // seen
        /// for try await change in changes { … }
        /// ```
        public func started() async throws -> StartedWatch<Change> {
            let iterator = makeAsyncIterator()
            try await iterator.established()
            return StartedWatch(iterator: iterator)
        }

        /// Runs the watcher until `hangUp` hangs up, yielding each change (the defaults registered in
        /// code standing in for absent values, and a change they hide left out).
        func watch(until hangUp: Int32, _ continuation: AsyncThrowingStream<Change, any Error>.Continuation, _ established: WatchEstablished) {
            let registered = suite.registeredDefaults
            do {
                let layers = try Layers(try suite.domain(), in: suite.store)
                let watcher = try WatchThread.watcher(of: layers, keys: keys?.map { (name: $0, path: PrefKeyPath([$0])) })
                _ = try watcher.run(timeout: nil, closedWhen: hangUp, initial: { _ in
                    established.succeed()
                    return true
                }, onChanges: { changes in
                    for change in changes {
                        let old = change.old ?? registered[change.key], new = change.new ?? registered[change.key]
                        if old != new { continuation.yield(WatchChange(key: change.key, old: old, new: new, suite: suite.name)) }
                    }
                    return true
                }, onError: { _ in })
                continuation.finish()
            } catch {
                established.fail(error)
                continuation.finish(throwing: error)
            }
        }
    }
}

extension WatchChange {
    /// The value before, typed as a read of `key` gives it (`try change.old(as: .retries)`): the
    /// key's own default when neither a layer nor the defaults registered in code had one. A value
    /// of another type is `PrefsError.typeMismatch`, naming the suite and key; a change of another
    /// key than `key` is `PrefsError.usage`.
    public func old<Value>(as key: Prefs.Key<Value>) throws -> Value { try typed(old, key) }

    /// The value after, typed as a read of `key` gives it (see `old(as:)`).
    public func new<Value>(as key: Prefs.Key<Value>) throws -> Value { try typed(new, key) }

    private func typed<Value>(_ value: PrefValue?, _ key: Prefs.Key<Value>) throws -> Value {
        guard key.name == self.key else { throw PrefsError.usage("this change is of the key \(self.key), not \(key.name)") }
        guard let value else { return key.defaultValue }
        return try Prefs.Suite.decoded(Value.self, from: value, key: key.name, suite: suite ?? "")
    }
}
