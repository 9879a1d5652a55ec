import Foundation
import Testing
@testable import PrefsCore

/// What only the etcd store's locks promise: waiters served in the order they came, and a fence
/// that is part of the change's own transaction (not only a check before it).
extension BackendContractTests {
    /// Three waiters queued one after the other (each one's key in the cluster before the next
    /// comes) get the lock in that order: while one holds it, none behind it has returned.
    @Test func etcdWaitersAreServedInOrder() throws {
        let fixture = try ContractStore(.etcdReal)
        let locks = try fixture.store.locks()
        let holder = try locks.acquire(Self.request("fifo"), deadline: 0)
        var waiters: [LockWaiter] = []
        for queued in 2...4 {
            waiters.append(LockWaiter(locks, Self.request("fifo")))
            let deadline = Date(timeIntervalSinceNow: 60)
            while try fixture.storedNames().filter({ $0.hasPrefix(".locks/.named/fifo/") }).count < queued, Date() < deadline { usleep(5000) }
        }
        #expect(try fixture.storedNames().filter { $0.hasPrefix(".locks/.named/fifo/") }.count == 4)
        var previous = holder.token
        holder.release()
        for (index, waiter) in waiters.enumerated() {
            #expect(waiter.isDone(within: 60), "waiter \(index) is served in its turn")
            let handle = try #require(try waiter.result?.get())
            #expect(waiters[(index + 1)...].allSatisfy { $0.result == nil }, "none behind waiter \(index) holds the lock")
            #expect(handle.token > previous)
            previous = handle.token
            handle.release()
        }
    }

    /// The lock is lost between the fence's check and the commit (the check passes once, as in a
    /// race, and the holder lets go before the change is sent): the transaction's compare refuses
    /// the change (4, nothing written). A fence that only checked would have committed it.
    @Test func etcdFenceIsPartOfTheTransaction() throws {
        let fixture = try ContractStore(.etcdReal)
        let locks = try fixture.store.locks()
        let holder = try locks.acquire(Self.request("deploy"), deadline: 0)
        let real = try locks.fence(name: "deploy", token: holder.token)
        let checks = CheckCount()
        let racing = LockFence(name: "deploy", token: holder.token, etcdCompare: real.etcdCompare) {
            if checks.next() > 1 { try real.check() }
        }
        let fenced = SuiteStore(storage: try fixture.store.storage.fenced(by: racing), files: fixture.store.files, administered: fixture.store.administered)
        _ = try fixture.write(.suite("app"), "k", "before")
        holder.release()
        let before = try fixture.footprint()
        expectFailure(status: .conditionFailed, { _ = try fenced.write(try WriteRequest.parse(["k", "late"], domain: "app"), to: .suite("app"), options: WriteOptions()) }) {
            if case .fenceFailed(name: "deploy", token: holder.token, _) = $0 { return true } else { return false }
        }
        #expect(try fixture.footprint() == before, "nothing changed")
        #expect(try fixture.read(.suite("app"), "k").value == "before")
    }

    /// `--wait` that runs out while the lock is held: 75, on both stores.
    @Test(arguments: Backend.allCases)
    func aWaitThatRunsOutIsNotObtained(backend: Backend) throws {
        guard let locks = try Self.lockService(of: try ContractStore(backend)) else { return }
        let holder = try locks.acquire(Self.request("busy"), deadline: 0)
        expectFailure(status: .lockUnavailable, { _ = try locks.acquire(Self.request("busy"), deadline: MonotonicClock.now() + 0.3) }) {
            if case .lockNotObtained(name: "busy", _) = $0 { return true } else { return false }
        }
        holder.release()
        try locks.acquire(Self.request("busy"), deadline: MonotonicClock.now() + 30).release()
    }
}

/// How many times a fence was checked.
final class CheckCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int { lock.withLock { count += 1; return count } }
}
