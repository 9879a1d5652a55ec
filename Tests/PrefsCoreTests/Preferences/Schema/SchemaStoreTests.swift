import Testing
@testable import PrefsCore

/// Schemas through the store seam: on the etcd store (`InMemoryEtcd`) the user's schema is kept
/// under the prefix and checked by the same code as on files; a package's schema file is found on
/// both; and the file store keeps the user's under `$XDG_DATA_HOME/prefs/schemas`.
@Suite struct SchemaStoreTests {
    static let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "PREFS_LOCK_TIMEOUT": "1"])
    static let schema = Array(#"{"allowUndeclaredKeys": false, "keys": {"n": {"type": "integer", "min": 1, "max": 9, "default": 5}}}"#.utf8)

    let etcd = InMemoryEtcd()
    let fileSystem = InMemoryFileSystem()

    var etcdStore: SuiteStore {
        let storage = EtcdSuiteStorage(etcd: etcd, prefix: "prefs", name: "etcd://memory/prefs", environment: SchemaStoreTests.environment)
        return SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: fileSystem, environment: SchemaStoreTests.environment))
    }

    var fileStore: SuiteStore { SuiteStore(fileSystem: fileSystem, environment: SchemaStoreTests.environment) }

    func write(_ store: SuiteStore, _ words: String...) throws -> ChangeOutcome {
        try store.write(try WriteRequest.parse(words[...], domain: "app"), to: .suite("app"), options: WriteOptions())
    }

    static func violation(_ key: String, _ reason: String, schema: String) -> PrefsError {
        .schemaViolation(domain: "app", key: key, reason: reason, schema: schema)
    }

    @Test(arguments: ["etcd", "files"])
    func theUsersSchemaIsInstalledInTheStoreAndChecksEveryChange(kind: String) throws {
        let store = kind == "etcd" ? etcdStore : fileStore
        try fileSystem.write("/tmp/s.json", SchemaStoreTests.schema)
        #expect(try store.installSchema(from: "/tmp/s.json", for: .suite("app"), dryRun: false).changed)
        let source = kind == "etcd" ? "etcd://memory/prefs/.schemas/app" : "/d/prefs/schemas/app.plist"
        if kind == "etcd" {
            #expect(etcd.dump().map(\.key) == ["prefs/.schemas/app/allowUndeclaredKeys", "prefs/.schemas/app/keys", "prefs/.suites/.schemas/app"])
            #expect(try store.suiteNames().names.isEmpty, "a schema is not a suite")
        } else {
            #expect(try fileSystem.status(of: source) != nil)
        }
        #expect(try store.value(at: PrefKeyPath(["n"]), in: .suite("app"), scope: ReadScope()) == (5, .schema(source)))
        #expect(try write(store, "n", "7").changed)
        #expect(try store.load(.suite("app"))?.contents == ["n": 7], "typed as the schema's integer")
        #expect(throws: SchemaStoreTests.violation("n", "expected an integer from 1 to 9, not 10", schema: source)) { try write(store, "n", "-int-add", "3") }
        #expect(throws: SchemaStoreTests.violation("allowUndeclaredKeys", "not a key the schema declares, and it allows no others", schema: source)) {
            try store.importDocument(from: "/tmp/s.json", format: nil, into: .suite("app"), mode: .merge, dryRun: false)
        }
        #expect(throws: PrefsError.self) { try store.register(.document(["n": 0]), for: .suite("app"), replacing: false, dryRun: false) }
        #expect(try store.load(.suite("app"))?.contents == ["n": 7])
        #expect(try store.load(at: .registered("app")) == nil)
        var unchecked = store
        unchecked.schemaChoice = .none
        #expect(try write(unchecked, "n", "-int", "10").changed)
        #expect(try store.schemaProblems(.suite("app"))?.problems == ["n: expected an integer from 1 to 9, not 10"])
        // Removing is never refused, even when what is left still breaks the schema.
        #expect(try store.delete(PrefKeyPath(["n"]), in: .suite("app"), dryRun: false).changed)
    }

    /// A one-key read on etcd is one request: the suite, the global suite, the registered defaults
    /// and the schema read together — whether the value comes from the suite or the schema.
    @Test func aReadOnEtcdIsOneRequest() throws {
        let store = etcdStore
        try fileSystem.write("/tmp/s.json", SchemaStoreTests.schema)
        _ = try store.installSchema(from: "/tmp/s.json", for: .suite("app"), dryRun: false)
        var unchecked = store
        unchecked.schemaChoice = .none
        _ = try write(unchecked, "m", "-int", "3")
        for (key, answer) in [("n", (PrefValue.integer(5), Origin.schema("etcd://memory/prefs/.schemas/app"))), ("m", (3, .stored))] {
            let before = etcd.requests
            let read = try store.read(PrefKeyPath([key]), in: .suite("app"), scope: ReadScope(), streaming: true)
            guard case .value(let value, let origin) = read else { throw TestFailure("\(read)") }
            #expect(value == answer.0 && origin == answer.1)
            #expect(etcd.requests - before == 1, "\(key): \(etcd.requests - before) requests")
        }
    }

    /// A package's schema file under `$XDG_DATA_DIRS` is used until the user installs one.
    @Test(arguments: ["etcd", "files"])
    func aShippedSchemaIsOverriddenByTheUsers(kind: String) throws {
        let store = kind == "etcd" ? etcdStore : fileStore
        try fileSystem.write("/p/prefs/schemas/app.json", Array(#"{"keys": {"n": {"type": "integer", "max": 100, "default": 50}}}"#.utf8))
        #expect(try store.value(at: PrefKeyPath(["n"]), in: .suite("app"), scope: ReadScope()) == (50, .schema("/p/prefs/schemas/app.json")))
        #expect(throws: PrefsError.self) { try write(store, "n", "-int", "200") }
        #expect(try write(store, "n", "-int", "60").changed)
        try fileSystem.write("/tmp/s.json", SchemaStoreTests.schema)
        _ = try store.installSchema(from: "/tmp/s.json", for: .suite("app"), dryRun: false)
        #expect(try store.schema(named: "app")?.schema.key("n")?.maximum == 9)
        #expect(try !write(store, "n", "-int", "60").changed, "a value left as it was is not checked")
        #expect(throws: PrefsError.self) { try write(store, "n", "-int", "61") }
        #expect(try store.schemaProblems(.suite("app"))?.problems.count == 1)
    }

    /// A malformed schema installs nothing, in either store.
    @Test(arguments: ["etcd", "files"])
    func aMalformedSchemaInstallsNothing(kind: String) throws {
        let store = kind == "etcd" ? etcdStore : fileStore
        try fileSystem.write("/tmp/bad.json", Array(#"{"keys": {"n": {"type": "integer", "max": 1, "default": 2}}}"#.utf8))
        #expect(throws: PrefsError.self) { try store.installSchema(from: "/tmp/bad.json", for: .suite("app"), dryRun: false) }
        #expect(etcd.dump().isEmpty)
        #expect(try fileSystem.status(of: "/d/prefs/schemas") == nil)
        #expect(try store.schema(named: "app") == nil)
    }
}
