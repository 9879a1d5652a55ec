import Testing
@testable import PrefsCore

/// The etcd store's own ways on `InMemoryEtcd`: its data model, conflicts retried, changes larger
/// than a transaction, external values in chunks. What every verb means is `BackendContractTests`,
/// on this fake and on a real cluster alike.
@Suite struct EtcdStoreTests {
    let etcd = InMemoryEtcd()
    let store: SuiteStore

    init() {
        let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "PREFS_LOCK_TIMEOUT": "1",
                                       "PREFS_EXTERNAL_THRESHOLD": "1K"])
        let storage = EtcdSuiteStorage(etcd: etcd, prefix: "prefs", name: "etcd://memory/prefs", environment: environment)
        store = SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: InMemoryFileSystem(), environment: environment))
    }

    func write(_ suite: String, _ words: String...) throws -> ChangeOutcome {
        try store.write(try WriteRequest.parse(words[...], domain: suite), to: .suite(suite), options: WriteOptions())
    }

    @Test func theDataModelIsOneKeyPerTopLevelKeyAsABinaryPlist() throws {
        _ = try write("app", "a/b", "-int", "1", "100%", "x")
        _ = try store.update(.global) { $0["g"] = true }
        _ = try store.register(.document(["r": 2]), for: .suite("app"), replacing: false, dryRun: false)
        let keys = etcd.dump().map(\.key)
        #expect(keys == ["prefs/.GlobalPreferences/g", "prefs/.history/.GlobalPreferences/00000000000000000001", "prefs/.history/app/00000000000000000001",
                         "prefs/.registered/app/r", "prefs/.suites/.GlobalPreferences",
                         "prefs/.suites/.registered/app", "prefs/.suites/app", "prefs/app/100%25", "prefs/app/a%2Fb"])
        let value = try #require(etcd.dump().first { $0.key == "prefs/app/a%2Fb" })
        #expect(try PropertyList.decode(value.value, as: .binary) == 1)
        #expect(try store.suiteNames().names == ["app"])
        #expect(try store.value(at: PrefKeyPath(["r"]), in: .suite("app"), scope: ReadScope()).origin == .registered("etcd://memory/prefs/.registered/app"))
    }

    @Test func aConflictingWriterIsRetriedNotLost() throws {
        _ = try write("s", "n", "-int", "0")
        var runs = 0
        _ = try store.update(.suite("s"), keys: ["n"]) { contents in
            runs += 1
            if runs == 1 { self.etcd.put("prefs/app/unrelated", []); self.etcd.put("prefs/s/n", try! PropertyList.encode(10, as: .binary)) }
            contents["n"] = .integer(((contents["n"].flatMap { if case .integer(let n) = $0 { n } else { nil } }) ?? 0) + 1)
        }
        #expect(runs == 2, "the change ran again on what the other writer left")
        #expect(try store.load(.suite("s"))?.contents["n"] == 11)
    }

    /// More than one transaction takes (128 operations): written in a new generation, whole.
    @Test func aChangeBeyondOneTransactionIsWrittenWhole() throws {
        var many = PrefDictionary()
        for i in 0..<200 { many["k\(i)"] = .integer(Int64(i)) }
        #expect(try store.update(.suite("s")) { $0 = many })
        #expect(try store.load(.suite("s"))?.contents == many)
        #expect(etcd.dump().filter { $0.key.hasPrefix("prefs/s/.1/") }.count == 200)
    }

    /// A large value's blob is 1 MiB chunks under `.chunks/`, named by `.external/`; no hold is left
    /// once the suite is committed. (Reading it back, checked, is the contract's.)
    @Test func largeValuesGoToChunks() throws {
        let big = PrefValue.data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = try store.update(.suite("s")) { $0["big"] = big }
        let stored = try #require(try store.load(.suite("s"))?.contents["big"])
        let reference = try #require(try ExternalReference.parse(stored))
        #expect(etcd.dump().filter { $0.key.contains("/.chunks/s/big/\(reference.uuid)/") }.count == 3)
        #expect(etcd.dump().contains { $0.key == "prefs/.external/s/big/\(reference.uuid)" })
        #expect(!etcd.dump().contains { $0.key.contains(".pending") }, "the hold is released once the suite is committed")
        #expect(try store.value(at: PrefKeyPath(["big"]), in: .suite("s"), scope: ReadScope()).value == big)
    }
}
