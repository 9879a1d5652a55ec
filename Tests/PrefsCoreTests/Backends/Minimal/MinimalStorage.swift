import Foundation
import Synchronization
@testable import PrefsCore

/// Suites in a dictionary, with only the required members of `SuiteBackend`: every capability it
/// does not state gets the seam's documented "unsupported" answer (`Backend+Capabilities.swift`).
/// `BackendCapabilityTests` checks those answers one by one; the contract suite runs every scenario
/// on it (`MinimalContractBackend`), so the façade's defaults are held to the same promises.
final class MinimalStorage: SuiteBackend, Sendable {
    struct State {
        var suites: [SuiteLocation: PrefDictionary] = [:]
        /// How many times each suite was written: what tells a rewrite from none.
        var generations: [SuiteLocation: Int] = [:]
        /// Suites held (`withChangesHeld`): no change of one commits, whoever asks, until the hold
        /// ends (as the file store's lock, which its own process meets too).
        var held: Set<SuiteLocation> = []
        /// Suites that cannot be read, as a store whose bytes were damaged: every read and change of
        /// one fails with `.malformed`, and nothing removes it.
        var damaged: Set<SuiteLocation> = []
    }

    let state = Mutex(State())
    /// How long a change waits for a suite another thread holds (`PREFS_LOCK_TIMEOUT`).
    let lockTimeout: Double

    init(lockTimeout: Double = 10) { self.lockTimeout = lockTimeout }

    /// The suites as the dictionary holds them.
    var suites: [SuiteLocation: PrefDictionary] { state.withLock { $0.suites } }

    /// Puts a suite there (or takes it away) as another program would, without the façade.
    func put(_ contents: PrefDictionary?, at location: SuiteLocation) {
        state.withLock { $0.suites[location] = contents; $0.generations[location, default: 0] += 1 }
    }

    func describe(_ location: SuiteLocation) -> String { "minimal:\(location)" }
    func suiteNames() throws -> SuiteListing {
        SuiteListing(names: state.withLock { $0.suites.keys.compactMap { if case .suite(let name) = $0 { name } else { nil } } }.sorted())
    }
    func registeredNames() throws -> SuiteListing { SuiteListing() }
    func load(_ location: SuiteLocation) throws -> StoredSuite? {
        try readable(location) { $0.suites[location] }.map { StoredSuite(contents: $0, format: nil) }
    }
    func lookup(_ key: String, in location: SuiteLocation) throws -> (exists: Bool, value: PrefValue?) {
        let contents = try readable(location) { $0.suites[location] }
        return (contents != nil, contents?[key])
    }
    func modify(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool, _ change: StoredChange) throws -> Bool {
        try whileFree(location) { state in
            var contents = state.suites[location] ?? PrefDictionary()
            try change.apply(&contents, nil)
            guard contents != state.suites[location] ?? PrefDictionary() else { return false }
            change.willCommit()
            state.suites[location] = removingEmpty && contents.isEmpty ? nil : contents
            state.generations[location, default: 0] += 1
            return true
        }
    }
    func checkStorable(_ contents: PrefDictionary, format: PlistFormat?) throws {}
    func remove(_ location: SuiteLocation) throws -> PrefDictionary? {
        try whileFree(location) { state in
            guard let removed = state.suites.removeValue(forKey: location) else { return nil }
            state.generations[location, default: 0] += 1
            return removed
        }
    }
    func withChangesHeld<T>(_ location: SuiteLocation, creating: Bool, _ body: () throws -> T) throws -> T {
        try whileFree(location) { _ = $0.held.insert(location) }
        defer { _ = state.withLock { $0.held.remove(location) } }
        return try body()
    }
    func registrationLocations(for name: String) throws -> [SuiteLocation] { [.registered(name)] }
    func schemaLocations(for name: String) throws -> [SuiteLocation] { [.schema(name)] }

    private func readable<T>(_ location: SuiteLocation, _ body: (State) -> T) throws -> T {
        try state.withLock { state in
            guard !state.damaged.contains(location) else { throw PrefsError.malformed(source: describe(location), format: nil, reason: "damaged") }
            return body(state)
        }
    }

    /// Runs `body` once `location` is not held (waiting `lockTimeout` at most, then 75), unless the
    /// suite cannot be read (65).
    private func whileFree<T>(_ location: SuiteLocation, _ body: (inout State) throws -> T) throws -> T {
        let deadline = MonotonicClock.now() + lockTimeout
        while true {
            let outcome: T? = try state.withLock { state in
                guard !state.damaged.contains(location) else { throw PrefsError.malformed(source: describe(location), format: nil, reason: "damaged") }
                if state.held.contains(location) { return nil }
                return try body(&state)
            }
            if let outcome { return outcome }
            guard MonotonicClock.now() < deadline else { throw PrefsError.lockUnavailable(path: describe(location), seconds: lockTimeout) }
            usleep(1000)
        }
    }
}
