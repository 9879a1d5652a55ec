import Foundation
import Synchronization

/// At most `width` callers at a time inside `run`; the others wait for their turn without holding a
/// thread: the highest `priority` first, then in the order they came. The tests run their child
/// processes, etcd clusters and themselves through these (`TestConcurrency`), so that the suite,
/// whose tests all start at once, never floods the machine.
package final class AsyncLimiter: Sendable {
    package let width: Int
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var running = 0
        var arrivals = 0
        var waiting: [(priority: Int, arrival: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    package init(width: Int) {
        precondition(width > 0)
        self.width = width
    }

    package func run<T>(priority: Int = 0, _ body: () async throws -> T) async rethrows -> T {
        await acquire(priority: priority)
        defer { release() }
        return try await body()
    }

    /// Waits for a place; `release()` gives it back.
    package func acquire(priority: Int = 0) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.running < width else {
                    state.arrivals += 1
                    state.waiting.append((priority, state.arrivals, continuation))
                    return false
                }
                state.running += 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Gives a place back: to the waiting caller of the highest priority that came first, if any.
    package func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let first = state.waiting.indices.min(by: {
                (-state.waiting[$0].priority, state.waiting[$0].arrival) < (-state.waiting[$1].priority, state.waiting[$1].arrival)
            }) else {
                state.running -= 1
                return nil
            }
            return state.waiting.remove(at: first).continuation  // the place given back is its: `running` stays
        }
        next?.resume()
    }
}

/// How much the tests run at once. Swift Testing runs every test function on the cooperative thread
/// pool, one thread per core, and starts them all together: a test that blocks its thread waiting
/// for a child process, a cluster or a sleep leaves a core idle and holds back the tests queued
/// behind it. So the tests that wait are `async` and await what they wait for (`runProcess` and the
/// sandboxes' `prefs` have `async` versions, which run the process on a thread of their own), and
/// these limiters bound how many such tests, processes and clusters run at once.
package enum TestConcurrency {
    /// Tests that run processes running at once (the suites marked `.runsProcesses`): the others
    /// wait before they start, holding nothing. Bounding tests rather than only processes keeps each
    /// test's own waits short: a test's next process queues behind a few tests, not behind all of
    /// them, so the timeouts a test sets (a watch's, a store's) still mean what they say.
    /// PREFS_TEST_CONCURRENCY, or six times the number of cores: many of these tests spend most of
    /// their time waiting (for a timeout, a lease, a cluster), not computing. (A suite that runs one
    /// test at a time, `.serialized`, takes no place: it is a chain of tests that must not wait
    /// behind every other test between two of its own, or it would end last, alone; only the suites
    /// whose tests share a cluster they change, or that time what they do, are chains.)
    package static let tests = AsyncLimiter(width: width("PREFS_TEST_CONCURRENCY", default: 6 * ProcessInfo.processInfo.activeProcessorCount))

    /// Child processes run to completion at once (`runProcess`): PREFS_TEST_PROCESSES, or four
    /// times the number of cores. A process that keeps running beside the test (a watch, an etcd member)
    /// takes no place; a shell script that starts many takes one.
    package static let processes = AsyncLimiter(width: width("PREFS_TEST_PROCESSES", default: 4 * ProcessInfo.processInfo.activeProcessorCount))

    /// The same for long processes, those given more than `defaultProcessTimeout` to run (a loop of
    /// thousands of writes, a build): PREFS_TEST_LONG_PROCESSES, or the number of cores. They take
    /// no place of `processes`, so a short process never queues behind them for minutes.
    package static let longProcesses = AsyncLimiter(width: width("PREFS_TEST_LONG_PROCESSES", default: ProcessInfo.processInfo.activeProcessorCount))

    /// etcd clusters of a test's own running at once (`EtcdCluster.start`; the shared ones are not
    /// counted): PREFS_TEST_CLUSTERS, or 3. Each member heartbeats every 50 ms with an election
    /// timeout of 250 ms, which a flooded machine misses.
    package static let clusters = AsyncLimiter(width: width("PREFS_TEST_CLUSTERS", default: 3))

    /// The priority of the processes the current task runs (`runProcess`): a suite that runs one
    /// test at a time gives its tests 1 (`RunsProcesses`), so that these chains, which end last,
    /// are not held behind every independent test's processes; the others fill the places left.
    @TaskLocal package static var priority = 0

    static func width(_ variable: String, default value: Int) -> Int {
        ProcessInfo.processInfo.environment[variable].flatMap(Int.init).map { max(1, $0) } ?? max(2, value)
    }
}

/// An executor that runs each job on a new thread: for a suite of synchronous tests that block
/// (`withTaskExecutorPreference`, from a trait), whose body is one job, so that they wait on threads
/// of their own rather than on the cooperative pool's, one per core. (Not for tests that await
/// often: each resumption is a thread.)
package final class ThreadPerJobExecutor: TaskExecutor {
    package static let shared = ThreadPerJobExecutor()

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread { job.runSynchronously(on: executor) }.start()
    }
}

/// Runs `body` on a thread of its own and waits for it without blocking the caller's thread: for
/// work that blocks (a child process, a cluster starting, a network client waiting out a timeout).
package func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// Waits, without blocking a thread, until `condition` holds, checking it every `interval` seconds;
/// false when `timeout` seconds pass first. For what has no event to wait on (a file appearing, a
/// process's signal mask).
package func eventually(timeout: Double, interval: Double = 0.005, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
    }
}

/// Wakes the tasks waiting in `wait(after:until:)` each time `notify()` is called: for waiting on
/// something as it happens (output arriving, a process ending) instead of polling. A waiter reads
/// `generation` before it checks its condition, and waits only if nothing happened since.
package final class ChangeSignal: Sendable {
    private struct State: ~Copyable {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// How many times `notify()` has been called.
    package var generation: UInt64 { state.withLock { $0.generation } }

    package func notify() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once `generation` is past `seen` (at once if it already is), or at `deadline`.
    package func wait(after seen: UInt64, until deadline: Date) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = state.withLock { state -> UInt64? in
                guard state.generation == seen else { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let id else { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, deadline.timeIntervalSinceNow)) { [self] in
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// Waits until `condition` holds, checking it each time something happens; false when
    /// `timeout` seconds pass first.
    package func wait(timeout: Double, until condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let seen = generation
            if try condition() { return true }
            if Date() >= deadline { return false }
            await wait(after: seen, until: deadline)
        }
    }
}

extension Process {
    /// Waits until the process has ended, without blocking the caller's thread (`waitUntilExit`
    /// runs on a thread of its own).
    package func exited() async {
        _ = try? await onOwnThread { self.waitUntilExit() }
    }
}
