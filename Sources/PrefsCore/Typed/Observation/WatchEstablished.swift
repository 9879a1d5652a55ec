import Synchronization

/// Tells whoever awaits it (`Prefs.Values.started()`, `Prefs.SuiteChanges.started()`) that a watch
/// is in place — every change from then on will come — or that it could not be set up.
final class WatchEstablished: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Void, any Error>])
        case established
        case failed(any Error)
    }

    private let state = Mutex(State.waiting([]))

    /// The watch is in place: every waiter goes on (later calls change nothing).
    func succeed() { settle(.established) }

    /// The watch could not be set up, or ended before it was (later calls change nothing).
    func fail(_ error: any Error) { settle(.failed(error)) }

    private func settle(_ outcome: State) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = outcome
            return waiters
        }
        for waiter in waiters {
            if case .failed(let error) = outcome { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    /// Returns once the watch is in place; throws its error if it could not be set up.
    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let settled = state.withLock { state -> State? in
                guard case .waiting(var waiters) = state else { return state }
                waiters.append(continuation)
                state = .waiting(waiters)
                return nil
            }
            switch settled {
            case nil: break
            case .failed(let error)?: continuation.resume(throwing: error)
            default: continuation.resume()
            }
        }
    }
}

extension Prefs {
    /// An observation whose watch is already in place (`Values.started()`, `SuiteChanges.started()`):
    /// a change made after `started()` returned is delivered. Iterate it once; dropping its
    /// iterator (a loop that ends with `break`) or cancelling the iterating task stops the watch.
    public struct StartedWatch<Element: Sendable>: AsyncSequence {
        let iterator: WatchIterator<Element>

        /// The iterator of the watch that is already running.
        public func makeAsyncIterator() -> WatchIterator<Element> { iterator }
    }
}

extension Prefs.WatchIterator {
    /// Returns once the watch is in place, so that a change made after it returns is delivered;
    /// throws the error that kept the watch from being set up (the values that come then end with
    /// the same error).
    func established() async throws { try await release.established.wait() }
}
