import Foundation
import Testing
@testable import PrefsCore

/// Watch: the façade's watcher (`Layers.watcher`, what `prefs watch` runs) reports each change
/// another writer makes, old → new, in any layer. Waits on the watcher's own reports, never sleeps.
extension BackendContractTests {
    @Test(arguments: Backend.allCases)
    func aWatchReportsAnotherWritersChangesOldToNew(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        let app = Domain.suite("app")
        try fixture.write(app, "k", "-int", "1")
        try fixture.write(.global, "g", "global")
        let other = try fixture.anotherWriter()
        #expect(fixture.canBeWatched == backend.declaresWatch, "the row's declaration for tests outside the contract is the store's")
        guard fixture.canBeWatched else {
            expectFailure(.usage(SuiteStore.notWatchable(app)), status: .usage) { _ = try fixture.store.layers(of: app, scope: ReadScope()).watcher(keys: nil) }
            return
        }
        let watch = try WatchRun(try fixture.store.layers(of: app, scope: ReadScope()).watcher(keys: nil))
        defer { watch.stop() }
        #expect(try watch.next() == [WatchChange(key: "g", old: nil, new: "global"), WatchChange(key: "k", old: nil, new: 1)])
        _ = try other.write(try WriteRequest.parse(["k", "-int", "2"], domain: "app"), to: app, options: WriteOptions())
        #expect(try watch.next() == [WatchChange(key: "k", old: 1, new: 2)])
        _ = try other.update(.global) { $0["g"] = "changed" }
        #expect(try watch.next() == [WatchChange(key: "g", old: "global", new: "changed")], "a change in another layer")
        _ = try other.update(app) { $0["k"] = 2 }
        _ = try other.delete(PrefKeyPath(["k"]), in: app, dryRun: false)
        #expect(try watch.next() == [WatchChange(key: "k", old: 2, new: nil)], "a write that changes nothing is not reported")
        _ = try other.update(.suite("unrelated")) { $0["k"] = 1 }
        _ = try other.update(app) { $0["k"] = 3 }
        #expect(try watch.next() == [WatchChange(key: "k", old: nil, new: 3)], "another suite's change is not reported")
        #expect(watch.stop() == .outputClosed)
        #expect(watch.errors.isEmpty, "\(watch.errors)")
    }
}

/// A watcher running on a thread of its own, and what it reported: each batch of changes, in order,
/// waited for as it comes. `stop()` hangs up its output (as a reader of `prefs watch` going away
/// does), which ends it at once.
final class WatchRun: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [[WatchChange]] = []
    private var ended: Result<WatchStop, any Error>?
    private(set) var errors: [PrefsError] = []
    private let output: (read: Int32, write: Int32)
    private var readEndOpen = true
    /// How long a batch is waited for: a change takes milliseconds, this is for a loaded machine.
    static let patience = 5.0

    init(_ watcher: any ValueWatcher, timeout: Double = 60) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe: errno \(errno)") }
        output = (ends[0], ends[1])
        let box = UncheckedBox(watcher)
        Thread.detachNewThread { [self, output] in
            let result = Result {
                try box.value.run(timeout: timeout, closedWhen: output.write, initial: { self.add($0) }, onChanges: { self.add($0) },
                                  onError: { error in self.condition.withLock { self.errors.append(error) } })
            }
            condition.withLock {
                ended = result
                condition.broadcast()
            }
        }
    }

    deinit {
        _ = stop()
        close(output.write)
    }

    private func add(_ batch: [WatchChange]) -> Bool {
        condition.withLock {
            batches.append(batch)
            condition.broadcast()
        }
        return true
    }

    /// The next batch the watcher reported (the first one: the values it started from).
    func next(sourceLocation: SourceLocation = #_sourceLocation) throws -> [WatchChange] {
        try condition.withLock {
            let deadline = Date(timeIntervalSinceNow: WatchRun.patience)
            while batches.isEmpty && ended == nil && condition.wait(until: deadline) {}
            if !batches.isEmpty { return batches.removeFirst() }
            if case .failure(let error)? = ended { throw error }
            throw TestFailure("no change reported within \(WatchRun.patience) s (the watch \(ended.map { "ended: \($0)" } ?? "goes on"))")
        }
    }

    /// Hangs up the watcher's output and waits until it has returned; how it ended.
    @discardableResult
    func stop() -> WatchStop? {
        condition.withLock {
            if readEndOpen {
                close(output.read)
                readEndOpen = false
            }
            while ended == nil { condition.wait() }
            return try? ended?.get()
        }
    }
}

/// A value handed to another thread that the type system cannot see is used by one thread at a time.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
