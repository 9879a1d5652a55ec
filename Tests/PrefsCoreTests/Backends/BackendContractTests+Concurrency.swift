import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// Writers at once, each with a store of its own over the backend (`ContractStore.anotherWriter`,
/// as another process has), on threads: no write is lost, counters and lists grown in place are
/// exact (each change reads the value it changes while it holds the suite), compare-and-set loops
/// lose no update and count none twice, and a reader meanwhile sees only whole changes. What only
/// processes can show (the file lock between processes, a writer killed mid-write) stays in
/// `ConcurrencyTests`.
extension BackendContractTests {
    static let writers = 4, writes = 25

    /// Runs `body(index)` for each index below `count`, each on a thread of its own, all at once,
    /// and waits for them; what they threw, by thread (an `#expect` off the test's own thread
    /// would not be the test's).
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> [String] {
        let group = DispatchGroup()
        let errors = Mutex<[String]>([])
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do { try body(index) } catch { errors.withLock { $0.append("thread \(index): \(error)") } }
            }
        }
        group.wait()
        return errors.withLock { $0 }
    }

    /// N writers of distinct keys, each write also adding 1 to a shared counter (`-int-add`) and an
    /// item to a shared list (`-array-add`) in the same change: every key is there, the counter is
    /// exactly the number of writes and the list holds each item once. A reader loading the suite
    /// meanwhile never fails and never sees part of a change: in every load it makes, the counter,
    /// the list and the keys agree.
    @Test(arguments: Backend.allCases)
    func writersAtOnceLoseNothingAndAReaderSeesOnlyWholeChanges(backend: Backend) throws {
        // What is checked is that no write is lost, not how long one waits behind the others.
        let fixture = try ContractStore(backend, variables: ["PREFS_LOCK_TIMEOUT": "300"])
        let shared = Domain.suite("shared")
        let stores = try (0...Self.writers).map { _ in try fixture.anotherWriter() }
        let writing = Mutex(Self.writers)
        let seen = Mutex<(loads: Int, whole: Int, partial: [String])>((0, 0, []))
        let errors = Self.onThreads(Self.writers + 1) { index in
            guard index < Self.writers else {
                // The reader: until the last writer is done, and once more after.
                var last = false
                while !last {
                    last = writing.withLock { $0 == 0 }
                    let contents = try stores[index].load(shared)?.contents
                    guard let contents else { seen.withLock { $0.loads += 1 }; continue }
                    let keys = contents.keys.filter { $0.hasPrefix("k") }.count
                    let hits: Int64? = if case .integer(let hits)? = contents["hits"] { hits } else { nil }
                    let items: Int? = if case .array(let items)? = contents["items"] { items.count } else { nil }
                    seen.withLock {
                        $0.loads += 1
                        if hits == Int64(keys) && items == keys { $0.whole += 1 } else { $0.partial.append("\(keys) keys, hits \(hits.map(String.init) ?? "none"), \(items.map(String.init) ?? "no") items") }
                    }
                }
                return
            }
            defer { writing.withLock { $0 -= 1 } }
            for i in 1...Self.writes {
                let words = ["k\(index)-\(i)", "-int", String(i), "hits", "-int-add", "1", "items", "-array-add", "\(index)-\(i)"]
                guard try stores[index].write(try WriteRequest.parse(words[...], domain: "shared"), to: shared, options: WriteOptions()).changed else {
                    throw TestFailure("writer \(index), write \(i): nothing changed")
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let contents = try fixture.stored(shared)
        let total = Self.writers * Self.writes
        #expect(contents.count == total + 2)
        #expect(contents["hits"] == .integer(Int64(total)), "every add read the value it added to")
        for index in 0..<Self.writers {
            for i in 1...Self.writes { #expect(contents["k\(index)-\(i)"] == .integer(Int64(i)), "k\(index)-\(i)") }
        }
        let items = try #require(contents["items"]?.array)
        #expect(items.count == total && Set(items.compactMap { if case .string(let item) = $0 { item } else { nil } }).count == total)
        let reads = seen.withLock { $0 }
        #expect(reads.partial.isEmpty, "\(reads.partial.prefix(5))")
        #expect(reads.whole >= 1, "the reader read the suite the writers wrote: \(reads.loads) loads")
    }

    /// Compare-and-set loops (`write --if-equals`): each writer reads the counter, writes one more
    /// if it still holds what was read, and tries again when another won (4); no increment is lost
    /// and none is counted twice, and a refused write changes nothing.
    @Test(arguments: Backend.allCases)
    func compareAndSetLoopsLoseNoUpdate(backend: Backend) throws {
        let fixture = try ContractStore(backend, variables: ["PREFS_LOCK_TIMEOUT": "300"])
        let domain = Domain.suite("cas")
        try fixture.write(domain, "n", "-int", "0")
        let stores = try (0..<Self.writers).map { _ in try fixture.anotherWriter() }
        let refused = Mutex(0)
        let errors = Self.onThreads(Self.writers) { index in
            var done = 0
            while done < Self.writes {
                guard case .integer(let old)? = try stores[index].value(at: PrefKeyPath(["n"]), in: domain) else { throw TestFailure("n is no integer") }
                var options = WriteOptions()
                options.ifEquals = String(old)
                do {
                    let words = ["n", "-int", String(old + 1)]
                    guard try stores[index].write(try WriteRequest.parse(words[...], domain: "cas"), to: domain, options: options).changed else {
                        throw TestFailure("writer \(index): \(old) → \(old + 1) changed nothing")
                    }
                    done += 1
                } catch let error as PrefsError where error.exitStatus == .conditionFailed {
                    guard case .conditionFailed(domain: "cas", key: "n", found: let found?, expected: .integer(old)) = error, found != .integer(old) else {
                        throw TestFailure("writer \(index): refused as \(error)")
                    }
                    refused.withLock { $0 += 1 }
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(try fixture.stored(domain) == ["n": .integer(Int64(Self.writers * Self.writes))])
        // Refusals happen or not as the threads are scheduled; each one was checked above.
        _ = refused.withLock { $0 }
    }
}
