import Foundation
import Testing
@testable import PrefsCore

/// `Suite.values(of:)`: the value now, then each change, typed, ending when its task is cancelled.
@Suite struct ObservationTests {
    @Test(arguments: FileSystemKind.allCases)
    func theValueNowThenEachChangeUntilCancelled(kind: FileSystemKind) async throws {
        let fixture = try LayerFixture(kind)
        let suite = Prefs.Suite("com.example.watched", store: fixture.store)
        let seen = AsyncStream<Int>.makeStream()
        let watching = Task {
            for try await retries in suite.values(of: .retries) { seen.continuation.yield(retries) }
            seen.continuation.finish()
        }
        var values = seen.stream.makeAsyncIterator()
        #expect(await values.next() == 3)
        try suite.set(.retries, 4)
        #expect(await values.next() == 4)
        // A write through another suite value on the same files, as another process's would be.
        let other = Prefs.Suite("com.example.watched", store: fixture.store)
        try other.set(.retries, 8)
        #expect(await values.next() == 8)
        try suite.reset(.retries)
        #expect(await values.next() == 3)
        watching.cancel()
        #expect(await values.next() == nil)
        try await watching.value
    }

    @Test func aValueOfAnotherTypeEndsTheSequenceWithTheError() async throws {
        let fixture = try LayerFixture(.disk)
        let suite = Prefs.Suite("com.example.watched", store: fixture.store)
        try suite.store.update(.suite("com.example.watched")) { $0["retries"] = "many" }
        await #expect(throws: PrefsError.self) {
            for try await _ in suite.values(of: .retries) {}
        }
    }
}
