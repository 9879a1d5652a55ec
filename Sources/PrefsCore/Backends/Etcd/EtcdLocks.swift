import Glibc

/// The etcd store's named locks, under `PREFIX/.locks/.named/NAME/` (`EtcdLayout`): each holder or
/// waiter is a key named after its lease (`LEASE` in hex), created on that lease, so a holder that
/// stops renewing loses it when the lease runs out. The `holders` keys with the smallest create
/// revisions hold the lock, in the order they came (FIFO); a holder's token is its key's create
/// revision, which increases across the cluster. A waiter watches the key ahead of it (for a
/// semaphore: every key ahead) and looks again when one goes; it never polls. The lease is renewed
/// every TTL/3 from the start, while waiting too (`EtcdLockHandle`).
package struct EtcdLocks: LockService {
    let etcd: any EtcdKV
    let layout: EtcdLayout

    package func acquire(_ request: LockRequest, deadline: Double?) throws -> any LockHandle {
        try LockName.check(request.name)
        let ttl = max(1, Int64(request.ttl.rounded(.up)))
        let handle = EtcdLockHandle(etcd: etcd, ttl: request.ttl, lease: try etcd.grantLease(ttl: ttl))
        do {
            let directory = layout.namedLocks(request.name)
            let key = directory + Array(String(UInt64(bitPattern: handle.lease), radix: 16).utf8)
            let waiting = request.holder.record(token: 0)
            guard try etcd.txn(compare: [.createRevision(key: key, op: .equal, 0)], success: [.put(key: key, value: waiting, lease: handle.lease)]).succeeded else {
                throw PrefsError.internalError("the lease's lock key \(String(decoding: key, as: UTF8.self)) exists already")
            }
            try wait(for: key, in: directory, request: request, deadline: deadline, handle: handle)
            var holder = request.holder
            holder.since = LockHolder.Identity.current(Environment([:])).since
            // The record now says it holds the lock, with its token (its create revision is kept).
            _ = try etcd.txn(compare: [.createRevision(key: key, op: .equal, handle.token)],
                             success: [.put(key: key, value: holder.record(token: handle.token), lease: handle.lease)])
            return handle
        } catch {
            handle.release()
            throw error
        }
    }

    /// Returns once `key` is among the first `holders` keys of the lock; sets the handle's token.
    private func wait(for key: [UInt8], in directory: [UInt8], request: LockRequest, deadline: Double?, handle: EtcdLockHandle) throws {
        while true {
            let found = try etcd.range(directory, rangeEnd: EtcdClient.prefixEnd(directory), limit: 0, keysOnly: false, countOnly: false, revision: 0)
            let queue = found.kvs.sorted { $0.createRevision < $1.createRevision }
            guard let position = queue.firstIndex(where: { $0.key == key }) else {
                throw PrefsError.lockNotObtained(name: request.name, reason: "the lease ran out while waiting (no keep-alive reached the cluster)")
            }
            if position < request.holders {
                handle.token = queue[position].createRevision
                return
            }
            let now = MonotonicClock.now()
            if let deadline, now >= deadline {
                let who = queue.prefix(request.holders).compactMap { LockHolder.Identity.parse($0.value)?.identity }
                throw PrefsError.lockNotObtained(name: request.name, reason: "held" + (who.isEmpty ? "" : " by " + who.map { "\($0.user) pid \($0.pid)" }.joined(separator: ", ")))
            }
            let ahead = Set(queue[..<position].map(\.key))
            let watched = request.holders == 1 ? queue[position - 1].key : directory
            // Looked at again at least once per TTL: a lease that ran out meanwhile is seen.
            let until = min(deadline ?? .infinity, now + request.ttl)
            _ = try etcd.watch(watched, rangeEnd: request.holders == 1 ? nil : EtcdClient.prefixEnd(directory), fromRevision: found.revision + 1,
                               deadline: until, stopWhenReadable: nil) { events, _ in
                !events.contains { if case .delete(let kv) = $0 { return ahead.contains(kv.key) } else { return false } }
            }
        }
    }

    package func holders() throws -> [LockHolder] {
        let all = layout.namedLocks(nil)
        let found = try etcd.range(all, rangeEnd: EtcdClient.prefixEnd(all), limit: 0, keysOnly: false, countOnly: false, revision: 0)
        var holders: [LockHolder] = []
        for kv in found.kvs {
            let parts = kv.key.dropFirst(all.count).split(separator: 0x2F)
            guard parts.count == 2, let name = String(validating: Array(parts[0]), as: UTF8.self),
                  let (token, identity) = LockHolder.Identity.parse(kv.value), token != 0 else { continue }
            holders.append(LockHolder(name: name, identity: identity, token: kv.createRevision))
        }
        return holders.sorted { ($0.name, $0.token) < ($1.name, $1.token) }
    }

    /// The holder's key is found by its create revision; the change's transaction then compares
    /// it: the lock still held with that token is part of the commit itself.
    package func fence(name: String, token: Int64) throws -> LockFence {
        try LockName.check(name)
        let directory = layout.namedLocks(name)
        let found = try etcd.range(directory, rangeEnd: EtcdClient.prefixEnd(directory), limit: 0, keysOnly: true, countOnly: false, revision: 0)
        let refusal = PrefsError.fenceFailed(name: name, token: token, reason: "does not hold the lock (it was released or lost, or another holds it)")
        guard let key = found.kvs.first(where: { $0.createRevision == token })?.key else {
            return LockFence(name: name, token: token) { throw refusal }
        }
        return LockFence(name: name, token: token, etcdCompare: .createRevision(key: key, op: .equal, token)) { [etcd] in
            let now = try etcd.range(key, rangeEnd: nil, limit: 0, keysOnly: true, countOnly: false, revision: 0)
            guard now.kvs.first?.createRevision == token else { throw refusal }
        }
    }
}

/// A lease kept alive by a thread of its own, every TTL/3 (each renewal bounded by the client's
/// timeout; the holder's clock, not the renewal, decides loss): `loss()` tells once none has
/// succeeded for 2/3 of the TTL, counted from when the last good renewal was SENT — the safe side,
/// whatever etcd does with the lease meanwhile (it may reset TTLs on a leader change and expires
/// leases only "eventually"). `release` revokes the lease: the key goes and the next waiter starts.
final class EtcdLockHandle: LockHandle, @unchecked Sendable {
    let etcd: any EtcdKV
    let ttl: Double
    let lease: Int64
    var token: Int64 = 0
    private let state = PThreadMonitor()
    private var renewed: Double
    private var gone = false, releasing = false
    private var thread: pthread_t?

    init(etcd: any EtcdKV, ttl: Double, lease: Int64) {
        self.etcd = etcd
        self.ttl = ttl
        self.lease = lease
        renewed = MonotonicClock.now()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        if pthread_create(&thread, nil, { context in
            let handle = Unmanaged<EtcdLockHandle>.fromOpaque(context!).takeRetainedValue()
            handle.renew()
            return nil
        }, context) == 0 {
            self.thread = thread
        } else {
            Unmanaged<EtcdLockHandle>.fromOpaque(context).release()
        }
    }

    private func renew() {
        while true {
            let sent = MonotonicClock.now()
            let outcome: Bool?
            do { try etcd.keepAlive(lease); outcome = true } catch PrefsError.storeRefused(_, 5, _, _) { outcome = false } catch { outcome = nil }
            let stop = state.locked { () -> Bool in
                if outcome == true { renewed = max(renewed, sent) }
                if outcome == false { gone = true }
                return releasing || gone
            }
            if stop { return }
            guard state.wait(until: sent + ttl / 3, while: { !self.releasing }) else { return }
        }
    }

    func loss() -> (silent: Double, remaining: Double)? {
        state.locked {
            let silent = MonotonicClock.now() - renewed
            guard gone || silent >= ttl * 2 / 3 else { return nil }
            return (silent, gone ? 0 : ttl - silent)
        }
    }

    func nextCheck() -> Double? {
        state.locked {
            let now = MonotonicClock.now()
            return [renewed + ttl * 2 / 3, renewed + ttl].first { $0 > now } ?? now + ttl / 3
        }
    }

    func release() {
        let first = state.locked { () -> Bool in
            defer { releasing = true }
            return !releasing
        }
        guard first else { return }
        state.broadcast()
        if let thread { pthread_join(thread, nil) }
        try? etcd.revokeLease(lease)
    }
}

/// A mutex and a condition on CLOCK_MONOTONIC.
final class PThreadMonitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    func broadcast() { locked { _ = pthread_cond_broadcast(condition) } }

    /// Waits until `deadline` (CLOCK_MONOTONIC seconds) while `going` holds: false when it stopped holding.
    func wait(until deadline: Double, while going: () -> Bool) -> Bool {
        locked {
            var end = timespec(tv_sec: Int(deadline.rounded(.down)), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
            while going() && MonotonicClock.now() < deadline {
                pthread_cond_timedwait(condition, mutex, &end)
            }
            return going()
        }
    }
}

extension EtcdSuiteStorage {
    /// Locks where the etcd has a watch (waiters watch the holder ahead); the in-memory fake has none.
    package func locks() throws -> (any LockService)? {
        etcd.canWatch ? EtcdLocks(etcd: etcd, layout: layout) : nil
    }

    package func fenced(by fence: LockFence) throws -> any SuiteBackend {
        var fenced = self
        fenced.fence = fence
        return fenced
    }
}
