import Glibc

/// The file store's named locks, in the user's lock directory `$XDG_STATE_HOME/prefs/locks/`
/// (default `~/.local/state/prefs/locks`, 0700): a lock NAME is the directory `NAME/`, holding one
/// slot file per holder it admits (`1`, `2`, … `N`) and `token`, the counter of its holders. A
/// holder holds an exclusive flock on its slot, so the lock goes when the process dies, and
/// records itself in it (`LockHolder.Identity.record`). Taking a slot and numbering its holder
/// happen under `token`'s own flock, which the fence check and the listing take too: they never see
/// a slot taken but not yet recorded. A waiter sleeps on inotify (a slot file closed: a holder let
/// go or died) and tries again; it never polls. Waiters are not served in order.
package struct FileLocks: LockService {
    let directory: String
    let fileSystem: any FileSystem

    /// Slot files are at most this large (a record is one short line).
    static let recordLimit = 4096

    package func acquire(_ request: LockRequest, deadline: Double?) throws -> any LockHandle {
        try LockName.check(request.name)
        let place = directory + "/" + request.name
        try fileSystem.createDirectory(place, mode: 0o700)
        let events = try LockEvents(watching: place)
        let guardFile = try open(place + "/token", O_RDWR | O_CREAT)
        defer { close(guardFile) }
        var slots: [Int32] = []
        defer { for slot in slots { close(slot) } }
        for number in 1...request.holders { slots.append(try open(place + "/\(number)", O_RDWR | O_CREAT)) }
        while true {
            if let handle = try take(slots: &slots, guardFile: guardFile, request: request, place: place) { return handle }
            guard try events.wait(until: deadline) else {
                let held = (try? holders(of: request.name)) ?? []
                let who = held.map { "\($0.identity.user) pid \($0.identity.pid) (token \($0.token))" }.joined(separator: ", ")
                let reason = (deadline.map { $0 <= MonotonicClock.now() } ?? false) && !who.isEmpty ? "held by " + who : "held"
                throw PrefsError.lockNotObtained(name: request.name, reason: reason)
            }
        }
    }

    /// Takes a free slot, under the guard: numbers and records its holder. Nil when all are held.
    /// The slot taken leaves `slots` (the handle owns it); the others stay open, so trying again
    /// closes nothing (a close would wake every waiter, this one too).
    private func take(slots: inout [Int32], guardFile: Int32, request: LockRequest, place: String) throws -> (any LockHandle)? {
        try lock(guardFile, LOCK_EX, place + "/token")
        defer { flock(guardFile, LOCK_UN) }
        for (i, slot) in slots.enumerated() where flock(slot, LOCK_EX | LOCK_NB) == 0 {
            let token = try nextToken(guardFile, place + "/token")
            let record = request.holder.record(token: token)
            guard ftruncate(slot, 0) == 0, pwrite(slot, record, record.count, 0) == record.count else {
                throw PrefsError.cannotWrite(path: place + "/\(i + 1)", errno: errno)
            }
            slots.remove(at: i)
            return FileLockHandle(slot: slot, token: token)
        }
        return nil
    }

    /// The counter in `token`, moved on by one and on disk before the holder is told its number.
    private func nextToken(_ file: Int32, _ path: String) throws -> Int64 {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(file, &buffer, buffer.count, 0)
        guard count >= 0 else { throw PrefsError.cannotRead(path: path, errno: errno) }
        let text = String(decoding: buffer[..<count].filter { $0 != 0x0A }, as: UTF8.self)
        guard let last = text.isEmpty ? 0 : Int64(text), last >= 0, last < Int64.max else {
            throw PrefsError.malformed(source: path, format: nil, reason: "not a lock's token counter")
        }
        let next = Array("\(last + 1)\n".utf8)
        guard ftruncate(file, 0) == 0, pwrite(file, next, next.count, 0) == next.count, fdatasync(file) == 0 else {
            throw PrefsError.cannotWrite(path: path, errno: errno)
        }
        return last + 1
    }

    package func holders() throws -> [LockHolder] {
        let names = try fileSystem.contentsOfDirectory(directory).filter { (try? LockName.check($0)) != nil }.sorted()
        return try names.flatMap { try holders(of: $0) }
    }

    /// The holders of one lock, by token; none when it was never taken. Creates nothing.
    func holders(of name: String) throws -> [LockHolder] {
        let place = directory + "/" + name
        guard let guardFile = try? open(place + "/token", O_RDONLY) else { return [] }
        defer { close(guardFile) }
        try lock(guardFile, LOCK_SH, place + "/token")
        defer { flock(guardFile, LOCK_UN) }
        var found: [LockHolder] = []
        for entry in try fileSystem.contentsOfDirectory(place) where Int(entry) != nil {
            guard let slot = try? open(place + "/" + entry, O_RDONLY) else { continue }
            defer { close(slot) }
            // Free: the flock is granted (and let go at close).
            guard flock(slot, LOCK_SH | LOCK_NB) != 0 else { continue }
            var bytes = [UInt8](repeating: 0, count: FileLocks.recordLimit)
            let count = pread(slot, &bytes, bytes.count, 0)
            guard count > 0, let (token, identity) = LockHolder.Identity.parse(Array(bytes[..<count])) else { continue }
            found.append(LockHolder(name: name, identity: identity, token: token))
        }
        return found.sorted { $0.token < $1.token }
    }

    /// Checks, under the guard, that a slot is held and records `token`. The check and the change it
    /// fences are not one step on files: a holder that ends between them (its COMMAND still writing)
    /// is not seen.
    package func fence(name: String, token: Int64) throws -> LockFence {
        try LockName.check(name)
        return LockFence(name: name, token: token) { [self] in
            guard try holders(of: name).contains(where: { $0.token == token }) else {
                throw PrefsError.fenceFailed(name: name, token: token, reason: "does not hold the lock (it was released, or another holds it)")
            }
        }
    }

    /// Opens a file of a lock directory, never through a symlink.
    private func open(_ path: String, _ flags: Int32) throws -> Int32 {
        let file = Glibc.open(path, flags | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard file >= 0 else {
            throw flags & O_CREAT != 0 ? PrefsError.cannotWrite(path: path, errno: errno) : PrefsError.cannotRead(path: path, errno: errno)
        }
        return file
    }

    private func lock(_ file: Int32, _ operation: Int32, _ path: String) throws {
        while flock(file, operation) != 0 {
            guard errno == EINTR else { throw PrefsError.cannotRead(path: path, errno: errno) }
        }
    }
}

/// A slot held: the flock goes with the descriptor, which no child inherits (close-on-exec).
final class FileLockHandle: LockHandle, @unchecked Sendable {
    private var slot: Int32
    let token: Int64

    init(slot: Int32, token: Int64) {
        self.slot = slot
        self.token = token
    }

    func loss() -> (silent: Double, remaining: Double)? { nil }
    func nextCheck() -> Double? { nil }

    /// Clears the record, then closes: the close lets go and wakes the waiters.
    func release() {
        guard slot >= 0 else { return }
        _ = ftruncate(slot, 0)
        close(slot)
        slot = -1
    }

    deinit { release() }
}

/// inotify on a lock's directory: wakes a waiter when a slot file is closed.
final class LockEvents {
    private let inotify: Int32

    init(watching directory: String) throws {
        inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { throw InotifyFeed.initError(errno, descriptorFree: InotifyFeed.descriptorFree()) }
        guard inotify_add_watch(inotify, directory, UInt32(IN_CLOSE_WRITE | IN_CLOSE_NOWRITE)) >= 0 else {
            let code = errno
            close(inotify)
            throw InotifyFeed.watchError(code, path: directory)
        }
    }

    deinit { close(inotify) }

    /// Sleeps until a slot file (a name of digits) was closed since the last call: true; false at
    /// `deadline` (CLOCK_MONOTONIC seconds; nil: never) with nothing closed.
    func wait(until deadline: Double?) throws -> Bool {
        while true {
            if drainSlotEvents() { return true }
            let left = deadline.map { max(0, $0 - MonotonicClock.now()) }
            guard left.map({ $0 > 0 }) ?? true else { return false }
            var watched = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
            _ = poll(&watched, 1, left.map { Int32(min($0 * 1000 + 1, 86_400_000)) } ?? -1)
        }
    }

    /// Reads every event waiting; whether one was a slot file's close.
    private func drainSlotEvents() -> Bool {
        var woke = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(inotify, &buffer, buffer.count)
            guard count > 0 else { return woke }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
                let start = offset + MemoryLayout<inotify_event>.size
                let name = buffer[start..<min(start + length, count)].prefix { $0 != 0 }
                if !name.isEmpty && name.allSatisfy({ (0x30...0x39).contains($0) }) { woke = true }
                offset = start + length
            }
        }
    }
}

extension Environment {
    /// `$XDG_STATE_HOME` (default `~/.local/state`): the file store's locks are under it.
    package func stateHome() throws -> String { try baseDirectory("XDG_STATE_HOME", fallback: ".local/state") }
}

extension FileSuiteStorage {
    /// Locks in the user's lock directory, where the files are the kernel's (flock and inotify);
    /// none on a file system in memory.
    package func locks() throws -> (any LockService)? {
        guard fileSystem.isWatchableByKernel else { return nil }
        return FileLocks(directory: try environment.stateHome() + "/prefs/locks", fileSystem: fileSystem)
    }
}

extension FileSuiteStorage {
    package func fenced(by fence: LockFence) throws -> any SuiteBackend {
        var fenced = self
        fenced.fence = fence
        return fenced
    }
}
