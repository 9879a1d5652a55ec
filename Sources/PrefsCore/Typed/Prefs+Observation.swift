import Glibc
import Synchronization

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

        public func makeAsyncIterator() -> Iterator {
            let stopper = WatchStopper()
            let stream = AsyncThrowingStream { continuation in start(continuation, stopper) }
            return Iterator(base: stream.makeAsyncIterator(), release: StopOnRelease(stopper))
        }

        /// The values as they come; dropping it (a loop that ends with `break`) stops the watch.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Value, any Error>.Iterator
            let release: StopOnRelease

            public mutating func next() async throws -> Value? { try await base.next() }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Value? {
                try await base.next(isolation: actor)
            }
        }

        /// Starts the watch on a thread of its own. It stops when the stream ends (the task is
        /// cancelled) or its iterator is dropped: then the pipe's write end is closed, which the
        /// watcher sees as its `closedWhen` descriptor hanging up.
        func start(_ continuation: AsyncThrowingStream<Value, any Error>.Continuation, _ stopper: WatchStopper) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                continuation.finish(throwing: PrefsError.cannotRead(path: "pipe", errno: errno))
                return
            }
            let (readEnd, writeEnd) = (ends[0], ends[1])
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            stopper.set(writeEnd)
            continuation.onTermination = { _ in stopper.stop() }
            let started = DetachedThread.start {
                self.watch(until: readEnd, continuation)
                close(readEnd)
            }
            if !started {
                close(readEnd)
                continuation.finish(throwing: PrefsError.internalError("no thread could be started to watch \(suite.name)"))
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

/// Closes the write end of a watch's pipe, once, which ends the watch.
final class WatchStopper: Sendable {
    private let writeEnd = Mutex<Int32?>(nil)

    func set(_ descriptor: Int32) { writeEnd.withLock { $0 = descriptor } }

    func stop() {
        writeEnd.withLock { descriptor in
            if let open = descriptor, open >= 0 { close(open) }
            descriptor = -1
        }
    }
}

/// Stops a watch when the iterator that holds it goes (the stream's continuation, which the watch
/// thread holds, keeps the stream itself alive).
final class StopOnRelease: Sendable {
    let stopper: WatchStopper
    init(_ stopper: WatchStopper) { self.stopper = stopper }
    deinit { stopper.stop() }
}

/// A detached POSIX thread running a closure.
enum DetachedThread {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new detached thread; false if none could be started.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
