import Glibc
import Synchronization

/// The thread behind an observation (`Suite.values(of:)`, `Suite.changes(of:)`) and a cache kept
/// fresh by a watch: a watcher runs on a detached thread of its own until the read end of a pipe it
/// is given hangs up, which happens when the stream ends (its task is cancelled) or its iterator is
/// dropped (a loop that ends with `break`).
enum WatchThread {
    /// A stream fed by `body` on a new thread. `body` gets the read end of the pipe (to pass as the
    /// watcher's `closedWhen`) and the continuation; the second value stops the thread when dropped.
    private static func stream<Element: Sendable>(
        watching suite: String,
        _ body: @escaping @Sendable (_ hangUp: Int32, _ continuation: AsyncThrowingStream<Element, any Error>.Continuation,
                                     _ established: WatchEstablished) -> Void
    ) -> (AsyncThrowingStream<Element, any Error>, StopOnRelease) {
        let stopper = WatchStopper()
        let established = WatchEstablished()
        let stream = AsyncThrowingStream<Element, any Error> { continuation in
            continuation.onTermination = { _ in
                stopper.stop()
                established.fail(CancellationError())
            }
            let failure = start(stopper, watching: suite) { hangUp in
                body(hangUp, continuation, established)
                established.fail(PrefsError.internalError("the watch of \(suite) ended before it was in place"))
            }
            if let failure {
                established.fail(failure)
                continuation.finish(throwing: failure)
            }
        }
        return (stream, StopOnRelease(stopper, established))
    }

    /// An iterator over a stream fed by `body` on a new thread (`stream(watching:_:)`); `body`
    /// tells `established` once its watch is in place.
    static func iterator<Element: Sendable>(
        watching suite: String,
        _ body: @escaping @Sendable (_ hangUp: Int32, _ continuation: AsyncThrowingStream<Element, any Error>.Continuation,
                                     _ established: WatchEstablished) -> Void
    ) -> Prefs.WatchIterator<Element> {
        let (stream, release) = stream(watching: suite, body)
        return Prefs.WatchIterator(base: stream.makeAsyncIterator(), release: release)
    }

    /// Runs `body` on a new detached thread with the read end of a new pipe whose write end `stopper`
    /// holds; the read end is closed when `body` returns. The error when no pipe or thread could be had.
    static func start(_ stopper: WatchStopper, watching suite: String, _ body: @escaping @Sendable (_ hangUp: Int32) -> Void) -> PrefsError? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return PrefsError.cannotRead(path: "pipe", errno: errno) }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        stopper.set(writeEnd)
        let started = DetachedThread.start {
            body(readEnd)
            close(readEnd)
        }
        guard started else {
            close(readEnd)
            stopper.stop()
            return PrefsError.internalError("no thread could be started to watch \(suite)")
        }
        return nil
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
    /// Whether the watch is in place yet.
    let established: WatchEstablished
    init(_ stopper: WatchStopper, _ established: WatchEstablished) {
        self.stopper = stopper
        self.established = established
    }
    deinit { stopper.stop() }
}

extension Prefs {
    /// What an observation (`Suite.values(of:)`, `Suite.changes(of:)`) gives as they come; dropping
    /// it (a loop that ends with `break`) stops the watch.
    public struct WatchIterator<Element: Sendable>: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.Iterator
        let release: StopOnRelease

        /// The next one, when it comes; nil once the task is cancelled.
        public mutating func next() async throws -> Element? { try await base.next() }

        /// The next one, when it comes, on `actor`; nil once the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Element? {
            try await base.next(isolation: actor)
        }
    }
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
