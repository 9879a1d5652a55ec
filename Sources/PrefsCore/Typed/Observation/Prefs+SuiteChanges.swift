extension Prefs.Suite {
    /// The suite's values as they change, whoever changes them (this process, another one,
    /// `prefs write`, a `UserDefaults` app): one `Prefs.Change` per key whose value a read gives
    /// changed, with the value before and after. Only changes come, not the values now: the watch
    /// starts when iteration does (`started()` returns once it is in place).
    ///
    /// Every change committed to the suite or the global suite comes, in commit order, even
    /// changes closer together than the watcher reads: each of them records a version in the
    /// suite's history (`prefs history`), and the watcher replays the versions newer than the last
    /// it saw, one `Change` per key per version — a key changed and changed back comes twice, writes
    /// to `a`, `b`, `a` come in that order. A version's change is seen through every layer as a read
    /// gives it: a key a managed value or this host's value hides does not come, and the defaults
    /// registered in code stand in for absent values. Changes of the suite and of the global suite
    /// interleave by the time their versions recorded, to the millisecond (the suite's first
    /// within one).
    ///
    /// What the history cannot account for comes after a gap, never in silence: one element with
    /// `isGap` (its key empty, its values nil), then each key whose value differs across the gap,
    /// from before it to after it, with `isSummary` (several changes of a key summed up as one; a
    /// key changed and changed back not at all). A gap comes when versions were pruned before the
    /// watcher read them (more changes in a burst than `PREFS_HISTORY` keeps), when a change
    /// recorded none (a writer with `PREFS_HISTORY=0`, a `UserDefaults` app writing the file), and
    /// for every change of a layer that keeps no history — a suite for this host (ByHost), managed
    /// values, registered defaults, a file domain, a store with no place for a history: one change
    /// of such a layer between two readings cannot be told from several, so each comes after a
    /// gap. A value whose deadline passes (`write --ttl`) goes as one change, with no gap. When a
    /// read shows a change whose version is not there yet, while one may be on its way (on files, a
    /// version is appended right after the suite's file is renamed in), the watcher reads again,
    /// for at most half a second, before it takes it for a change that recorded none. At each
    /// reading, the changes of layers without history (after their gap) come before the versions'.
    ///
    /// `keys`: only these keys' changes; none given, every top-level key's. Like `values(of:)`, it
    /// watches on a thread of its own (inotify — the one instance the process shares between every
    /// observed and cached suite, on the layers' directories and the histories' —, or etcd's watch;
    /// on an `InMemoryFileSystem`, reading again every few milliseconds), ends when the iterating
    /// task is cancelled or stops iterating, and passes over a layer that cannot be read for a
    /// moment.
    ///
    /// ```swift
    /// for try await change in suite.changes() {
    ///     if change.isGap { print("changes were missed; what differs across them:"); continue }
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
    /// there is neither (a read then gives the key's own default). Or a gap (`isGap`: changes may
    /// have been missed there), after which each change is what differs across it (`isSummary`).
    /// A gap is an element rather than a mark on the change after it because a gap may have no
    /// change after it (a key changed and changed back); code written before gaps existed still
    /// compiles and sees one as a change of the key "" from absent to absent.
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

        /// Runs the watcher until `hangUp` hangs up; at each of its wakes, yields the changes the
        /// suite's history accounts for and a gap before the others (`ChangeReplay`), the defaults
        /// registered in code standing in for absent values, and a change they hide left out.
        func watch(until hangUp: Int32, _ continuation: AsyncThrowingStream<Change, any Error>.Continuation, _ established: WatchEstablished) {
            let registered = suite.registeredDefaults
            do {
                let layers = try Layers(try suite.domain(), in: suite.store)
                let watched = keys?.map { (name: $0, path: PrefKeyPath([$0])) }
                let watcher = try layers.watcher(keys: watched)
                watcher.reportsEveryReading = true
                var replay: ChangeReplay?
                _ = try watcher.run(timeout: nil, closedWhen: hangUp, initial: { _ in
                    do {
                        replay = try ChangeReplay(layers, keys: watched)
                    } catch {
                        established.fail(error)
                        continuation.finish(throwing: error)
                        return false
                    }
                    established.succeed()
                    return true
                }, onChanges: { _ in
                    // A layer that cannot be read for a moment: the next wake reads it again.
                    guard let changes = try? replay?.next() else { return true }
                    for change in changes {
                        if change.isGap {
                            var gap = change
                            gap.suite = suite.name
                            continuation.yield(gap)
                            continue
                        }
                        let old = change.old ?? registered[change.key], new = change.new ?? registered[change.key]
                        guard old != new else { continue }
                        var seen = WatchChange(key: change.key, old: old, new: new, suite: suite.name)
                        seen.isSummary = change.isSummary
                        continuation.yield(seen)
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
    /// key than `key`, or a gap (`isGap`), is `PrefsError.usage`.
    public func old<Value>(as key: Prefs.Key<Value>) throws -> Value { try typed(old, key) }

    /// The value after, typed as a read of `key` gives it (see `old(as:)`).
    public func new<Value>(as key: Prefs.Key<Value>) throws -> Value { try typed(new, key) }

    private func typed<Value>(_ value: PrefValue?, _ key: Prefs.Key<Value>) throws -> Value {
        guard !isGap else { throw PrefsError.usage("this is a gap in the changes of \(suite ?? "the suite"), not a change of \(key.name)") }
        guard key.name == self.key else { throw PrefsError.usage("this change is of the key \(self.key), not \(key.name)") }
        guard let value else { return key.defaultValue }
        return try Prefs.Suite.decoded(Value.self, from: value, key: key.name, suite: suite ?? "")
    }
}
