import Glibc

/// Named locks of a store (`prefs lock`, `prefs locks`): a lock NAME held by at most `holders`
/// processes at once (1: a mutex; more: a semaphore), each holder given a fencing token that
/// increases with every holder of the name. The file store keeps them as flocks in the user's lock
/// directory (`FileLocks`), the etcd store as keys on leases under `PREFIX/.locks/.named/`
/// (`EtcdLocks`). What a store without locks answers: `SuiteBackend.locks()` is nil.
package protocol LockService: Sendable {
    /// Takes the lock: returns once this process holds it. `deadline` (CLOCK_MONOTONIC seconds) nil
    /// waits as long as it takes; a deadline that has passed (`--no-wait`) only tries once. Not
    /// obtained in time: `PrefsError.lockUnavailable` (75). Waiting never polls: it sleeps until
    /// a holder lets go (an inotify event on files, an etcd watch on the holder ahead).
    func acquire(_ request: LockRequest, deadline: Double?) throws -> any LockHandle

    /// Every holder of every lock, sorted by name, then token.
    func holders() throws -> [LockHolder]

    /// The check that the holder of `name` with `token` still holds it, for a change to run in the
    /// same step as it commits (`SuiteBackend.fenced(by:)`). Not held (now): `PrefsError.fenceFailed` (4).
    func fence(name: String, token: Int64) throws -> LockFence
}

/// What `acquire` is asked for.
package struct LockRequest: Sendable {
    package var name: String
    /// How many may hold the lock at once (`-n`); every holder of a name must give the same.
    package var holders: Int
    /// How long the lock outlives a holder that stops renewing it (etcd's lease TTL, seconds); the
    /// file store's flocks go with the process and ignore it.
    package var ttl: Double
    /// Who holds it, as `prefs locks` shows it.
    package var holder: LockHolder.Identity

    package init(name: String, holders: Int, ttl: Double, holder: LockHolder.Identity) {
        self.name = name
        self.holders = holders
        self.ttl = ttl
        self.holder = holder
    }
}

/// One holder of a lock, as `prefs locks` lists it.
package struct LockHolder: Sendable, Equatable {
    package struct Identity: Sendable, Equatable {
        /// `user@host`.
        package var user: String
        package var pid: Int32
        /// When it took the lock: seconds since 1970.
        package var since: Double

        package init(user: String, pid: Int32, since: Double) {
            self.user = user
            self.pid = pid
            self.since = since
        }

        /// This process, now: `$USER` (else `$LOGNAME`, else the user ID) at the host name.
        package static func current(_ environment: Environment) -> Identity {
            let user = (try? environment["USER"]) ?? (try? environment["LOGNAME"]) ?? nil
            var host = [UInt8](repeating: 0, count: 256)
            let got = host.withUnsafeMutableBytes { gethostname($0.baseAddress!.assumingMemoryBound(to: CChar.self), 255) }
            let name = got == 0 ? String(decoding: host.prefix { $0 != 0 }, as: UTF8.self) : "localhost"
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            return Identity(user: (user ?? String(getuid())) + "@" + name, pid: getpid(),
                            since: Double(now.tv_sec) + Double(now.tv_nsec / 1_000_000) / 1000)
        }

        /// `TOKEN PID SINCE USER@HOST`, one line: how both stores record a holder.
        package func record(token: Int64) -> [UInt8] {
            Array("\(token) \(pid) \(since) \(user)\n".utf8)
        }

        /// A record's token and identity; nil when the bytes are not one.
        package static func parse(_ bytes: [UInt8]) -> (token: Int64, identity: Identity)? {
            guard let text = String(validating: bytes, as: UTF8.self), text.hasSuffix("\n") else { return nil }
            let fields = text.dropLast().split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, let token = Int64(fields[0]), let pid = Int32(fields[1]), let since = Double(fields[2]) else { return nil }
            return (token, Identity(user: String(fields[3]), pid: pid, since: since))
        }
    }

    package var name: String
    package var identity: Identity
    package var token: Int64

    package init(name: String, identity: Identity, token: Int64) {
        self.name = name
        self.identity = identity
        self.token = token
    }
}

/// A lock this process holds.
package protocol LockHandle: AnyObject, Sendable {
    /// The fencing token (`PREFS_LOCK_TOKEN`): larger than every earlier holder's of the name.
    var token: Int64 { get }

    /// Whether the lock is still surely held: nil while it is; once it may not be, how long it is
    /// since the holder last knew it held it (seconds) and how long until the store may give it to
    /// another (seconds, 0 or less: it may already have). Files: always held while the process lives.
    func loss() -> (silent: Double, remaining: Double)?

    /// The moment (CLOCK_MONOTONIC seconds) `loss()` may next change without a report: nil for never.
    func nextCheck() -> Double?

    /// Lets go: the next waiter may start at once. Called once.
    func release()
}

/// The fence of a change: the check that runs with it, before it commits.
package struct LockFence: Sendable {
    package let name: String
    package let token: Int64
    /// Throws `PrefsError.fenceFailed` when the lock is no longer held with the token.
    package let check: @Sendable () throws -> Void
    /// On etcd: the compare that makes the change's transaction commit only while the holder's key
    /// (`key`) still has the token as its create revision.
    package let etcdCompare: EtcdCompare?

    package init(name: String, token: Int64, etcdCompare: EtcdCompare? = nil, check: @escaping @Sendable () throws -> Void) {
        self.name = name
        self.token = token
        self.etcdCompare = etcdCompare
        self.check = check
    }
}

/// Lock names: the same on every store, so a name means one lock whatever holds it.
package enum LockName {
    /// ASCII letters, digits, `.`, `_`, `-`, not starting with `.` or `-`, 1 to 128 bytes: a file
    /// name and an etcd key part as they are, and a word no shell or option parser reads otherwise.
    package static func check(_ name: String) throws {
        let bytes = Array(name.utf8)
        let allowed = bytes.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D }
        guard !bytes.isEmpty, bytes.count <= 128, allowed, bytes[0] != 0x2E, bytes[0] != 0x2D else {
            throw PrefsError.usage("bad lock name '\(ByteText.escaped(bytes))': use 1 to 128 letters, digits, '.', '_' or '-', not starting with '.' or '-'")
        }
    }
}
