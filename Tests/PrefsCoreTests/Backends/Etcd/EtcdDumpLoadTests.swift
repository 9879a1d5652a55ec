import Testing
@testable import PrefsCore

/// `dump` and `load` against the etcd store (`InMemoryEtcd`): its suites, its global suite, its
/// registrations (`registeredNames`) and its external values in chunks go out and come back.
@Suite struct EtcdDumpLoadTests {
    static func store(_ etcd: InMemoryEtcd, files: InMemoryFileSystem = InMemoryFileSystem()) -> SuiteStore {
        let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "PREFS_LOCK_TIMEOUT": "1",
                                       "PREFS_EXTERNAL_THRESHOLD": "1K"])
        let storage = EtcdSuiteStorage(etcd: etcd, prefix: "prefs", name: "etcd://memory/prefs", environment: environment)
        return SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: files, environment: environment))
    }

    static func dump(_ store: SuiteStore) throws -> (bytes: [UInt8], summary: DumpSummary) {
        var bytes: [UInt8] = []
        let summary = try store.dump(registered: true) { bytes.append(contentsOf: $0) }
        return (bytes, summary)
    }

    @Test func everySuiteRegistrationAndExternalValueGoesOutAndComesBack() throws {
        let source = EtcdDumpLoadTests.store(InMemoryEtcd())
        let big = PrefValue.data((0..<2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        _ = try source.update(.suite("app")) { $0 = ["a": 1, "big": big, "text": .string(String(repeating: "é", count: 4000))] }
        _ = try source.update(.global) { $0["g"] = true }
        _ = try source.register(.document(["r": 2]), for: .suite("app"), replacing: false, dryRun: false)
        _ = try source.register(.document(["gr": "x"]), for: .global, replacing: false, dryRun: false)
        #expect(try source.storage.registeredNames().names == ["NSGlobalDomain", "app"])
        let (bytes, summary) = try EtcdDumpLoadTests.dump(source)
        #expect(summary.suites.map(\.displayName) == ["NSGlobalDomain (registered)", "app (registered)", "NSGlobalDomain", "app"])
        #expect(try PropertyList.decode(bytes).value == ["prefs-dump": 1, "registered": ["NSGlobalDomain": ["gr": "x"], "app": ["r": 2]],
                                                          "suites": ["NSGlobalDomain": ["g": true], "app": ["a": 1, "big": big, "text": .string(String(repeating: "é", count: 4000))]]])

        let files = InMemoryFileSystem()
        try files.write("/dump.json", bytes)
        let etcd = InMemoryEtcd()
        let target = EtcdDumpLoadTests.store(etcd, files: files)
        #expect(try target.load(from: "/dump.json", dryRun: true).changed)
        #expect(etcd.dump().isEmpty, "a dry run writes nothing")
        let report = try target.load(from: "/dump.json", dryRun: false)
        #expect(report.entries.count == 4 && report.firstFailure == nil)
        #expect(try EtcdDumpLoadTests.dump(target).bytes == bytes)
        #expect(try target.checkExternal(.suite("app")).problems.isEmpty)
        #expect(etcd.dump().contains { $0.key.hasPrefix("prefs/.chunks/app/big/") }, "the large value is in chunks")
        #expect(try !target.load(from: "/dump.json", dryRun: false).changed)
    }
}
