import Glibc
import Synchronization

/// The process's one inotify instance, shared by every watch of files (`InotifyFeed` for `prefs
/// watch` and `Suite.values(of:)`/`changes(of:)`, `KernelChangeQueue` for a cached suite): a user
/// has 128 instances by default (`fs.inotify.max_user_instances`) across all their processes, so
/// a process that observes or caches many suites still holds one. It is made by the first watch
/// and kept until the process ends.
///
/// Each watch is a `Subscription`: it adds watches on directories and takes the events of those
/// directories that it asked for (`mask`). The kernel gives the same watch descriptor to every
/// `inotify_add_watch` of one directory, so the descriptor is shared: it is counted per
/// subscriber and removed from the kernel (`inotify_rm_watch`) only when its last subscriber lets
/// it go. Every watch is added with the same mask (`watchMask`, the union of what subscribers
/// may ask), so one subscriber's watch never narrows another's. An overflow of the kernel's queue
/// (IN_Q_OVERFLOW: events were lost) goes to every subscriber, as does the overflow of a
/// subscriber's own queue (one that is not taking its events): each must then read everything
/// again.
///
/// Events are read from the kernel's queue by whoever asks first: a subscriber taking its events
/// (`take()`, which first reads everything the kernel has queued, so an event queued before the
/// call is always among those taken — a write completed before a read is seen by that read), or,
/// once a subscriber that sleeps until events come (`wakes`) exists, the instance's one reader
/// thread, which sleeps in `poll` and hands each event to its subscribers, waking them through a
/// pipe of their own.
final class SharedInotify: Sendable {
    static let shared = SharedInotify()

    /// An event as a subscriber gets it: its mask and the name it carries (empty for the watched
    /// directory itself, and for IN_Q_OVERFLOW).
    struct Event: Sendable {
        let mask: UInt32
        let name: [UInt8]
    }

    /// What every watch is added with: every event a subscriber may ask for, on directories only.
    static let watchMask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
    /// What every subscriber of a watch gets whatever it asked: events were lost, the watch went.
    static let always = UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_UNMOUNT)
    /// The most events kept for a subscriber between two takes; beyond, they are replaced by one
    /// IN_Q_OVERFLOW (read everything again).
    static let mostQueued = 4096

    private struct Subscriber {
        let mask: UInt32
        /// The pipe that wakes it, write end; -1 for one that only takes.
        let wakeWrite: Int32
        let wakeRead: Int32
        var queue: [Event] = []
        /// Whether a byte waits in its pipe.
        var signalled = false
        /// The watch descriptors it holds.
        var watches = Set<Int32>()
    }

    private struct State: ~Copyable {
        /// The instance; -1 until the first subscriber.
        var descriptor: Int32 = -1
        var nextID = 0
        var subscribers: [Int: Subscriber] = [:]
        /// Watch descriptor → the subscribers holding it.
        var holders: [Int32: Set<Int>] = [:]
        var readerStarted = false
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    }

    private let state = Mutex(State())

    /// The process's instance (`shared`) is never released; one made apart (by a test) is closed
    /// once its last subscription has gone.
    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
        }
    }

    /// The instance's descriptor (-1 before the first subscriber), for tests.
    var descriptor: Int32 { state.withLock { $0.descriptor } }

    /// Hands out an event as if the kernel had queued it (for tests: the kernel's own IN_Q_OVERFLOW
    /// comes only once its queue is full, 16,384 events by default).
    func deliverAsIfQueued(wd: Int32, mask: UInt32) {
        state.withLock { state in
            var woken = Set<Int>()
            SharedInotify.deliver(wd: wd, mask: mask, name: [], &state, woken: &woken)
            SharedInotify.wake(woken, &state)
        }
    }

    /// How many subscribers hold `wd` (for tests).
    func holderCount(of wd: Int32) -> Int { state.withLock { $0.holders[wd]?.count ?? 0 } }

    /// A new subscriber for the events in `mask` (a part of `watchMask`, plus `always`). `wakes`: it
    /// sleeps in `poll` on `Subscription.wake` until events come for it (the reader thread is
    /// started for it). Throws `InotifyFeed.initError` when no inotify instance can be had.
    func subscribe(mask: UInt32, wakes: Bool) throws -> Subscription {
        // (The reader thread holds its hub: only the shared one may have one.)
        precondition(!wakes || self === SharedInotify.shared, "a subscriber that sleeps needs the shared instance")
        var ends: [Int32] = [-1, -1]
        if wakes {
            guard pipe(&ends) == 0 else { throw PrefsError.cannotRead(path: "pipe", errno: errno) }
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        }
        let made = state.withLock { state -> Result<Int, PrefsError> in
            if state.descriptor < 0 {
                let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
                guard descriptor >= 0 else {
                    let code = errno
                    return .failure(InotifyFeed.initError(code, descriptorFree: code == EMFILE && InotifyFeed.descriptorFree()))
                }
                state.descriptor = descriptor
            }
            if wakes && !state.readerStarted {
                let descriptor = state.descriptor
                guard DetachedThread.start({ self.readLoop(descriptor) }) else {
                    return .failure(PrefsError.internalError("no thread could be started to read inotify's events"))
                }
                state.readerStarted = true
            }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(mask: mask | SharedInotify.always, wakeWrite: ends[1], wakeRead: ends[0])
            return .success(id)
        }
        switch made {
        case .success(let id):
            return Subscription(id: id, wake: ends[0], wakeWrite: ends[1], hub: self)
        case .failure(let error):
            for end in ends where end >= 0 { close(end) }
            throw error
        }
    }

    /// One watch's share of the instance; dropping it lets go of its watches.
    final class Subscription: Sendable {
        let id: Int
        /// Readable when events came for it (poll it for POLLIN); -1 for a subscriber that only takes.
        let wake: Int32
        private let wakeWrite: Int32
        private let hub: SharedInotify

        fileprivate init(id: Int, wake: Int32, wakeWrite: Int32, hub: SharedInotify) {
            self.id = id
            self.wake = wake
            self.wakeWrite = wakeWrite
            self.hub = hub
        }

        deinit {
            hub.unsubscribe(id)
            for end in [wake, wakeWrite] where end >= 0 { close(end) }
        }

        /// Watches the directory at `path` (or shares the watch another subscriber has of it): its
        /// watch descriptor, or the errno of `inotify_add_watch`.
        func watch(_ path: String) -> Result<Int32, Errno> { hub.watch(id, path) }

        /// Lets go of every watch it holds but `kept`.
        func keepOnly(_ kept: Set<Int32>) { hub.keepOnly(id, kept) }

        /// The watch descriptors it holds.
        var watches: Set<Int32> { hub.watches(of: id) }

        /// Every event for it since the last take, after reading all the kernel has queued.
        func take() -> [Event] { hub.take(id) }
    }

    /// An errno value, as a `Result`'s failure.
    struct Errno: Error, Equatable {
        let code: Int32
    }

    private func watch(_ id: Int, _ path: String) -> Result<Int32, Errno> {
        state.withLock { state in
            let wd = inotify_add_watch(state.descriptor, path, SharedInotify.watchMask)
            guard wd >= 0 else { return .failure(Errno(code: errno)) }
            state.holders[wd, default: []].insert(id)
            state.subscribers[id]?.watches.insert(wd)
            return .success(wd)
        }
    }

    private func keepOnly(_ id: Int, _ kept: Set<Int32>) {
        state.withLock { state in
            guard let held = state.subscribers[id]?.watches else { return }
            for wd in held.subtracting(kept) { SharedInotify.release(wd, by: id, &state) }
        }
    }

    private func watches(of id: Int) -> Set<Int32> { state.withLock { $0.subscribers[id]?.watches ?? [] } }

    private func unsubscribe(_ id: Int) {
        state.withLock { state in
            guard let held = state.subscribers[id]?.watches else { return }
            for wd in held { SharedInotify.release(wd, by: id, &state) }
            state.subscribers[id] = nil
        }
    }

    /// `id` lets go of `wd`; the last holder removes it from the kernel (which queues an IN_IGNORED
    /// for it, dropped by `pump` as it has no holder left).
    private static func release(_ wd: Int32, by id: Int, _ state: inout State) {
        state.subscribers[id]?.watches.remove(wd)
        guard var holders = state.holders[wd] else { return }
        holders.remove(id)
        if holders.isEmpty {
            state.holders[wd] = nil
            _ = inotify_rm_watch(state.descriptor, wd)
        } else {
            state.holders[wd] = holders
        }
    }

    private func take(_ id: Int) -> [Event] {
        state.withLock { state in
            SharedInotify.pump(&state)
            guard var subscriber = state.subscribers[id], !subscriber.queue.isEmpty || subscriber.signalled else { return [] }
            let events = subscriber.queue
            subscriber.queue = []
            if subscriber.signalled {
                var bytes = [UInt8](repeating: 0, count: 16)
                while bytes.withUnsafeMutableBytes({ read(subscriber.wakeRead, $0.baseAddress, $0.count) }) > 0 {}
                subscriber.signalled = false
            }
            state.subscribers[id] = subscriber
            return events
        }
    }

    /// The reader thread: sleeps until the kernel has events, and hands them out.
    private func readLoop(_ descriptor: Int32) {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            ready.revents = 0
            if poll(&ready, 1, -1) < 0 {
                guard errno == EINTR else { return }
                continue
            }
            state.withLock { SharedInotify.pump(&$0) }
        }
    }

    /// Reads every event the kernel has queued and gives each to the subscribers of its watch that
    /// asked for it, then wakes those that sleep. Under the lock.
    private static func pump(_ state: inout State) {
        let descriptor = state.descriptor
        guard descriptor >= 0 else { return }
        let headerSize = MemoryLayout<inotify_event>.size
        var woken = Set<Int>()
        while true {
            var buffer = state.buffer
            state.buffer = []
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            defer { state.buffer = buffer }
            guard count > 0 else {
                if count < 0 && errno == EINTR { continue }
                break
            }
            var offset = 0
            while offset + headerSize <= count {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                let nameStart = offset + headerSize
                let name = Array(buffer[nameStart..<min(nameStart + Int(event.len), count)].prefix { $0 != 0 })
                offset = nameStart + Int(event.len)
                deliver(wd: event.wd, mask: event.mask, name: name, &state, woken: &woken)
            }
        }
        wake(woken, &state)
    }

    /// Gives an event to the subscribers of its watch that asked for it (IN_Q_OVERFLOW: to every
    /// subscriber); `woken` collects them.
    private static func deliver(wd: Int32, mask eventMask: UInt32, name: [UInt8], _ state: inout State, woken: inout Set<Int>) {
        let ids: Set<Int>
        if eventMask & UInt32(IN_Q_OVERFLOW) != 0 {
            ids = Set(state.subscribers.keys)
        } else {
            guard let holders = state.holders[wd] else { return }
            ids = holders
            if eventMask & UInt32(IN_IGNORED) != 0 {
                // The kernel removed the watch (its directory went): no one holds it now.
                state.holders[wd] = nil
                for id in holders { state.subscribers[id]?.watches.remove(wd) }
            }
        }
        for id in ids {
            guard let mask = state.subscribers[id]?.mask, mask & eventMask != 0 else { continue }
            if state.subscribers[id]!.queue.count >= mostQueued {
                state.subscribers[id]!.queue = [Event(mask: UInt32(IN_Q_OVERFLOW), name: [])]
            }
            state.subscribers[id]!.queue.append(Event(mask: eventMask, name: name))
            woken.insert(id)
        }
    }

    /// Writes a byte into the pipe of each of `woken` that sleeps and has none waiting.
    private static func wake(_ woken: Set<Int>, _ state: inout State) {
        for id in woken {
            guard let subscriber = state.subscribers[id], subscriber.wakeWrite >= 0, !subscriber.signalled else { continue }
            var byte: UInt8 = 1
            if write(subscriber.wakeWrite, &byte, 1) == 1 { state.subscribers[id]?.signalled = true }
        }
    }
}
