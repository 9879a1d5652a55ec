import Testing
@testable import PrefsCore

/// A fleet's managed values on etcd (`InMemoryEtcd`): the administrator writes them through the
/// store at `PREFIX/.managed`, which keeps them at `PREFIX/.managed/NAME/KEY` with their markers
/// beside the users' (`PREFIX/.suites/.managed/NAME`); a user's one-key read takes them with the
/// rest of the suite in one request, and a change of a user reads them with the suite's schema in
/// one request.
@Suite struct EtcdManagedTests {
    let etcd = InMemoryEtcd()
    let fileSystem = InMemoryFileSystem()
    let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "XDG_CONFIG_DIRS": "/x",
                                   "PREFS_LOCK_TIMEOUT": "1"])

    var user: SuiteStore {
        let storage = EtcdSuiteStorage(etcd: etcd, prefix: "prefs", name: "etcd://memory/prefs", environment: environment)
        return SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: fileSystem, environment: environment))
    }

    var administrator: SuiteStore {
        let storage = EtcdSuiteStorage(etcd: etcd, managedValuesOf: "prefs", name: "etcd://memory/prefs/.managed", environment: environment)
        return SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: fileSystem, environment: environment))
    }

    func write(_ store: SuiteStore, _ words: String..., dryRun: Bool = false) throws -> ChangeOutcome {
        try write(store, in: .suite("app"), words, dryRun: dryRun)
    }

    func write(_ store: SuiteStore, in domain: Domain, _ words: [String], dryRun: Bool = false) throws -> ChangeOutcome {
        var options = WriteOptions()
        options.dryRun = dryRun
        return try store.write(try WriteRequest.parse(words[...], domain: domain.displayName), to: domain, options: options)
    }

    var keys: [String] { etcd.dump().map(\.key) }

    @Test func theAdministratorsStoreWritesWhereUsersRead() throws {
        #expect(try write(administrator, "locked", "policy").changed)
        #expect(try write(administrator, in: .global, ["g", "-bool", "true"]).changed)
        #expect(keys == ["prefs/.managed/.GlobalPreferences/g", "prefs/.managed/.history/.GlobalPreferences/00000000000000000001",
                         "prefs/.managed/.history/app/00000000000000000001", "prefs/.managed/app/locked",
                         "prefs/.suites/.managed/.GlobalPreferences", "prefs/.suites/.managed/app"])
        #expect(try administrator.suiteNames().names == ["app"])
        #expect(administrator.describe(.suite("app")) == "etcd://memory/prefs/.managed/app")
        #expect(try user.suiteNames().names.isEmpty, "the managed values are no suite of the user's")
        let read = try user.value(at: PrefKeyPath(["locked"]), in: .suite("app"), scope: ReadScope())
        #expect(read.value == "policy" && read.origin == .managed("etcd://memory/prefs/.managed/app"))
        // No registered defaults or schema of its own; large values stay inline.
        let refused = PrefsError.usage(EtcdSuiteStorage.onlyManagedValues("etcd://memory/prefs/.managed"))
        #expect(throws: refused) { try administrator.register(.document(["k": 1]), for: .suite("app"), replacing: false, dryRun: false) }
        #expect(try write(administrator, "big", String(repeating: "x", count: 300_000)).changed)
        #expect(!keys.contains { $0.contains(".external") || $0.contains(".chunks") })
        #expect(try user.value(at: PrefKeyPath(["big"]), in: .suite("app"), scope: ReadScope()).value == .string(String(repeating: "x", count: 300_000)))
    }

    /// Every layer answers a one-key read in one request, the fleet's managed values among them.
    @Test func aOneKeyReadIsOneRequestWithEveryLayer() throws {
        try fileSystem.write("/x/prefs/managed/app.plist", try PropertyList.encode(["machine": "file"], as: .xml))
        try fileSystem.write("/tmp/s.json", Array(#"{"keys": {"n": {"type": "integer", "default": 5}}}"#.utf8))
        _ = try user.installSchema(from: "/tmp/s.json", for: .suite("app"), dryRun: false)
        _ = try user.register(.document(["r": "registered"]), for: .suite("app"), replacing: false, dryRun: false)
        _ = try write(user, "mine", "stored", "locked", "user")
        _ = try write(user, in: .global, ["g", "global"])
        _ = try write(administrator, "locked", "policy")
        _ = try write(administrator, in: .global, ["fleetwide", "policy"])
        let answers: [(String, PrefValue, Origin)] = [
            ("machine", "file", .managed("/x/prefs/managed/app.plist")),
            ("locked", "policy", .managed("etcd://memory/prefs/.managed/app")),
            ("fleetwide", "policy", .managed("etcd://memory/prefs/.managed/.GlobalPreferences")),
            ("mine", "stored", .stored), ("g", "global", .global),
            ("r", "registered", .registered("etcd://memory/prefs/.registered/app")), ("n", 5, .schema("etcd://memory/prefs/.schemas/app")),
        ]
        for (key, value, origin) in answers {
            let before = etcd.requests
            let read = try user.read(PrefKeyPath([key]), in: .suite("app"), scope: ReadScope(), streaming: true)
            guard case .value(let found, let from) = read else { throw TestFailure("\(read)") }
            #expect(found == value && from == origin, "\(key)")
            #expect(etcd.requests - before == 1, "\(key): \(etcd.requests - before) requests")
        }
        #expect(try user.value(at: PrefKeyPath(["locked"]), in: .suite("app"), scope: ReadScope(storedOnly: true)).value == "user")
    }

    /// A change reads the suite's schema and the managed values that bind it in one request, then
    /// changes as it did without them; a refused one sends nothing more.
    @Test func aChangeReadsItsSchemaAndManagedValuesTogether() throws {
        _ = try write(user, "mine", "1")
        let plain = etcd.requests
        _ = try write(user, "mine", "2")
        let withoutManaged = etcd.requests - plain
        _ = try write(administrator, "locked", "policy")
        _ = try write(administrator, in: .global, ["fleetwide", "policy"])
        let before = etcd.requests
        #expect(try write(user, "mine", "3").changed)
        #expect(etcd.requests - before == withoutManaged && withoutManaged == 3, "the schema and managed values, the key, the transaction")
        let refusal = etcd.requests
        #expect(throws: PrefsError.managedKey(domain: "app", key: "locked", source: "etcd://memory/prefs/.managed/app")) { try write(user, "locked", "x") }
        #expect(throws: PrefsError.managedKey(domain: "other", key: "fleetwide", source: "etcd://memory/prefs/.managed/.GlobalPreferences")) {
            try write(user, in: .suite("other"), ["fleetwide", "x"])
        }
        #expect(throws: PrefsError.managedKey(domain: "app", key: "locked", source: "etcd://memory/prefs/.managed/app")) {
            try write(user, "locked", "x", dryRun: true)
        }
        #expect(etcd.requests - refusal == 3, "one request each, nothing sent after it")
        #expect(try user.load(.suite("app"))?.contents == ["mine": "3"])
    }

    /// A managed value that is no binary property list fails a read of it and every change of the
    /// suite (65): a policy is never skipped. A one-key read of another key reads that key alone.
    @Test func aMalformedManagedValueIsADataError() throws {
        _ = try write(user, "mine", "1")
        _ = try write(administrator, "locked", "policy")
        etcd.put("prefs/.managed/app/locked", Array("bplist00 cut short".utf8))
        let names = { (error: PrefsError) -> Bool in error.exitStatus == .dataError && "\(error)".contains("prefs/.managed/app") }
        for attempt: () throws -> Void in [
            { _ = try user.value(at: PrefKeyPath(["locked"]), in: .suite("app"), scope: ReadScope()) },
            { _ = try user.contents(of: .suite("app"), scope: ReadScope()) },
            { _ = try write(user, "mine", "2") },
            { _ = try write(user, "mine", "2", dryRun: true) },
            { _ = try user.delete(PrefKeyPath(["mine"]), in: .suite("app"), dryRun: false) },
        ] {
            let error = #expect(throws: PrefsError.self) { try attempt() }
            #expect(error.map(names) == true, "\(String(describing: error))")
        }
        #expect(try user.value(at: PrefKeyPath(["mine"]), in: .suite("app"), scope: ReadScope()).value == "1")
        #expect(try user.load(.suite("app"))?.contents == ["mine": "1"])
    }

    /// Managed values the administrator replaced in a large change (another generation) read the
    /// same: the first request finds the marker naming it, a second reads it at the same revision.
    @Test func managedValuesInAnotherGenerationReadTheSame() throws {
        let many = PrefDictionary((0..<300).map { ("k\($0)", PrefValue.string("policy \($0)")) })
        #expect(try administrator.update(.suite("app")) { $0 = many })
        #expect(keys.contains("prefs/.managed/app/.1/k7"))
        let before = etcd.requests
        #expect(try user.value(at: PrefKeyPath(["k7"]), in: .suite("app"), scope: ReadScope()) == ("policy 7", .managed("etcd://memory/prefs/.managed/app")))
        #expect(etcd.requests - before == 2)
        #expect(throws: PrefsError.managedKey(domain: "app", key: "k299", source: "etcd://memory/prefs/.managed/app")) { try write(user, "k299", "x") }
    }
}
