import Foundation
import Testing
@testable import PrefsCore

/// Named locks (`prefs lock`) and fenced changes (`--fence`) through the façade, on every backend
/// that keeps locks (`ContractStore.keepsLocks`; the others refuse them, 64, `lockService(of:)`): a holder excludes others
/// (75 without waiting), a semaphore admits N, a waiter starts when the holder lets go, tokens
/// increase, a fenced change commits while its lock is held and is refused (4, nothing written)
/// once it is not.
extension BackendContractTests {
    static func request(_ name: String, holders: Int = 1) -> LockRequest {
        LockRequest(name: name, holders: holders, ttl: 10, holder: LockHolder.Identity(user: "u@h", pid: 42, since: 1_800_000_000))
    }

    /// The store's locks; where it keeps none, the lock verbs and `--fence` are refused (64) before
    /// anything is written, which this checks, and nil.
    static func lockService(of fixture: ContractStore) throws -> (any LockService)? {
        guard try fixture.keepsLocks else {
            let before = try fixture.footprint()
            expectFailure(.usage(SuiteStore.keepsNoLocks), status: .usage) { _ = try fixture.store.locks() }
            expectFailure(.usage(SuiteStore.keepsNoLocks), status: .usage) { _ = try fixture.store.fenced(name: "deploy", token: 1) }
            #expect(try fixture.footprint() == before)
            return nil
        }
        return try fixture.store.locks()
    }

    @Test(arguments: Backend.allCases)
    func aLockExcludesOthersUntilReleased(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        guard let locks = try Self.lockService(of: fixture) else { return }
        let first = try locks.acquire(Self.request("deploy"), deadline: 0)
        #expect(first.token > 0)
        expectFailure(status: .lockUnavailable, { _ = try locks.acquire(Self.request("deploy"), deadline: 0) }) {
            if case .lockNotObtained(name: "deploy", _) = $0 { return true } else { return false }
        }
        let other = try locks.acquire(Self.request("other"), deadline: 0)
        #expect(try locks.holders().map { [$0.name, $0.identity.user, String($0.identity.pid), String($0.token)] }
                == [["deploy", "u@h", "42", String(first.token)], ["other", "u@h", "42", String(other.token)]])
        first.release()
        other.release()
        let second = try locks.acquire(Self.request("deploy"), deadline: 0)
        #expect(second.token > first.token, "every new holder's token is larger")
        second.release()
        #expect(try locks.holders().isEmpty)
        expectFailure(status: .usage, { _ = try locks.acquire(Self.request("../x"), deadline: 0) }) { if case .usage = $0 { true } else { false } }
    }

    @Test(arguments: Backend.allCases)
    func aSemaphoreAdmitsNHolders(backend: Backend) throws {
        guard let locks = try Self.lockService(of: try ContractStore(backend)) else { return }
        let a = try locks.acquire(Self.request("pool", holders: 2), deadline: 0)
        let b = try locks.acquire(Self.request("pool", holders: 2), deadline: 0)
        expectFailure(status: .lockUnavailable) { _ = try locks.acquire(Self.request("pool", holders: 2), deadline: 0) } matching: { _ in true }
        #expect(try locks.holders().count == 2)
        a.release()
        let c = try locks.acquire(Self.request("pool", holders: 2), deadline: 0)
        #expect(Set([a.token, b.token, c.token]).count == 3)
        b.release()
        c.release()
    }

    /// A waiter (no deadline) sleeps until the holder lets go, then holds the lock.
    @Test(arguments: Backend.allCases)
    func aWaiterStartsWhenTheHolderLetsGo(backend: Backend) throws {
        guard let locks = try Self.lockService(of: try ContractStore(backend)) else { return }
        let holder = try locks.acquire(Self.request("queue"), deadline: 0)
        let waiter = LockWaiter(locks, Self.request("queue"))
        #expect(!waiter.isDone(within: 0.3), "a waiter does not get a held lock")
        holder.release()
        #expect(waiter.isDone(within: 30))
        let token = try #require(try waiter.result?.get()).token
        #expect(token > holder.token)
        try waiter.result?.get().release()
        #expect(try locks.holders().isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func aFencedChangeCommitsOnlyWhileTheLockIsHeld(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        guard let locks = try Self.lockService(of: fixture) else { return }
        let holder = try locks.acquire(Self.request("deploy"), deadline: 0)
        let fenced = try fixture.store.fenced(name: "deploy", token: holder.token)
        _ = try fenced.write(try WriteRequest.parse(["k", "held"], domain: "app"), to: .suite("app"), options: WriteOptions())
        #expect(try fixture.read(.suite("app"), "k").value == "held")
        holder.release()
        let before = try fixture.footprint()
        expectFailure(status: .conditionFailed, { _ = try fenced.write(try WriteRequest.parse(["k", "late"], domain: "app"), to: .suite("app"), options: WriteOptions()) }) {
            if case .fenceFailed(name: "deploy", token: holder.token, _) = $0 { return true } else { return false }
        }
        expectFailure(status: .conditionFailed, { _ = try fenced.delete(PrefKeyPath(["k"]), in: .suite("app"), dryRun: false) }) { _ in true }
        #expect(try fixture.footprint() == before, "nothing changed")
        // A new holder's token is not the old one: the old fence stays refused.
        let next = try locks.acquire(Self.request("deploy"), deadline: 0)
        expectFailure(status: .conditionFailed, { _ = try fixture.store.fenced(name: "deploy", token: holder.token) }) { _ in true }
        _ = try fixture.store.fenced(name: "deploy", token: next.token).write(try WriteRequest.parse(["k", "next"], domain: "app"), to: .suite("app"),
                                                                              options: WriteOptions())
        #expect(try fixture.read(.suite("app"), "k").value == "next")
        next.release()
    }
}

/// `acquire` on a thread of its own, and whether it has returned.
final class LockWaiter: @unchecked Sendable {
    private let condition = NSCondition()
    private(set) var result: Result<any LockHandle, any Error>?

    init(_ locks: any LockService, _ request: LockRequest) {
        Thread.detachNewThread { [self] in
            let outcome = Result { try locks.acquire(request, deadline: nil) }
            condition.withLock {
                result = outcome
                condition.broadcast()
            }
        }
    }

    /// Waits for `acquire` to return, at most `seconds`.
    func isDone(within seconds: Double) -> Bool {
        condition.withLock {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while result == nil && condition.wait(until: deadline) {}
            return result != nil
        }
    }
}
