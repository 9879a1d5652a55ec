import Foundation
import Testing
@testable import PrefsCore

/// `Suite.values(of: .a, .b)`: a snapshot of several keys now, then after each change of one of them.
@Suite struct MultiKeyObservationTests {
    @Test(arguments: FileSystemKind.allCases)
    func aSnapshotNowThenOneAfterEachChangeOfAnyKey(kind: FileSystemKind) async throws {
        let fixture = try LayerFixture(kind)
        let suite = Prefs.Suite("com.example.multi", store: fixture.store)
        suite.register(defaults: ["word": "registered"])
        let snapshots = try await suite.values(of: .retries, .word).started()
        var iterator = snapshots.makeAsyncIterator()
        var snapshot = try #require(try await iterator.next())
        #expect(try snapshot[.retries] == 3 && snapshot[.word] == "registered")
        try suite.set(.retries, 5)
        snapshot = try #require(try await iterator.next())
        #expect(try snapshot[.retries] == 5 && snapshot[.word] == "registered")
        try suite.set(.word, "typed")
        snapshot = try #require(try await iterator.next())
        #expect(try snapshot[.retries] == 5 && snapshot[.word] == "typed")
        // A key of another type: the snapshot's read of it is the error, naming suite and key.
        try suite.store.update(.suite("com.example.multi")) { $0["retries"] = "many" }
        snapshot = try #require(try await iterator.next())
        #expect(throws: PrefsError.typeMismatch(domain: "com.example.multi", key: "retries", reason: "expected an integer, found a string")) {
            try snapshot[.retries]
        }
        #expect(try snapshot[.word] == "typed")
    }
}

extension MultiKeyObservationTests {
    /// A change's old and new values read typed, as the key reads them (its default for absent).
    @Test func aChangesValuesReadTyped() async throws {
        let suite = Prefs.Suite.inMemory("com.example.typed")
        let changes = try await suite.changes(of: .retries).started()
        try suite.set(.retries, 7)
        var iterator = changes.makeAsyncIterator()
        let change = try #require(try await iterator.next())
        #expect(try change.old(as: .retries) == 3 && change.new(as: .retries) == 7)
        #expect(throws: PrefsError.self) { try change.new(as: .word) }
        try suite.store.update(.suite("com.example.typed")) { $0["retries"] = "many" }
        let mismatch = try #require(try await iterator.next())
        #expect(throws: PrefsError.typeMismatch(domain: "com.example.typed", key: "retries", reason: "expected an integer, found a string")) {
            try mismatch.new(as: .retries)
        }
    }
}
