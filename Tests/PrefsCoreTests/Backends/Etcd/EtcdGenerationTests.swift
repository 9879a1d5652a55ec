import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// `InMemoryEtcd` with a hook in front of every transaction: a test can fail, delay or watch one
/// (a killed writer, an answer lost after a commit, a reader between two batches).
final class HookedEtcd: EtcdKV, @unchecked Sendable {
    typealias Hook = (_ compare: [EtcdCompare], _ success: [EtcdOperation], _ pass: () throws -> EtcdTxnResult) throws -> EtcdTxnResult
    let inner = InMemoryEtcd()
    private let lock = NSLock()
    private var hook: Hook?

    func set(_ new: Hook?) { lock.withLock { hook = new } }

    func range(_ key: [UInt8], rangeEnd: [UInt8]?, limit: Int64, keysOnly: Bool, countOnly: Bool, revision: Int64) throws -> EtcdRange {
        try inner.range(key, rangeEnd: rangeEnd, limit: limit, keysOnly: keysOnly, countOnly: countOnly, revision: revision)
    }

    func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]) throws -> EtcdTxnResult {
        let pass = { try self.inner.txn(compare: compare, success: success, failure: failure) }
        guard let hook = lock.withLock({ self.hook }) else { return try pass() }
        return try hook(compare, success, pass)
    }

    /// When each transaction given a deadline was asked for, and its deadline (CLOCK_MONOTONIC).
    let deadlines = Mutex<[(asked: Double, deadline: Double)]>([])

    func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation], deadline: Double) throws -> EtcdTxnResult {
        deadlines.withLock { $0.append((MonotonicClock.now(), deadline)) }
        return try txn(compare: compare, success: success, failure: failure)
    }

    func grantLease(ttl: Int64) throws -> Int64 { try inner.grantLease(ttl: ttl) }
    /// Leases are not revoked (a killed process revokes none).
    let killed = Mutex(false)

    func revokeLease(_ id: Int64) throws {
        if !killed.withLock({ $0 }) { try inner.revokeLease(id) }
    }
    func keepAlive(_ id: Int64) throws -> Int64 { try inner.keepAlive(id) }

    /// Whether a transaction writes the suite's marker (a commit), or writes values only (a batch).
    static func isCommit(_ success: [EtcdOperation]) -> Bool {
        success.contains { if case .put(let key, _, _) = $0 { String(decoding: key, as: UTF8.self).contains("/.suites/") } else { false } }
    }

    static func isBatch(_ success: [EtcdOperation]) -> Bool {
        !isCommit(success) && success.count > 2 && success.allSatisfy { if case .put = $0 { true } else { false } }
    }
}

/// Suites too large for one etcd transaction (issue 28): written in batches into a new generation
/// and committed by one small transaction; and a change whose answer is lost is settled, or 76.
@Suite struct EtcdGenerationTests {
    let etcd = HookedEtcd()
    let store: SuiteStore

    init() {
        let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "PREFS_LOCK_TIMEOUT": "1"])
        let storage = EtcdSuiteStorage(etcd: etcd, prefix: "prefs", name: "etcd://memory/prefs", environment: environment)
        store = SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: InMemoryFileSystem(), environment: environment))
    }

    static func suite(_ count: Int, _ value: String = "v") -> PrefDictionary {
        PrefDictionary((0..<count).map { ("k\($0)", PrefValue.string("\(value)\($0)")) })
    }

    var keys: [String] { etcd.inner.dump().map(\.key) }

    @Test func aSuiteOfAnySizeIsWrittenInANewGenerationAndReadAtOneRevision() throws {
        #expect(try store.update(.suite("s")) { $0 = Self.suite(1000) })
        #expect(try store.load(.suite("s"))?.contents == Self.suite(1000))
        #expect(keys.filter { $0.hasPrefix("prefs/s/.1/") }.count == 1000 && !keys.contains { $0.hasPrefix("prefs/s/k") })
        let requests = etcd.inner.requests
        #expect(try store.value(at: PrefKeyPath(["k7"]), in: .suite("s"), scope: ReadScope()).value == "v7")
        #expect(etcd.inner.requests == requests + 2, "the markers and generation 0, then generation 1 at the same revision")
        // A small change stays in the generation, one transaction; a large one moves to the next.
        let writes = Mutex(0)
        etcd.set { _, success, pass in
            if success.contains(where: { if case .range = $0 { false } else { true } }) { writes.withLock { $0 += 1 } }
            return try pass()
        }
        #expect(try store.update(.suite("s"), keys: ["k1"]) { $0["k1"] = "changed" })
        etcd.set(nil)
        #expect(writes.withLock { $0 } == 1, "one transaction")
        #expect(keys.contains("prefs/s/.1/k1"))
        #expect(try store.update(.suite("s")) { $0 = Self.suite(300, "w") })
        #expect(keys.filter { $0.hasPrefix("prefs/s/") } == Self.suite(300).keys.map { "prefs/s/.2/\($0)" }.sorted())
        #expect(try store.load(.suite("s"))?.contents == Self.suite(300, "w"))
        // Emptied and removed: nothing is left but the suite's history.
        #expect(try store.remove(.suite("s")))
        #expect(etcd.inner.dump().allSatisfy { $0.key.hasPrefix("prefs/.history/s/") } && !etcd.inner.dump().isEmpty)
    }

    /// The ranges of the read transactions `body` sends (those that change nothing), by key.
    func reads(_ body: () throws -> Void) rethrows -> [[String]] {
        let sent = Mutex<[[String]]>([])
        etcd.set { _, success, pass in
            let ranges = success.compactMap { if case .range(let key, _, _, _) = $0 { String(decoding: key, as: UTF8.self) } else { nil } }
            if ranges.count == success.count { sent.withLock { $0.append(ranges) } }
            return try pass()
        }
        defer { etcd.set(nil) }
        try body()
        return sent.withLock { $0 }
    }

    /// A one-key read of a suite in generation 0 (every suite until a change too large for one
    /// transaction) is one request, which asks for no other generation.
    @Test func aOneKeyReadInGenerationZeroIsOneRequestForThatGenerationAlone() throws {
        #expect(try store.update(.suite("s")) { $0 = Self.suite(3) })
        #expect(try store.update(.global) { $0["g"] = 1 })
        let sent = try reads { () throws in
            #expect(try store.value(at: PrefKeyPath(["k1"]), in: .suite("s"), scope: ReadScope()).value == "v1")
            #expect(try store.value(at: PrefKeyPath(["g"]), in: .suite("s"), scope: ReadScope()).value == 1)
            #expect(try store.value(at: PrefKeyPath(["k0"]), in: .suite("s"), scope: ReadScope()).origin == .stored)
        }
        #expect(sent.count == 3, "one request a read")
        for ranges in sent {
            #expect(!ranges.contains { $0.contains("/.1/") || $0.contains("/.2/") }, "\(ranges)")
            #expect(ranges.contains("prefs/s/.prefs-expires") && ranges.contains("prefs/.suites/s"))
        }
        #expect(try store.load(.suite("s"))?.contents == Self.suite(3))
    }

    /// A suite in generation 1 or 2 is read in that generation, its deadlines too, at the revision
    /// of the first request: an expired value there is not shown.
    @Test func aOneKeyReadInGenerationOneTakesItsValueAndDeadlinesFromThere() throws {
        #expect(try store.update(.suite("s")) { $0 = Self.suite(200) })
        #expect(try store.update(.suite("s")) { $0["k2"] = "w2" })
        let past = PrefValue.dictionary(["k1": .date(PrefDate(secondsSinceReferenceDate: 1))])
        etcd.inner.put("prefs/s/.1/.prefs-expires", try PropertyList.encode(past, as: .binary))
        // Generation 0 holding keys of its own (a suite written by another tool) is not read.
        etcd.inner.put("prefs/s/k2", try PropertyList.encode("zero", as: .binary))
        let sent = try reads { () throws in
            #expect(try store.value(at: PrefKeyPath(["k2"]), in: .suite("s"), scope: ReadScope()).value == "w2")
            #expect(prefsError { _ = try store.value(at: PrefKeyPath(["k1"]), in: .suite("s"), scope: ReadScope()) } == .keyNotFound(domain: "s", key: "k1"))
            #expect(try store.value(at: PrefKeyPath(["k0"]), in: .suite("s"), scope: ReadScope()).value == "v0")
        }
        #expect(sent.count == 6, "two requests a read: \(sent)")
        #expect(sent[1] == ["prefs/s/.1/k2", "prefs/s/.1/.prefs-expires"], "the suite's generation alone: \(sent[1])")
        #expect(try store.load(.suite("s"))?.contents.count == 199)
    }

    /// A whole suite is one request in any generation: one range of every generation's values, of
    /// which the marker's is kept (a generation being written, or left by a writer killed, is not).
    @Test func aWholeSuiteIsOneRequestOfTheMarkersGenerationAlone() throws {
        #expect(try store.update(.suite("s")) { $0 = Self.suite(3) })
        etcd.inner.put("prefs/s/.1/k0", try PropertyList.encode("staged", as: .binary))
        etcd.inner.put("prefs/s/.2/x", try PropertyList.encode("staged", as: .binary))
        var loaded: PrefDictionary?
        #expect(try reads { loaded = try store.load(.suite("s"))?.contents }.count == 1)
        #expect(loaded == Self.suite(3))
        #expect(try store.update(.suite("s")) { $0 = Self.suite(200, "w") })
        etcd.inner.put("prefs/s/k0", try PropertyList.encode("zero", as: .binary))
        etcd.inner.put("prefs/s/.2/k1", try PropertyList.encode("staged", as: .binary))
        #expect(keys.contains("prefs/s/.1/k199"))
        #expect(try reads { loaded = try store.load(.suite("s"))?.contents }.count == 1)
        #expect(loaded == Self.suite(200, "w"))
    }

    /// A change between the two requests of a read: the second, pinned to the first's revision,
    /// finds it gone (`InMemoryEtcd` keeps no history, as etcd after a compaction), and the read
    /// is made again whole, every generation in one transaction: old or new, never a mix.
    @Test func aChangeBetweenTheTwoRequestsOfAReadIsReadAgainWhole() throws {
        #expect(try store.update(.suite("s")) { $0 = Self.suite(200, "old") })
        let changed = Mutex(false)
        let writer = Mutex(0)
        let (store, inner) = (self.store, etcd.inner)
        etcd.set { _, success, pass in
            let result = try pass()
            if !changed.withLock({ was in defer { was = true }; return was }) {
                let before = inner.requests
                #expect(try store.update(.suite("s")) { $0 = Self.suite(200, "new") })
                writer.withLock { $0 = inner.requests - before }
            }
            return result
        }
        let requests = etcd.inner.requests
        #expect(try store.value(at: PrefKeyPath(["k5"]), in: .suite("s"), scope: ReadScope()).value == "new5")
        etcd.set(nil)
        #expect(keys.contains("prefs/s/.2/k5") && !keys.contains("prefs/s/.1/k5"))
        let reader = etcd.inner.requests - requests - writer.withLock { $0 }
        #expect(reader == 3, "the first request, the pinned one refused, the whole read: \(reader)")
    }

    @Test func aSuiteInTheLayoutBeforeGenerationsStillReadsAndMoves() throws {
        etcd.inner.put("prefs/.suites/old", [UInt8](repeating: 7, count: 16))
        etcd.inner.put("prefs/old/a", try PropertyList.encode(1, as: .binary))
        #expect(try store.value(at: PrefKeyPath(["a"]), in: .suite("old"), scope: ReadScope()).value == 1)
        #expect(try store.update(.suite("old"), keys: ["b"]) { $0["b"] = 2 })
        #expect(keys == ["prefs/.history/old/00000000000000000001", "prefs/.suites/old", "prefs/old/a", "prefs/old/b"], "a small change keeps the layout")
        #expect(try store.update(.suite("old")) { contents in for entry in Self.suite(200) { contents[entry.key] = entry.value } })
        #expect(!keys.contains("prefs/old/a") && keys.contains("prefs/old/.1/a") && keys.contains("prefs/old/.1/k199"))
        #expect(try store.load(.suite("old"))?.contents.count == 202)
    }

    /// A reader between any two batches sees the old suite, whole; after the commit, the new one.
    @Test func readersNeverSeeHalfAChange() throws {
        #expect(try store.update(.suite("s")) { $0 = Self.suite(150, "old") })
        let seen = Mutex<[Int]>([])
        etcd.set { _, success, pass in
            let result = try pass()
            if HookedEtcd.isBatch(success) {
                let loaded = try self.store.load(.suite("s"))?.contents
                let one = try self.store.value(at: PrefKeyPath(["k3"]), in: .suite("s"), scope: ReadScope()).value
                #expect(loaded == Self.suite(150, "old") && one == "old3")
                seen.withLock { $0.append(loaded?.count ?? 0) }
            }
            return result
        }
        #expect(try store.update(.suite("s")) { $0 = Self.suite(1000, "new") })
        etcd.set(nil)
        #expect(seen.withLock { $0.count } == 8, "1000 values in batches of 128")
        #expect(try store.load(.suite("s"))?.contents == Self.suite(1000, "new"))
    }

    /// A small change that commits while a large one writes its batches: the large one reads again
    /// and writes its generation again, on top of it; nothing of the first attempt is left.
    @Test func aLargeChangeOvertakenByASmallOneIsWrittenAgain() throws {
        #expect(try store.update(.suite("s")) { $0 = Self.suite(2, "old") })
        let interrupted = Mutex(false)
        let runs = Mutex(0)
        etcd.set { _, success, pass in
            let result = try pass()
            if HookedEtcd.isBatch(success), !interrupted.withLock({ done in
                let was = done
                done = true
                return was
            }) {
                #expect(try self.store.update(.suite("s"), keys: ["x"]) { $0["x"] = "small" })
            }
            return result
        }
        #expect(try store.update(.suite("s")) { contents in
            runs.withLock { $0 += 1 }
            for entry in Self.suite(400, "new") { contents[entry.key] = entry.value }
        })
        etcd.set(nil)
        #expect(runs.withLock { $0 } == 2)
        var expected = Self.suite(400, "new")
        expected["x"] = "small"
        #expect(try store.load(.suite("s"))?.contents == expected)
        #expect(keys.filter { $0.hasPrefix("prefs/s/") }.count == 401 && keys.allSatisfy { !$0.hasPrefix("prefs/s/k") })
    }

    /// A few keys whose values together pass 1.5 MiB: read alone first, then the whole suite, which
    /// goes to a new generation.
    @Test func aFewKeysTooLargeTogetherForOneRequestAreWrittenWhole() throws {
        let value = PrefValue.data([UInt8](repeating: 9, count: 100_000))
        #expect(try store.update(.suite("s")) { $0["keep"] = 1 })
        let names = (0..<20).map { "big\($0)" }
        #expect(try store.update(.suite("s"), keys: KeySet(names)) { contents in for name in names { contents[name] = value } })
        #expect(try store.load(.suite("s"))?.contents.count == 21)
        #expect(keys.contains("prefs/s/.1/keep") && keys.contains("prefs/s/.1/big19"))
    }

    /// A writer killed between batches leaves the old suite as it was; what it wrote is collected
    /// once its hold is gone, by `gc` or by the next large change. `check` reports it then, and
    /// `gc` says what it removed: the keys and bytes its record counted, batch by batch.
    @Test func aWriterKilledMidwayLeavesTheOldSuiteAndItsLeftoversAreCollected() throws {
        #expect(try store.update(.suite("s")) { $0 = Self.suite(3, "old") })
        struct Killed: Error {}
        let batches = Mutex(0)
        etcd.set { _, success, pass in
            if HookedEtcd.isBatch(success), batches.withLock({ $0 += 1; return $0 }) == 3 {
                self.etcd.killed.withLock { $0 = true }
                throw Killed()
            }
            return try pass()
        }
        #expect(throws: Killed.self) { try store.update(.suite("s")) { $0 = Self.suite(1000, "new") } }
        etcd.set(nil)
        etcd.killed.withLock { $0 = false }
        #expect(try store.load(.suite("s"))?.contents == Self.suite(3, "old"))
        #expect(keys.filter { $0.hasPrefix("prefs/s/.1/") }.count == 254, "two batches written, 127 values each with the record")
        let held = try store.collectGarbage(.suite("s"), grace: 0, dryRun: false)
        #expect(held.removed.isEmpty && held.abandoned.isEmpty)
        #expect(try store.checkExternal(.suite("s")).problems.isEmpty, "a writer at work is no problem")
        #expect(keys.filter { $0.hasPrefix("prefs/s/.1/") }.count == 254, "kept while the writer's lease lives")
        for lease in etcd.inner.leases { etcd.inner.expire(lease) }
        let bytes = etcd.inner.dump().filter { $0.key.hasPrefix("prefs/s/.1/") }.reduce(0) { $0 + $1.key.utf8.count + $1.value.count }
        let problems = try store.checkExternal(.suite("s")).problems
        #expect(problems.count == 1 && problems[0].hasPrefix("s: an unfinished change of 254 keys (\(bytes) bytes), begun "), "\(problems)")
        let dry = try store.collectGarbage(.suite("s"), grace: 0, dryRun: true)
        #expect(dry.abandoned.map(\.keys) == [254] && dry.abandoned.map(\.bytes) == [bytes])
        #expect(keys.filter { $0.hasPrefix("prefs/s/.1/") }.count == 254, "a dry run removes nothing")
        let collected = try store.collectGarbage(.suite("s"), grace: 0, dryRun: false)
        #expect(collected.abandoned.map(\.keys) == [254] && collected.abandoned.map(\.bytes) == [bytes])
        #expect(!keys.contains { $0.hasPrefix("prefs/s/.") || $0.hasPrefix("prefs/.staged/") }, "collected, with its record")
        #expect(try store.checkExternal(.suite("s")).problems.isEmpty)
        #expect(try store.load(.suite("s"))?.contents == Self.suite(3, "old"))
    }

    /// An answer lost after the commit, and no endpoint answering: the next transaction finds the
    /// change applied (once), or not applied (retried, once); with no answer to that either, 76.
    @Test(arguments: [true, false])
    func aLostAnswerIsSettledNeverCountedTwice(committed: Bool) throws {
        #expect(try store.update(.suite("c")) { $0["n"] = 0 })
        let lost = Mutex(1)
        etcd.set { _, success, pass in
            guard HookedEtcd.isCommit(success), lost.withLock({ $0 -= 1; return $0 }) == 0 else { return try pass() }
            if committed { _ = try pass() }
            throw PrefsError.unavailable(endpoints: ["m1"], reason: "m1: connection reset")
        }
        #expect(try store.update(.suite("c"), keys: ["n"]) { contents in
            guard case .integer(let n)? = contents["n"] else { return }
            contents["n"] = .integer(n + 1)
        })
        #expect(try store.load(.suite("c"))?.contents["n"] == 1)
    }

    @Test func noAnswerToTheSettlingTransactionEitherIsAnUnknownOutcome() throws {
        #expect(try store.update(.suite("c")) { $0["n"] = 0 })
        etcd.deadlines.withLock { $0 = [] }
        etcd.set { compare, success, pass in
            guard HookedEtcd.isCommit(success) || compare.count == 1 else { return try pass() }
            throw PrefsError.unavailable(endpoints: ["m1"], reason: "m1: connection reset")
        }
        let error = prefsError { try store.update(.suite("c"), keys: ["n"]) { $0["n"] = 1 } }
        #expect(error?.exitStatus == .outcomeUnknown && error?.exitStatus.rawValue == 76, "\(String(describing: error))")
        // The change and the transaction settling it share the timeout (5 s by default): 76 comes
        // when it has passed since the change was sent, not twice that.
        let sent = etcd.deadlines.withLock { $0 }
        #expect(sent.count == 2, "the change's transaction, then the settling one: \(sent)")
        if sent.count == 2 {
            #expect(sent[0].deadline < sent[1].deadline && sent[1].deadline <= sent[0].asked + 5, "\(sent)")
        }
    }
}
