import Foundation
import Synchronization
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// The minimal store (`MinimalStorage`: only what every store must) for the contract suite, with
/// the fixture's files in memory: where it lacks a capability, the scenarios check the documented
/// refusal or default.
final class MinimalContractBackend: ContractBackend, @unchecked Sendable {
    let fileSystem: any FileSystem = InMemoryFileSystem()
    let root = "/home/test"
    private let storage = Mutex<MinimalStorage?>(nil)

    /// The one storage of the fixture, made with the first store's lock timeout.
    private func shared(_ environment: Environment) throws -> MinimalStorage {
        let timeout = try environment.lockTimeout()
        return storage.withLock { made in
            if let made { return made }
            let new = MinimalStorage(lockTimeout: timeout)
            made = new
            return new
        }
    }

    func store(environment: Environment) throws -> SuiteStore { store(over: try shared(environment), environment: environment) }

    func anotherWriter(of store: SuiteStore, environment: Environment) throws -> SuiteStore { try self.store(environment: environment) }

    /// Each suite it holds, with how many times it was written (and whether it was damaged).
    func entries() throws -> [String: String] {
        guard let storage = storage.withLock({ $0 }) else { return [:] }
        return storage.state.withLock { state in
            Dictionary(uniqueKeysWithValues: Set(state.suites.keys).union(state.damaged).map { location in
                ("minimal:\(location)", "generation \(state.generations[location] ?? 0)\(state.damaged.contains(location) ? " damaged" : "")")
            })
        }
    }

    func storedName(of entry: String) -> String? { entry.hasPrefix("minimal:") ? String(entry.dropFirst("minimal:".count)) : nil }

    /// A suite that cannot be read any more, whichever way it was damaged: the store holds values,
    /// not bytes, and says so (`.malformed`) for every read and change of it.
    func damage(suite name: String, key: String, _ damage: ContractStore.Damage, in store: SuiteStore) throws {
        let storage = try #require(storage.withLock { $0 })
        storage.state.withLock { _ = $0.damaged.insert(.suite(name)); $0.generations[.suite(name), default: 0] += 1 }
    }

    /// No blobs: large values stay inline (`SuiteBackend.blobStore` nil).
    func damageBlob(_ entries: [String]) throws { throw TestFailure("the minimal store keeps no blobs") }

    var canBeWatched: Bool { false }
    /// A suite is one value of the dictionary, read whole.
    var oneKeyChangesReadTheWholeSuite: Bool { true }
}
