import Testing
@testable import PrefsCore

/// The etcd store's semantics on `InMemoryEtcd` (the real cluster runs the same operations in
/// prefsTests' EtcdTests): the data model, every kind of change, conflicts retried, limits refused,
/// external values in chunks.
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
        #expect(keys == ["prefs/.GlobalPreferences/g", "prefs/.registered/app/r", "prefs/.suites/.GlobalPreferences",
                         "prefs/.suites/.registered/app", "prefs/.suites/app", "prefs/app/100%25", "prefs/app/a%2Fb"])
        let value = try #require(etcd.dump().first { $0.key == "prefs/app/a%2Fb" })
        #expect(try PropertyList.decode(value.value, as: .binary) == 1)
        #expect(try store.suiteNames().names == ["app"])
        #expect(try store.value(at: KeyPath(["r"]), in: .suite("app"), scope: ReadScope()).origin == .registered("etcd://memory/prefs/.registered/app"))
    }

    @Test func everyVerbMeansWhatItMeansOnFiles() throws {
        _ = try write("s", "a", "1", "n", "-int", "1", "b", "-array", "x")
        #expect(try write("s", "n", "-int-add", "41").sums == [42])
        _ = try write("s", "b", "-array-add", "y")
        #expect(try store.rename(KeyPath(["a"]), to: KeyPath(["c"]), in: .suite("s"), dryRun: false).changed)
        #expect(try store.delete(KeyPath(["b", "0"]), in: .suite("s"), dryRun: false).changed)
        #expect(try store.load(.suite("s"))?.contents == ["b": ["y"], "c": "1", "n": 42])
        #expect(try !write("s", "c", "1").changed, "writing the same value changes nothing")
        #expect(throws: PrefsError.keyNotFound(domain: "s", key: "zz")) { try store.delete(KeyPath(["zz"]), in: .suite("s"), dryRun: false) }
        #expect(try store.reset([], in: .suite("s"), dryRun: false).changed)
        #expect(try store.load(.suite("s")) == nil)
        #expect(etcd.dump().isEmpty, "a suite reset to nothing leaves no key")
        #expect(throws: PrefsError.suiteNotFound(domain: "s")) { try store.value(at: KeyPath(["c"]), in: .suite("s"), scope: ReadScope()) }
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

    @Test func largeValuesGoToChunksAndComeBackChecked() throws {
        let big = PrefValue.data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = try store.update(.suite("s")) { $0["big"] = big }
        let stored = try #require(try store.load(.suite("s"))?.contents["big"])
        let reference = try #require(try ExternalReference.parse(stored))
        #expect(etcd.dump().filter { $0.key.contains("/.chunks/s/big/\(reference.uuid)/") }.count == 3)
        #expect(etcd.dump().contains { $0.key == "prefs/.external/s/big/\(reference.uuid)" })
        #expect(!etcd.dump().contains { $0.key.contains(".pending") }, "the hold is released once the suite is committed")
        #expect(try store.value(at: KeyPath(["big"]), in: .suite("s"), scope: ReadScope()).value == big)
        #expect(try store.checkExternal(.suite("s")).problems.isEmpty)
        // Damage one chunk: every read refuses it.
        etcd.put("prefs/.chunks/s/big/\(reference.uuid)/00000001", [UInt8](repeating: 0, count: 1 << 20))
        #expect(throws: PrefsError.self) { try store.value(at: KeyPath(["big"]), in: .suite("s"), scope: ReadScope()) }
        #expect(try store.checkExternal(.suite("s")).problems.count == 1)
        // Overwritten inline (a plain set reads nothing), the blob goes.
        _ = try store.update(.suite("s"), keys: ["big"], external: ExternalOptions(reading: [])) { $0["big"] = "small" }
        #expect(!etcd.dump().contains { $0.key.contains(reference.uuid) })
    }

    @Test func gcLeavesHeldBlobsAndTakesOrphans() throws {
        let blobs = try #require(try store.storage.blobStore())
        let held = try blobs.write(suite: "s", key: "k", kind: .data) { sink in
            try [UInt8](repeating: 1, count: 10).withUnsafeBytes { try sink.write($0) }
        }
        _ = try write("s", "other", "v")
        #expect(try store.collectGarbage(.suite("s"), grace: 0, dryRun: false, now: Int64.max / 2).removed.isEmpty, "a held blob is kept")
        held.release()
        #expect(try store.collectGarbage(.suite("s"), grace: 0, dryRun: false, now: Int64.max / 2).removed.count == 1)
        #expect(!etcd.dump().contains { $0.key.contains(held.reference.uuid) })
    }
}
