import Testing
@testable import PrefsCore
import PrefsTestSupport

/// A suite's history (`prefs history`, `diff`, `rollback`): every change keeps a version in the
/// same step as it commits, the newest `PREFS_HISTORY` kept; a rollback puts back exactly what a
/// version left, byte for byte, as a compare-and-swap.
extension BackendContractTests {
    /// Whether `fixture`'s store keeps histories; where it keeps none, `history`, `diff` and
    /// `rollback` of `domain` are refused (64), saying the store keeps no history, and change
    /// nothing, which this checks.
    static func keepsHistoryOrRefuses(_ fixture: ContractStore, _ domain: Domain) throws -> Bool {
        guard try !fixture.keepsHistory else { return true }
        let before = try fixture.footprint()
        let refusal = PrefsError.usage("\(domain.displayName): this store does not keep a history of changes")
        expectFailure(refusal, status: .usage, comment: "history") { _ = try fixture.store.versions(of: domain) }
        expectFailure(refusal, status: .usage, comment: "diff") { _ = try fixture.store.difference(in: domain, from: 1, to: nil) }
        expectFailure(refusal, status: .usage, comment: "rollback") { _ = try fixture.store.rollback(domain, to: 1, dryRun: false) }
        expectFailure(refusal, status: .usage, comment: "rollback, dry run") { _ = try fixture.store.rollback(domain, to: 1, dryRun: true) }
        #expect(try fixture.footprint() == before)
        return false
    }

    /// The suite as stored (deadlines and external references as they are), each value as the
    /// binary property list that stores it: equal bytes, the same value.
    static func rawState(_ fixture: ContractStore, _ domain: Domain) throws -> [String: [UInt8]] {
        let location = try fixture.store.location(of: domain)
        let contents = try ExpiringStorage.unwrapped(fixture.store.storage).load(location)?.contents ?? PrefDictionary()
        var state: [String: [UInt8]] = [:]
        for entry in contents { state[entry.key] = try PropertyList.encode(entry.value, as: .binary) }
        return state
    }

    /// Random changes of every value type (sub-second dates, UIDs, NaN, the largest unsigned integer,
    /// nested containers, keys removed and the whole suite removed): each keeps one version, numbered
    /// one more than the last, with its verb and keys; ten are kept; a rollback to any kept version
    /// gives back the stored bytes of every value as that version left them, as a new version.
    @Test(arguments: Backend.allCases)
    func rollbackPutsBackEveryValueByteForByte(backend: Backend) throws {
        let seed = TestSeed.run
        let fixture = try ContractStore(backend)
        // Suites the typed API makes are binary files: every type and a date's fraction are kept.
        let store = fixture.store.creatingSuites(as: .binary)
        var random = RandomValues(seed: seed)
        let domain = Domain.suite("pool")
        guard try Self.keepsHistoryOrRefuses(fixture, domain) else { return }
        let keys = ["a", "b", "c", "d", "é"]
        var states: [Int64: [String: [UInt8]]] = [:]
        for step in 1...14 {
            if step == 9 {
                #expect(try store.remove(domain))
            } else {
                try store.update(domain) { contents in
                    for _ in 0..<random.int(1...3) {
                        let key = keys[random.int(0...keys.count - 1)]
                        contents[key] = random.int(0...4) == 0 ? nil : random.value()
                    }
                    if contents.isEmpty { contents["a"] = .uid(7) }
                }
            }
            let versions = try store.versions(of: domain)
            guard let head = versions.last else { Issue.record("\(TestSeed.reproduce(seed)): no version after step \(step)"); return }
            states[head.number] = try BackendContractTests.rawState(fixture, domain)
            #expect(head.verb == "swift", "\(TestSeed.reproduce(seed))")
        }
        var versions = try store.versions(of: domain)
        #expect(versions.count == 10, "\(TestSeed.reproduce(seed))")
        #expect(versions.map(\.number) == Array(Int64(versions[0].number)...Int64(versions[0].number) + 9), "\(TestSeed.reproduce(seed)): consecutive")
        #expect(versions.contains { $0.verb == "swift" && $0.changes?.allSatisfy { $0.new == nil } == true }, "\(TestSeed.reproduce(seed)): the removal is a version")
        for _ in 0..<6 {
            // Not the oldest: the rollback's own version prunes it.
            let target = versions[random.int(1...versions.count - 2)].number
            _ = try store.rollback(domain, to: target, dryRun: false)
            let state = try BackendContractTests.rawState(fixture, domain)
            #expect(state == states[target], "\(TestSeed.reproduce(seed)): rollback to \(target)")
            versions = try store.versions(of: domain)
            let head = try #require(versions.last)
            #expect(head.verb == "rollback", "\(TestSeed.reproduce(seed))")
            states[head.number] = state
            #expect(try store.difference(in: domain, from: target, to: nil).isEmpty, "\(TestSeed.reproduce(seed)): nothing between \(target) and the rollback")
        }
    }

    /// `rollback` is a compare-and-swap: a change that expects an older newest version, or a key
    /// changed by a writer that keeps no history, is refused (4) and nothing changes; a dry run
    /// shows the change and writes nothing; a version not kept is 1.
    @Test(arguments: Backend.allCases)
    func rollbackIsACompareAndSwap(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        let domain = Domain.suite("flags")
        try fixture.write(domain, "mode", "blue")
        try fixture.write(domain, "mode", "green")
        try fixture.write(domain, "size", "-int", "3")
        guard try Self.keepsHistoryOrRefuses(fixture, domain) else { #expect(try fixture.stored(domain) == ["mode": "green", "size": 3]); return }
        #expect(try fixture.store.versions(of: domain).map(\.number) == [1, 2, 3])
        var before = try fixture.footprint()
        // Another writer moved the suite after version 2 was read as the newest.
        var stale = fixture.store
        stale.expectedVersion = 2
        expectFailure(status: .conditionFailed, { try stale.update(domain) { $0["mode"] = "blue" } }) {
            if case .versionConflict(let domain, _) = $0 { domain.hasSuffix("flags") } else { false }
        }
        #expect(try fixture.footprint() == before)
        let dry = try fixture.store.rollback(domain, to: 1, dryRun: true)
        #expect(dry.report == [KeyChange(key: "mode", old: "green", new: "blue"), KeyChange(key: "size", old: 3, new: nil)])
        #expect(try fixture.footprint() == before)
        // A writer that keeps no history changes a key the rollback would put back.
        var untracked = try fixture.anotherWriter(adding: ["PREFS_HISTORY": "0"])
        try untracked.update(domain) { $0["mode"] = "red" }
        untracked = fixture.store
        before = try fixture.footprint()
        expectFailure(status: .conditionFailed, { _ = try fixture.store.rollback(domain, to: 1, dryRun: false) }) {
            if case .versionConflict(let domain, let reason) = $0 { domain.hasSuffix("flags") && reason.hasPrefix("mode changed without a version") } else { false }
        }
        #expect(try fixture.footprint() == before)
        expectFailure(.versionNotFound(domain: "flags", version: 9, kept: "1 to 3"), status: .notFound) {
            _ = try fixture.store.rollback(domain, to: 9, dryRun: false)
        }
        // Put back by hand, the rollback goes through, as version 4.
        try untracked.update(domain) { $0["mode"] = "green" }
        #expect(try fixture.store.rollback(domain, to: 1, dryRun: false).changed)
        #expect(try fixture.stored(domain) == ["mode": "blue"])
        #expect(try fixture.store.versions(of: domain).last?.number == 5)
    }

    /// `PREFS_HISTORY` sets how many versions are kept (pruned in the change that adds one); 0 keeps
    /// none, and then nothing of a history is written.
    @Test(arguments: Backend.allCases)
    func historyLengthIsKeptAndZeroKeepsNone(backend: Backend) throws {
        let three = try ContractStore(backend, variables: ["PREFS_HISTORY": "3"])
        for value in 1...5 { try three.write(.suite("s"), "n", "-int", String(value)) }
        guard try Self.keepsHistoryOrRefuses(three, .suite("s")) else { #expect(try three.stored(.suite("s")) == ["n": 5]); return }
        #expect(try three.store.versions(of: .suite("s")).map(\.number) == [3, 4, 5])
        #expect(try three.store.difference(in: .suite("s"), from: 3, to: 5) == [KeyChange(key: "n", old: 3, new: 5)])
        #expect(try three.store.difference(in: .suite("s"), from: 5, to: 3) == [KeyChange(key: "n", old: 5, new: 3)])

        let off = try ContractStore(backend, variables: ["PREFS_HISTORY": "0"])
        for value in 1...3 { try off.write(.suite("s"), "n", "-int", String(value)) }
        #expect(try off.store.versions(of: .suite("s")).isEmpty)
        let names = try off.storedNames()
        #expect(!names.contains { $0.contains("history") }, "\(names)")
        expectFailure(status: .usage, { _ = try off.store.versions(of: .file(off.root + "/x.plist")) }) { _ in true }
    }

    /// A large value a change replaces keeps its blob while a version names it: `check` finds no
    /// orphan, `gc` keeps it, a rollback reads it back; the change that prunes the last version
    /// naming it removes it, with no orphan left for `gc`.
    @Test(arguments: Backend.allCases)
    func externalValuesStayWhileAVersionNamesThem(backend: Backend) throws {
        let fixture = try ContractStore(backend, variables: ["PREFS_HISTORY": "2"])
        let domain = Domain.suite("big")
        guard try Self.keepsHistoryOrRefuses(fixture, domain) else { return }
        guard try fixture.keepsBlobs else { return try Self.valuesStayInline(fixture) }
        let first = String(repeating: "a", count: 4000), second = String(repeating: "b", count: 4000)
        try fixture.store.update(domain) { $0["blob"] = .string(first) }
        try fixture.store.update(domain) { $0["blob"] = .string(second) }
        #expect(try fixture.store.checkExternal(domain).problems.isEmpty)
        #expect(try fixture.store.collectGarbage(domain, grace: 0).removed.isEmpty)
        _ = try fixture.store.rollback(domain, to: 1, dryRun: false)
        #expect(try fixture.read(domain, "blob").value == .string(first))
        // Versions 2 (first → second) and 3 (second → first) name both blobs; two more small
        // changes prune them: the second blob, which nothing names then, goes with the change
        // that pruned version 3; the first stays while version 4 (first → small) names it.
        let blobs = { try fixture.storedNames().filter { $0.contains("external/big/blob/") }.count }
        #expect(try blobs() == 2)
        try fixture.store.update(domain) { $0["blob"] = "small" }
        #expect(try blobs() == 2)
        try fixture.store.update(domain) { $0["other"] = 1 }
        #expect(try blobs() == 1)
        #expect(try fixture.store.collectGarbage(domain, grace: 0).removed.isEmpty)
        #expect(try fixture.store.checkExternal(domain).problems.isEmpty)
        _ = try fixture.store.rollback(domain, to: 4, dryRun: false)
        #expect(try fixture.stored(domain) == ["blob": "small"])
    }

    /// A value's deadline (`write --ttl`) is part of what a version keeps: a rollback puts it back.
    @Test(arguments: Backend.allCases)
    func rollbackPutsBackADeadline(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        let domain = Domain.suite("ttl")
        var options = WriteOptions()
        let deadline = PrefDate(secondsSinceReferenceDate: (Expiry.now().secondsSinceReferenceDate + 3600).rounded(.up))
        options.deadline = deadline
        try fixture.write(domain, "freeze", "-bool", "true", options: options)
        try fixture.write(domain, "freeze", "-bool", "false")
        #expect(try fixture.store.deadlines(in: domain).isEmpty)
        guard try Self.keepsHistoryOrRefuses(fixture, domain) else { return }
        _ = try fixture.store.rollback(domain, to: 1, dryRun: false)
        #expect(try fixture.read(domain, "freeze").value == true)
        #expect(try fixture.store.deadlines(in: domain).map(\.deadline) == [deadline])
    }
}
