import Synchronization

/// The values a suite's reads gave (through every layer, before the defaults registered in code),
/// kept until something tells that they may have changed (`Suite.cachingReads()`).
///
/// Every read first asks its `ChangeSignal` whether anything may have changed since the last read;
/// if so, every value is dropped. A value not kept is read from the store (outside the lock, so
/// readers of other keys never wait for it) and kept only if nothing was dropped meanwhile: what
/// was read then may predate a change the signal has seen. So a value served from the cache is one
/// a read from the store would have given after the last change the signal knows of.
final class ReadCache: Sendable {
    private let state: Mutex<State>

    private struct State: ~Copyable {
        /// Bumped whenever the values are dropped: a read started before keeps nothing.
        var generation: UInt64 = 0
        /// Key → its value through every layer (nil: no layer has it, or the suite is absent).
        var values: [String: PrefValue?] = [:]
        /// Key → the deadline (wall clock) of a kept value that expires (`Expiry`): kept until then.
        var deadlines: [String: PrefDate] = [:]
        /// Set up by the first read.
        var signal: (any ChangeSignal)?
        let makeSignal: @Sendable () -> any ChangeSignal
    }

    init(signal makeSignal: @escaping @Sendable () -> any ChangeSignal) {
        state = Mutex(State(makeSignal: makeSignal))
    }

    /// The kept value of `key`, else `read()`'s, kept when nothing changed while it was read.
    func value(of key: String, read: () throws -> PrefValue?) throws -> PrefValue? {
        let lookup = state.withLock { state -> (hit: PrefValue??, generation: UInt64, keep: Bool) in
            let signal = state.signal ?? state.makeSignal()
            state.signal = signal
            if signal.mayHaveChanged() {
                state.values.removeAll(keepingCapacity: true)
                state.deadlines.removeAll(keepingCapacity: true)
                state.generation &+= 1
            }
            if let deadline = state.deadlines[key], Expiry.now() >= deadline {
                state.values[key] = nil
                state.deadlines[key] = nil
            }
            if let hit = state.values[key] { return (hit, state.generation, false) }
            return (nil, state.generation, signal.prepare())
        }
        if let hit = lookup.hit { return hit }
        let witness = DeadlineWitness()
        let value = try DeadlineWitness.$current.withValue(witness) { try read() }
        if lookup.keep {
            state.withLock { state in
                if state.generation == lookup.generation {
                    state.values[key] = value
                    state.deadlines[key] = witness.earliest
                }
            }
        }
        return value
    }

    /// Drops every value (after a write through this suite, which a watch reports only later).
    func invalidate() {
        state.withLock { state in
            state.values.removeAll(keepingCapacity: true)
            state.deadlines.removeAll(keepingCapacity: true)
            state.generation &+= 1
        }
    }

    /// Whether a value of `key` is kept (for tests).
    func isKept(_ key: String) -> Bool { state.withLock { $0.values[key] != nil } }

    /// How the values are kept fresh, for tests and the benchmark: "kernel", "identity", "watch",
    /// "off"… (nil before the first read).
    var signalName: String? { state.withLock { $0.signal?.name } }
}

/// What tells a `ReadCache` that the values it keeps may have changed. Both calls are made under
/// the cache's lock, so an implementation needs no lock of its own for state only they touch.
package protocol ChangeSignal: AnyObject, Sendable {
    /// Whether anything may have changed since the last call (or since `prepare`); true when it
    /// cannot tell.
    func mayHaveChanged() -> Bool

    /// Called before a value is read to be kept: sets up what will tell of later changes, and
    /// answers whether the value may be kept (false: it is read, and not kept).
    func prepare() -> Bool

    /// How it works, for tests and figures.
    var name: String { get }
}

/// A signal that never lets a value be kept: every read goes to the store.
final class NoCaching: ChangeSignal {
    let name: String
    init(_ reason: String) { name = "off: " + reason }
    func mayHaveChanged() -> Bool { true }
    func prepare() -> Bool { false }
}

/// Several signals: a change seen by any, kept only when all are ready.
final class CombinedSignals: ChangeSignal {
    let signals: [any ChangeSignal]
    init(_ signals: [any ChangeSignal]) { self.signals = signals }

    var name: String { signals.map(\.name).joined(separator: "+") }

    func mayHaveChanged() -> Bool {
        // Every one asked (the kernel's queue is drained by asking).
        signals.map { $0.mayHaveChanged() }.contains(true)
    }

    func prepare() -> Bool { !signals.map { $0.prepare() }.contains(false) }
}
