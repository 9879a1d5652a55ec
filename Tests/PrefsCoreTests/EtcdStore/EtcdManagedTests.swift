import Testing
@testable import PrefsCore

/// A fleet's managed values on etcd (`InMemoryEtcd`): the suites of the store at `PREFIX/.managed`,
/// over every user's values, and no change of a user touches them.
@Suite struct EtcdManagedTests {
    let etcd = InMemoryEtcd()
    let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "XDG_CONFIG_DIRS": "/x",
                                   "PREFS_LOCK_TIMEOUT": "1"])

    func store(_ prefix: String) -> SuiteStore {
        let storage = EtcdSuiteStorage(etcd: etcd, prefix: prefix, name: "etcd://memory/" + prefix, environment: environment)
        return SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: InMemoryFileSystem(), environment: environment))
    }

    @Test func managedValuesWinAndNoChangeTouchesThem() throws {
        let user = store("prefs"), admin = store("prefs/.managed")
        try user.update(.suite("app")) { $0["locked"] = "user"; $0["mine"] = 1 }
        try admin.update(.suite("app")) { $0["locked"] = "policy" }
        try admin.update(.global) { $0["g"] = true }
        #expect(etcd.dump().map(\.key).contains("prefs/.managed/app/locked"))
        let found = try user.value(at: KeyPath(["locked"]), in: .suite("app"), scope: ReadScope())
        #expect(found.value == "policy" && found.origin == .managed("etcd://memory/prefs/.managed/app"))
        #expect(try user.value(at: KeyPath(["g"]), in: .global, scope: ReadScope()).origin == .managed("etcd://memory/prefs/.managed/.GlobalPreferences"))
        let refused = PrefsError.managedKey(domain: "app", key: "locked", source: "etcd://memory/prefs/.managed/app")
        #expect(throws: refused) { try user.update(.suite("app"), keys: ["locked"]) { $0["locked"] = "x" } }
        #expect(throws: refused) { try user.delete(KeyPath(["locked"]), in: .suite("app"), dryRun: false) }
        #expect(throws: refused) { try user.reset([], in: .suite("app"), dryRun: true) }
        #expect(throws: refused) { try user.rename(KeyPath(["mine"]), to: KeyPath(["locked"]), in: .suite("app"), dryRun: false) }
        #expect(try user.load(.suite("app"))?.contents == ["locked": "user", "mine": 1])
        #expect(try user.update(.suite("app"), keys: ["mine"]) { $0["mine"] = 2 })
    }
}
