import Testing
@testable import PrefsCore

/// Conditional writes, and the failures every backend reports alike: the same `PrefsError` case, the
/// same exit status, and nothing written.
extension BackendContractTests {
    /// `--if-absent` writes only the keys not there yet; `--if-equals` writes only when the stored
    /// value is the one given, else fails with 4 and writes nothing; the two cannot be combined (64).
    @Test(arguments: Backend.allCases)
    func conditionalWritesHoldOrChangeNothing(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        let app = Domain.suite("app")
        try fixture.write(app, "n", "-int", "3")
        var ifAbsent = WriteOptions()
        ifAbsent.conditions.ifAbsent = true
        let before = try fixture.footprint()
        #expect(try !fixture.write(app, "n", "-int", "1", options: ifAbsent).changed)
        #expect(try fixture.footprint() == before, "a key already there is kept, and nothing is written")
        #expect(try fixture.write(app, "n", "-int", "1", "new", "v", options: ifAbsent).changed)
        #expect(try fixture.stored(app) == ["n": 3, "new": "v"])

        var ifEquals = WriteOptions()
        ifEquals.ifEquals = "4"
        let stored = try fixture.footprint()
        expectFailure(.conditionFailed(domain: "app", key: "n", found: 3, expected: 4), status: .conditionFailed) {
            try fixture.write(app, "n", "-int", "9", options: ifEquals)
        }
        expectFailure(.conditionFailed(domain: "app", key: "absent", found: nil, expected: 4), status: .conditionFailed) {
            try fixture.write(app, "absent", "-int", "9", options: ifEquals)
        }
        expectFailure(.conditionFailed(domain: "nosuch", key: "n", found: nil, expected: 4), status: .conditionFailed) {
            try fixture.write(.suite("nosuch"), "n", "-int", "9", options: ifEquals)
        }
        ifEquals.dryRun = true
        expectFailure(.conditionFailed(domain: "app", key: "n", found: 3, expected: 4), status: .conditionFailed) {
            try fixture.write(app, "n", "-int", "9", options: ifEquals)
        }
        #expect(try fixture.footprint() == stored)
        ifEquals = WriteOptions()
        ifEquals.ifEquals = "3"
        #expect(try fixture.write(app, "n", "-int", "9", options: ifEquals).changed)
        #expect(try fixture.read(app, "n").value == 9)
        ifEquals.ifEquals = "9"
        ifEquals.conditions.ifAbsent = true
        expectFailure(.usage("write: --if-absent and --if-equals cannot be combined"), status: .usage) {
            try fixture.write(app, "n", "-int", "1", options: ifEquals)
        }
        ifEquals.conditions.ifAbsent = false
        expectFailure(.usage("write: --if-equals needs exactly one KEY [TYPE] VALUE"), status: .usage) {
            try fixture.write(app, "n", "-int", "1", "m", "2", options: ifEquals)
        }
        #expect(try fixture.read(app, "n").value == 9)
    }

    /// A store that cannot be parsed (a file cut short, an etcd value that is no binary plist) or
    /// holds what prefs never writes (a root that is no dictionary, an etcd key no name spells) fails
    /// every whole-suite read and change with `.malformed` (65) naming the suite, and its damaged
    /// bytes are never overwritten, reset or removed; the other suites go on. A one-key read or
    /// change fails too where it meets the damage (`ContractStore.oneKeyChangesReadTheWholeSuite`).
    @Test(arguments: Backend.allCases, ContractStore.Damage.allCases)
    func aStoreThatCannotBeParsedIsADataErrorAndIsKept(backend: Backend, damage: ContractStore.Damage) throws {
        let fixture = try ContractStore(backend)
        let app = Domain.suite("app")
        try fixture.write(app, "k", "v")
        try fixture.write(.suite("other"), "k", "v")
        let before = try fixture.footprint()
        let corrupt = try fixture.damage(suite: "app", key: "k", damage)
        let damaged = corrupt.filter { before[$0.key] != $0.value }
        var dryRun = WriteOptions()
        dryRun.dryRun = true
        let names = { (error: PrefsError) -> Bool in
            guard case .malformed(let source?, _, _) = error else { return false }
            return source.contains("app")
        }
        let wholeSuite: [(Comment, () throws -> Void)] = [
            ("load", { _ = try fixture.store.load(app) }),
            ("contents", { _ = try fixture.store.contents(of: app, scope: ReadScope()) }),
            ("update", { try fixture.store.update(app) { $0 = PrefDictionary() } }),
            ("delete suite", { _ = try fixture.store.delete(nil, in: app, dryRun: false) }),
            ("remove", { _ = try fixture.store.remove(app) }),
            ("reset", { _ = try fixture.store.reset([], in: app, dryRun: false) }),
            ("reset, dry run", { _ = try fixture.store.reset([], in: app, dryRun: true) }),
            ("reset a key, dry run", { _ = try fixture.store.reset([PrefKeyPath(["k"])], in: app, dryRun: true) }),
            ("delete suite, dry run", { _ = try fixture.store.delete(nil, in: app, dryRun: true) }),
        ]
        let oneKey: [(Comment, () throws -> Void)] = [
            ("value", { _ = try fixture.store.value(at: PrefKeyPath(["k"]), in: app) }),
            ("read", { _ = try fixture.read(app, "k") }),
            ("dry run", { try fixture.write(app, "k", "new", options: dryRun) }),
            ("write", { try fixture.write(app, "k", "new") }),
            ("rename", { _ = try fixture.store.rename(PrefKeyPath(["k"]), to: PrefKeyPath(["z"]), in: app, dryRun: false) }),
            ("delete key", { _ = try fixture.store.delete(PrefKeyPath(["k"]), in: app, dryRun: false) }),
            ("rename, dry run", { _ = try fixture.store.rename(PrefKeyPath(["k"]), to: PrefKeyPath(["z"]), in: app, dryRun: true) }),
            ("delete key, dry run", { _ = try fixture.store.delete(PrefKeyPath(["k"]), in: app, dryRun: true) }),
        ]
        let oneKeyFails = damage == .unparsable || fixture.oneKeyChangesReadTheWholeSuite
        for (verb, attempt) in wholeSuite + (oneKeyFails ? oneKey : []) {
            expectFailure(status: .dataError, comment: verb, attempt, matching: names)
        }
        #expect(try fixture.footprint() == corrupt, "byte for byte as it was")
        if !oneKeyFails {
            // One etcd key per value: a one-key read or change reads that key alone, and goes on.
            #expect(try fixture.read(app, "k").value == "v")
            // A dry run reads what the change would, and fails only where it would.
            #expect(try fixture.write(app, "k", "new", options: dryRun).report == [KeyChange(key: "k", old: "v", new: "new")])
            #expect(try fixture.store.rename(PrefKeyPath(["k"]), to: PrefKeyPath(["z"]), in: app, dryRun: true).changed)
            #expect(try fixture.store.delete(PrefKeyPath(["k"]), in: app, dryRun: true).report == [KeyChange(key: "k", old: "v", new: nil)])
            #expect(try fixture.write(app, "k", "new").changed)
            #expect(try fixture.store.rename(PrefKeyPath(["k"]), to: PrefKeyPath(["z"]), in: app, dryRun: false).changed)
            #expect(try fixture.store.delete(PrefKeyPath(["z"]), in: app, dryRun: false).changed)
            let after = try fixture.footprint()
            #expect(damaged.allSatisfy { after[$0.key] == $0.value }, "the damaged bytes are kept")
        }
        let every = try fixture.store.everySuite()
        #expect(every.suites.map(\.domain) == [.suite("other")])
        #expect(every.failures.count == 1 && every.failures.allSatisfy(names))
        #expect(try fixture.store.suiteNames().names == ["app", "other"])
        #expect(try fixture.write(.suite("other"), "k", "changed").changed)
    }

    /// While a suite is held (as `gc` and `dump` hold it, or a writer in another thread), a change
    /// of it waits `PREFS_LOCK_TIMEOUT` and fails with `.lockUnavailable` (75), nothing written;
    /// other suites change and new ones are made meanwhile, and once the hold is gone the change
    /// goes through. A suite not there yet is held as well: its first writer waits. (The lock
    /// another process holds on a suite's file: `ConcurrencyTests.aHeldLockEndsIn75AndChangesNothing`.)
    @Test(arguments: Backend.allCases)
    func aHeldSuiteTimesOutItsWritersOnly(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        let app = Domain.suite("app")
        try fixture.write(app, "k", "v")
        let other = try fixture.anotherWriter()
        try fixture.store.storage.withChangesHeld(.suite("app"), creating: true) {
            let held = try fixture.footprint()
            expectFailure(.lockUnavailable(path: fixture.store.describe(.suite("app")), seconds: 0.2), status: .lockUnavailable) {
                _ = try other.write(try WriteRequest.parse(["k", "changed"], domain: "app"), to: app, options: WriteOptions())
            }
            #expect(try fixture.footprint() == held)
            #expect(try other.update(.suite("free")) { $0["k"] = "written" })
        }
        #expect(try other.write(try WriteRequest.parse(["k", "changed"], domain: "app"), to: app, options: WriteOptions()).changed)
        #expect(try fixture.read(app, "k").value == "changed")
        #expect(try fixture.read(.suite("free"), "k").value == "written")
        try fixture.store.storage.withChangesHeld(.suite("absent"), creating: true) {
            let held = try fixture.footprint()
            expectFailure(.lockUnavailable(path: fixture.store.describe(.suite("absent")), seconds: 0.2), status: .lockUnavailable) {
                _ = try other.update(.suite("absent")) { $0["k"] = "new" }
            }
            #expect(try fixture.footprint() == held)
            #expect(try other.update(app) { $0["k"] = "again" })
        }
        #expect(try other.update(.suite("absent")) { $0["k"] = "new" })
        #expect(try fixture.store.suiteNames().names == ["absent", "app", "free"])
    }
}
