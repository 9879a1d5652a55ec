import Foundation
import Synchronization
import Testing
@testable import PrefsCore
import PrefsTestSupport

/// `InMemoryEtcd` that can be away, or refuse: every request then fails with `failure`.
final class AwayEtcd: EtcdKV {
    let etcd = InMemoryEtcd()
    let failure = Mutex<PrefsError?>(nil)
    static let away = PrefsError.unavailable(endpoints: ["memory:1"], reason: "timed out")

    func set(_ failure: PrefsError?) { self.failure.withLock { $0 = failure } }

    func check() throws {
        if let failure = failure.withLock({ $0 }) { throw failure }
    }

    func range(_ key: [UInt8], rangeEnd: [UInt8]?, limit: Int64, keysOnly: Bool, countOnly: Bool, revision: Int64) throws -> EtcdRange {
        try check()
        return try etcd.range(key, rangeEnd: rangeEnd, limit: limit, keysOnly: keysOnly, countOnly: countOnly, revision: revision)
    }

    func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]) throws -> EtcdTxnResult {
        try check()
        return try etcd.txn(compare: compare, success: success, failure: failure)
    }

    func grantLease(ttl: Int64) throws -> Int64 { try check(); return try etcd.grantLease(ttl: ttl) }
    func revokeLease(_ id: Int64) throws { try check(); try etcd.revokeLease(id) }
    func keepAlive(_ id: Int64) throws -> Int64 { try check(); return try etcd.keepAlive(id) }
}

/// Reads answered from the host's snapshot of a suite (`SuiteStore.reading`) on an etcd store in
/// memory, the snapshots in a temporary cache home on disk: `--max-stale` answers without a request
/// when the snapshot holds what the read needs, `--fallback-cache` when the store is away; either
/// resolves the layers as a read of the store does.
@Suite struct SnapshotReadingTests {
    let directory: TemporaryDirectory
    let environment: Environment
    let etcd = AwayEtcd()

    init() throws {
        directory = try TemporaryDirectory()
        let path = directory.path
        environment = Environment(["XDG_CONFIG_HOME": path + "/c", "XDG_DATA_HOME": path + "/d", "XDG_DATA_DIRS": path + "/p",
                                   "XDG_CONFIG_DIRS": path + "/x", "XDG_CACHE_HOME": path + "/cache", "PREFS_LOCK_TIMEOUT": "1"])
    }

    var user: SuiteStore {
        let storage = EtcdSuiteStorage(etcd: etcd, prefix: "prefs", name: "etcd://memory:1/prefs", environment: environment)
        return SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: LocalFileSystem(), environment: environment))
    }

    var administrator: SuiteStore {
        let storage = EtcdSuiteStorage(etcd: etcd, managedValuesOf: "prefs", name: "etcd://memory:1/prefs/.managed", environment: environment)
        return SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: LocalFileSystem(), environment: environment))
    }

    var snapshots: String { directory.path + "/cache/prefs/snapshots" }

    var snapshotFiles: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: snapshots)) ?? []).sorted() }

    func write(_ store: SuiteStore, _ words: String..., in domain: Domain = .suite("app")) throws {
        _ = try store.write(try WriteRequest.parse(words[...], domain: domain.displayName), to: domain, options: WriteOptions())
    }

    /// The value at `key` read as `policy` allows, and the snapshot's answer when one answered.
    func read(_ key: String, _ policy: SnapshotPolicy = SnapshotPolicy(), domain: Domain = .suite("app")) throws
        -> (value: PrefValue, origin: Origin, snapshot: SnapshotAnswer?) {
        var answer: SnapshotAnswer?
        let found = try user.reading(domain, policy: policy, answered: { answer = $0 }) {
            try $0.value(at: PrefKeyPath([key]), in: domain, scope: ReadScope())
        }
        return (found.value, found.origin, answer)
    }

    func contents(_ policy: SnapshotPolicy = SnapshotPolicy()) throws -> (values: PrefDictionary, snapshot: SnapshotAnswer?) {
        var answer: SnapshotAnswer?
        let resolved = try user.reading(.suite("app"), policy: policy, answered: { answer = $0 }) { try $0.contents(of: .suite("app")) }
        return (resolved.values, answer)
    }

    @Test func maxStaleAnswersFromAYoungSnapshotWithoutAskingTheStore() throws {
        try write(user, "a", "-int", "1", "b", "two")
        #expect(try contents().values == ["a": 1, "b": "two"])
        #expect(snapshotFiles.count == 1)
        let requests = etcd.etcd.requests
        let fresh = try read("a", SnapshotPolicy(maxStale: 60))
        #expect(fresh.value == 1 && fresh.origin == .stored && fresh.snapshot?.unavailable == nil)
        #expect(fresh.snapshot?.holds(.stored) == true)
        #expect(throws: PrefsError.keyNotFound(domain: "app", key: "c")) { try read("c", SnapshotPolicy(maxStale: 60)) }
        #expect(try contents(SnapshotPolicy(maxStale: 60)).snapshot != nil)
        #expect(etcd.etcd.requests == requests, "the snapshot answered every read")
        // Another host changes the suite: a stale answer is what --max-stale allows; a read of
        // the store sees the change and keeps it.
        try write(user, "a", "-int", "5")
        #expect(try read("a", SnapshotPolicy(maxStale: 60)).value == 1)
        #expect(try read("a").value == 5)
        #expect(try read("a", SnapshotPolicy(maxStale: 60)).value == 5)
        // A snapshot older than asked for asks the store.
        let file = snapshots + "/" + snapshotFiles[0]
        var old = [timespec(tv_sec: time(nil) - 120, tv_nsec: 0), timespec(tv_sec: time(nil) - 120, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, file, &old, 0) == 0)
        let before = etcd.etcd.requests
        #expect(try read("a", SnapshotPolicy(maxStale: 60)).snapshot == nil)
        #expect(etcd.etcd.requests > before)
    }

    /// One-key reads keep the keys they read while the suite stays at one version; a key never read
    /// asks the store, which then keeps it too.
    @Test func aKeyTheSnapshotDoesNotHoldAsksTheStore() throws {
        try write(user, "a", "-int", "1", "b", "two")
        #expect(try read("a").value == 1)
        var requests = etcd.etcd.requests
        #expect(try read("b", SnapshotPolicy(maxStale: 60)).snapshot == nil)
        #expect(etcd.etcd.requests == requests + 1, "one request for the key")
        requests = etcd.etcd.requests
        #expect(try read("a", SnapshotPolicy(maxStale: 60)).snapshot != nil)
        #expect(try read("b", SnapshotPolicy(maxStale: 60)).value == "two")
        #expect(etcd.etcd.requests == requests)
    }

    /// An unchanged answer moves the snapshot's time only; a changed one writes a new file.
    @Test func theFileIsRewrittenOnlyWhenWhatItHoldsChanged() throws {
        try write(user, "a", "-int", "1")
        _ = try read("a")
        let file = snapshots + "/" + snapshotFiles[0]
        var first = stat(), second = stat(), third = stat()
        var old = [timespec(tv_sec: 1000, tv_nsec: 0), timespec(tv_sec: 1000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, file, &old, 0) == 0 && stat(file, &first) == 0)
        _ = try read("a")
        #expect(stat(file, &second) == 0 && second.st_ino == first.st_ino && second.st_mtim.tv_sec > 1000)
        try write(user, "a", "-int", "2")
        _ = try read("a")
        #expect(stat(file, &third) == 0 && third.st_ino != first.st_ino)
    }

    @Test func fallbackAnswersFromTheSnapshotOnlyWhenTheStoreIsAway() throws {
        try write(user, "a", "-int", "1")
        _ = try read("a")
        etcd.set(AwayEtcd.away)
        let away = AwayEtcd.away
        #expect(throws: away) { try read("a") }
        let fallback = try read("a", SnapshotPolicy(fallback: true))
        #expect(fallback.value == 1 && fallback.snapshot?.unavailable == away)
        #expect(throws: away, "never read: the store's own failure") { try read("b", SnapshotPolicy(fallback: true)) }
        #expect(throws: away, "a suite never read") { try read("a", SnapshotPolicy(fallback: true), domain: .suite("other")) }
        // Another failure of the store (a refusal) is never answered from the snapshot.
        let refused = PrefsError.storeRefused(endpoint: "memory:1", code: 7, message: "etcdserver: permission denied", status: .noPermission)
        etcd.set(refused)
        #expect(throws: refused) { try read("a", SnapshotPolicy(fallback: true)) }
    }

    /// The fleet's managed values, the schema's defaults and the registered defaults come from the
    /// snapshot as from the store, under this machine's managed file, which is read as it is.
    @Test func everyLayerResolvesFromTheSnapshotAsFromTheStore() throws {
        try write(administrator, "locked", "policy")
        try write(administrator, "g", "-int", "1", in: .global)
        let schema = try directory.write("schema.json", #"{"keys": {"n": {"type": "integer", "default": 5}}}"#)
        _ = try user.installSchema(from: schema, for: .suite("app"))
        _ = try user.register(.document(["r": "registered", "locked": "mine"]), for: .suite("app"), replacing: false)
        try write(user, "s", "stored")
        try FileManager.default.createDirectory(atPath: directory.path + "/x/prefs/managed", withIntermediateDirectories: true)
        let machine = try directory.write("x/prefs/managed/app.plist", try PropertyList.encode(["m": "file"], as: .xml))
        let live = try contents()
        etcd.set(AwayEtcd.away)
        let answered = try contents(SnapshotPolicy(fallback: true))
        #expect(answered.values == live.values)
        #expect(answered.values == ["g": 1, "locked": "policy", "m": "file", "n": 5, "r": "registered", "s": "stored"])
        let snapshot = try #require(answered.snapshot)
        #expect(snapshot.holds(.managed("etcd://memory:1/prefs/.managed/app")) && snapshot.holds(.registered("etcd://memory:1/prefs/.registered/app")))
        #expect(snapshot.holds(.schema("etcd://memory:1/prefs/.schemas/app")))
        #expect(!snapshot.holds(.managed(machine)), "this machine's file is read as it is")
        // The machine's file changes while the store is away: the answer shows it.
        try directory.write("x/prefs/managed/app.plist", try PropertyList.encode(["m": "changed"], as: .xml))
        #expect(try read("m", SnapshotPolicy(fallback: true)).value == "changed")
        #expect(try read("locked", SnapshotPolicy(fallback: true)).origin == .managed("etcd://memory:1/prefs/.managed/app"))
    }

    @Test func aSuiteDeletedOnTheStoreLeavesNoSnapshot() throws {
        try write(user, "a", "-int", "1")
        _ = try read("a")
        #expect(snapshotFiles.count == 1)
        #expect(try user.remove(.suite("app")))
        #expect(throws: PrefsError.suiteNotFound(domain: "app")) { try read("a") }
        #expect(snapshotFiles.isEmpty)
        etcd.set(AwayEtcd.away)
        #expect(throws: AwayEtcd.away) { try read("a", SnapshotPolicy(fallback: true)) }
    }

    /// A large value stays in the store: the snapshot keeps its reference, and a read that needs it
    /// is one the snapshot cannot answer.
    @Test func anExternalValueIsNotInTheSnapshot() throws {
        try write(user, "big", String(repeating: "x", count: 200_000), "small", "s")
        #expect(try contents().values.count == 2)
        etcd.set(AwayEtcd.away)
        #expect(try read("small", SnapshotPolicy(fallback: true)).value == "s")
        #expect(throws: AwayEtcd.away) { try read("big", SnapshotPolicy(fallback: true)) }
        etcd.set(nil)
        #expect(try read("big", SnapshotPolicy(maxStale: 60)).snapshot == nil, "asks the store")
    }

    /// A file at the snapshot's name that is another store's or another suite's (a hash collision,
    /// a copied file) is not used.
    @Test func aSnapshotOfAnotherStoreOrSuiteIsNotUsed() throws {
        try write(user, "a", "-int", "1")
        _ = try read("a")
        let name = snapshotFiles[0]
        for (store, suite) in [("etcd://other:1/prefs", "app"), ("etcd://memory:1/prefs", "other")] {
            var foreign = ReadSnapshot(store: store, suite: suite)
            foreign.add([PlaceReading(location: .suite("app"), version: 1, exists: true, values: ["a": 99], whole: true, revision: 1)])
            try directory.write("cache/prefs/snapshots/" + name, try foreign.encoded(written: PrefDate(secondsSinceReferenceDate: 0)))
            #expect(try read("a", SnapshotPolicy(maxStale: 60)).snapshot == nil)
        }
        etcd.set(AwayEtcd.away)
        try directory.write("cache/prefs/snapshots/" + name, Array("garbage".utf8))
        #expect(throws: PrefsError.self) { try read("a", SnapshotPolicy(fallback: true)) }
    }

    /// The store's name for snapshots is the same whatever order the URL gives the members in.
    @Test func oneStoreOneName() throws {
        func name(_ url: String) throws -> String? {
            try SuiteStore.selected(url: url, fileSystem: LocalFileSystem(), environment: environment).storage.snapshotName
        }
        #expect(try name("etcd://b:2,A:1/p") == "etcd://a:1,b:2/p")
        #expect(try name("etcd://a:1,b:2/p") == "etcd://a:1,b:2/p")
        #expect(try name("etcds://a:1,b:2/p") == "etcds://a:1,b:2/p")
        #expect(SuiteStore(fileSystem: LocalFileSystem(), environment: environment).storage.snapshotName == nil, "files keep none")
    }

    /// `gc` removes the snapshots no read confirmed for 30 days, what is no snapshot, and what a
    /// killed writer left older than the grace period; a dry run removes nothing.
    @Test func gcPrunesOldSnapshotsAndWhatIsNone() throws {
        try write(user, "a", "-int", "1")
        try write(user, "b", "-int", "1", in: .suite("old"))
        _ = try read("a")
        _ = try read("b", domain: .suite("old"))
        let names = snapshotFiles
        #expect(names.count == 2)
        let old = try #require(names.first { ReadSnapshot.decoded(Array(FileManager.default.contents(atPath: snapshots + "/" + $0)!))?.suite == "old" })
        let month = time(nil) - 31 * 86400
        var times = [timespec(tv_sec: month, tv_nsec: 0), timespec(tv_sec: month, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, snapshots + "/" + old, &times, 0) == 0)
        try directory.write("cache/prefs/snapshots/junk.plist", Array("junk".utf8))
        try directory.write("cache/prefs/snapshots/.tmp-new", [1])
        try directory.write("cache/prefs/snapshots/.tmp-old", [1])
        #expect(utimensat(AT_FDCWD, snapshots + "/.tmp-old", &times, 0) == 0)
        #expect(symlink("/etc/passwd", snapshots + "/link.plist") == 0)
        let expected = [PrunedSnapshot(store: nil, suite: nil, file: ".tmp-old", size: 1),
                        PrunedSnapshot(store: "etcd://memory:1/prefs", suite: "old", file: old, size: try #require(FileManager.default.contents(atPath: snapshots + "/" + old)).count),
                        PrunedSnapshot(store: nil, suite: nil, file: "junk.plist", size: 4)]
        let dry = try user.pruneSnapshots(grace: 3600, dryRun: true)
        #expect(dry.filter { $0.file != "link.plist" } == expected.sorted { $0.file < $1.file } && dry.contains { $0.file == "link.plist" })
        #expect(snapshotFiles.count == 6)
        #expect(try user.pruneSnapshots(grace: 3600, dryRun: false).count == 4)
        #expect(snapshotFiles == [".tmp-new", names.first { $0 != old }!])
        #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))
    }
}
