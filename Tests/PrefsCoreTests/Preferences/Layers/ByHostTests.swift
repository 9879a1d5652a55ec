import Foundation
import Testing
@testable import PrefsCore

/// ByHost suites (`-currentHost`, `-host NAME`): where they are, what a host-scoped store changes and
/// lists, and the search list reads follow — the suite for this host, the suite, the global suite
/// for this host, the global suite, registered defaults.
@Suite struct ByHostTests {
    /// A store whose machine ID file is `root/machine-id`, and whose environment has `extra`.
    static func store(_ fixture: StoreFixture, _ extra: [String: String] = [:]) -> SuiteStore {
        var environment = Environment([
            "XDG_CONFIG_HOME": fixture.config, "XDG_DATA_HOME": fixture.root + "/data", "XDG_DATA_DIRS": fixture.root + "/pkg",
            "XDG_CONFIG_DIRS": fixture.root + "/xdg",
            "PREFS_LOCK_TIMEOUT": "0.2", "PREFS_EXTERNAL_THRESHOLD": "0",
        ].merging(extra) { $1 })
        environment.machineIDFile = fixture.root + "/machine-id"
        return SuiteStore(fileSystem: fixture.fileSystem, environment: environment)
    }

    static func xml(_ contents: PrefDictionary) throws -> [UInt8] { try PropertyList.encode(.dictionary(contents), as: .xml) }

    @Test(arguments: FileSystemKind.allCases)
    func aHostScopedStoreKeepsSuitesUnderByHost(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        let store = try ByHostTests.store(fixture).onHost("H1")
        #expect(try store.update(.suite("app")) { $0["big"] = .string(String(repeating: "x", count: 100)) })
        #expect(try store.update(.global) { $0["g"] = 1 })
        #expect(try fixture.names("config") == ["ByHost"])
        #expect(try fixture.names("config/ByHost") == [".GlobalPreferences.H1.plist", "app.H1.plist"])
        #expect(try fixture.status("config/ByHost")?.mode == 0o700)
        // Values of ByHost suites stay inline, whatever their size (the threshold here is 0).
        #expect(try PropertyList.decode(try fixture.bytes("config/ByHost/app.H1.plist")).value == ["big": .string(String(repeating: "x", count: 100))])
        #expect(try store.suiteNames().names == ["app"])
        #expect(try ByHostTests.store(fixture).suiteNames().names == [])
        #expect(try ByHostTests.store(fixture).onHost("H2").suiteNames().names == [])
        #expect(try store.value(at: PrefKeyPath(["g"]), in: .global, scope: ReadScope(storedOnly: true)).value == 1)
        #expect(try store.delete(nil, in: .suite("app"), dryRun: false).changed)
        #expect(try fixture.names("config/ByHost") == [".GlobalPreferences.H1.plist"])
    }

    /// Every subset of the four stored layers holding the key, for a suite read on host H: the
    /// highest present answers and is named.
    @Test(arguments: FileSystemKind.allCases)
    func readsSearchTheHostsSuiteTheSuiteTheHostsGlobalSuiteAndTheGlobalSuite(kind: FileSystemKind) throws {
        let order = [("config/ByHost/app.H.plist", "byhost"), ("config/app.plist", "stored"),
                     ("config/ByHost/.GlobalPreferences.H.plist", "global-byhost"), ("config/.GlobalPreferences.plist", "global"),
                     ("data/prefs/defaults/app.plist", "registered:ROOT/data/prefs/defaults/app.plist")]
        for subset in 1..<(1 << order.count) {
            let fixture = try StoreFixture(kind)
            for (i, (file, _)) in order.enumerated() where subset & (1 << i) != 0 { try fixture.put(file, try ByHostTests.xml(["k": .string(file)])) }
            for store in [ByHostTests.store(fixture, ["PREFS_HOST_ID": "H"]), try ByHostTests.store(fixture).onHost("H")] {
                let highest = order.indices.first { subset & (1 << $0) != 0 }!
                let found = try store.value(at: PrefKeyPath(["k"]), in: .suite("app"), scope: ReadScope())
                #expect(found.value == .string(order[highest].0), "subset \(subset)")
                #expect(found.origin.description == order[highest].1.replacingOccurrences(of: "ROOT", with: fixture.root))
                // The global suite alone does not make the suite exist (its values still answer).
                let establishing = subset & 0b10011 != 0
                let resolved = try store.layers(of: .suite("app"), scope: ReadScope()).resolved(evenIfMissing: !establishing)
                #expect(resolved.values == ["k": .string(order[highest].0)] && resolved.origins == [found.origin])
                if !establishing {
                    #expect(throws: PrefsError.suiteNotFound(domain: "app")) { try store.contents(of: .suite("app"), scope: ReadScope()) }
                }
            }
        }
    }

    @Test(arguments: FileSystemKind.allCases)
    func theGlobalSuiteReadsItsHostsSuiteFirst(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("config/.GlobalPreferences.plist", try ByHostTests.xml(["a": 1, "b": 1]))
        try fixture.put("config/ByHost/.GlobalPreferences.H.plist", try ByHostTests.xml(["a": 2]))
        let resolved = try ByHostTests.store(fixture, ["PREFS_HOST_ID": "H"]).contents(of: .global, scope: ReadScope())
        #expect(resolved.values == ["a": 2, "b": 1])
        #expect(resolved.origins.map(\.description) == ["byhost", "stored"])
    }

    /// `--stored` reads the domain's own file: the ByHost suite on a host, the suite otherwise.
    @Test(arguments: FileSystemKind.allCases)
    func storedOnlyReadsTheDomainsOwnFile(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("config/app.plist", try ByHostTests.xml(["k": "any"]))
        try fixture.put("config/ByHost/app.H.plist", try ByHostTests.xml(["k": "host"]))
        let anyHost = ByHostTests.store(fixture, ["PREFS_HOST_ID": "H"])
        #expect(try anyHost.value(at: PrefKeyPath(["k"]), in: .suite("app"), scope: ReadScope(storedOnly: true)) == ("any", .stored))
        let onHost = try anyHost.onHost("H")
        #expect(try onHost.value(at: PrefKeyPath(["k"]), in: .suite("app"), scope: ReadScope(storedOnly: true)) == ("host", .byHost))
        #expect(throws: PrefsError.keyNotFound(domain: "app", key: "j")) {
            try onHost.value(at: PrefKeyPath(["j"]), in: .suite("app"), scope: ReadScope(storedOnly: true))
        }
        #expect(throws: PrefsError.suiteNotFound(domain: "app")) {
            try anyHost.onHost("other").value(at: PrefKeyPath(["k"]), in: .suite("app"), scope: ReadScope(storedOnly: true))
        }
    }

    /// This machine is `$PREFS_HOST_ID`, else the contents of the machine ID file; none without
    /// either (and then reads have no host layers).
    @Test(arguments: FileSystemKind.allCases)
    func theHostIDComesFromTheEnvironmentOrTheMachineIDFile(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        let store = ByHostTests.store(fixture)
        #expect(try store.readingHost() == nil)
        try fixture.put("machine-id", Array("\n".utf8))
        #expect(try store.readingHost() == nil)
        try fixture.put("machine-id", Array("uninitialized\n".utf8))
        #expect(try store.readingHost() == nil)
        try fixture.put("machine-id", Array("3d1219c7c4c5404aaa1f6d2a48adfda4\n".utf8))
        #expect(try store.readingHost() == "3d1219c7c4c5404aaa1f6d2a48adfda4")
        #expect(try ByHostTests.store(fixture, ["PREFS_HOST_ID": "mac-1.local"]).readingHost() == "mac-1.local")
        #expect(try store.onHost("named").readingHost() == "named")
        try fixture.put("machine-id", Array("not/an id\n".utf8))
        #expect(throws: PrefsError.self) { try store.readingHost() }
        #expect(throws: PrefsError.self) { try store.value(at: PrefKeyPath(["k"]), in: .suite("app"), scope: ReadScope()) }
    }

    @Test(arguments: ["", ".hidden", "a/b", "a b", "..", String(repeating: "h", count: 201), "ü"])
    func aHostIDThatCannotBeAFileNameIsRefused(id: String) throws {
        let fixture = try StoreFixture(.memory)
        #expect(throws: PrefsError.self) { try ByHostTests.store(fixture).onHost(id) }
        if !id.isEmpty {
            #expect(throws: PrefsError.badEnvironment(name: "PREFS_HOST_ID", value: id, accepted: Environment.hostIDRule)) {
                try ByHostTests.store(fixture, ["PREFS_HOST_ID": id]).readingHost()
            }
        }
    }

    /// A store that keeps no ByHost suites (etcd) refuses a host with a usage error (64), and its
    /// reads have no host layers; the etcd store refuses a ByHost location however it is asked,
    /// and writes nothing to etcd.
    @Test func aStoreWithoutByHostSuitesRefusesAHost() throws {
        let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "PREFS_HOST_ID": "H"])
        let etcd = InMemoryEtcd()
        let storage = EtcdSuiteStorage(etcd: etcd, prefix: "prefs", name: "etcd://memory/prefs", environment: environment)
        let store = SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: InMemoryFileSystem(), environment: environment))
        let refusal = PrefsError.usage(SuiteStore.noByHostSuites)
        #expect(refusal.exitStatus == .usage)
        #expect(throws: refusal) { try store.onHost("H") }
        #expect(try store.readingHost() == nil)
        for location in [SuiteLocation.byHost(suite: "app", host: "H"), .byHost(suite: nil, host: "H")] {
            #expect(throws: refusal) { try storage.load(location) }
            #expect(throws: refusal) { try storage.lookup("k", in: location) }
            #expect(throws: refusal) { try storage.remove(location) }
            #expect(throws: refusal) { try storage.withChangesHeld(location, creating: true) {} }
            #expect(throws: refusal) {
                try storage.modify(location, scope: nil, removingEmpty: false, StoredChange(apply: { contents, _ in contents["k"] = 1 }, probe: { _ in }))
            }
        }
        #expect(throws: refusal) { try storage.suiteNames(onHost: "H") }
        #expect(try etcd.range(Array("prefs".utf8), rangeEnd: EtcdClient.prefixEnd(Array("prefs".utf8)), keysOnly: true).kvs.isEmpty)
        try store.update(.suite("app")) { $0["k"] = 1 }
        #expect(try store.contents(of: .suite("app"), scope: ReadScope()).origins == [.stored])
    }
}
