import Testing
@testable import PrefsCore

/// The capabilities of the store seam (`Backend+Capabilities.swift`): a backend that implements only
/// what every store must gets the documented "unsupported" answers, and the façade turns each into
/// the documented behaviour — values inline, no host, no watch (64), no empty suite made, no format
/// bound, no files — with nothing asking which store it holds.
@Suite struct BackendCapabilityTests {
    let storage = MinimalStorage()
    let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "XDG_CONFIG_DIRS": "/x"])
    var store: SuiteStore { SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: InMemoryFileSystem(), environment: environment)) }

    func write(_ words: String..., dryRun: Bool = false) throws -> ChangeOutcome {
        var options = WriteOptions()
        options.dryRun = dryRun
        return try store.write(try WriteRequest.parse(words[...], domain: "app"), to: .suite("app"), options: options)
    }

    @Test func whatAStoreDoesNotSayIsUnsupported() throws {
        #expect(!storage.isRemote && storage.holdsChangesByReading && !storage.keepsByHostSuites)
        #expect(storage.blobSuite(for: .suite("app")) == nil)
        #expect(try storage.blobStore() == nil)
        #expect(try storage.filePath(of: .suite("app")) == nil)
        #expect(storage.newDocumentFormat(for: .suite("app")) == nil)
        #expect(try storage.createEmpty(.suite("app")) == false)
        #expect(try storage.managedLocations(for: "app").isEmpty && !storage.holdsManagedValues, "no managed values of its own")
        #expect(throws: PrefsError.usage(SuiteStore.noByHostSuites)) { try storage.suiteNames(onHost: "h") }
        let batch = try storage.lookup("k", in: [.suite("app"), .global], loading: [.schema("app")])
        #expect(batch.found.map(\.exists) == [false, false] && batch.loaded.count == 1 && batch.loaded[0] == nil)
    }

    @Test func theFacadeGivesTheDocumentedAnswerForEach() throws {
        let store = store
        #expect(throws: PrefsError.usage(SuiteStore.noByHostSuites)) { try store.onHost("h") }
        #expect(try store.readingHost() == nil)
        let watch = #expect(throws: PrefsError.self) { try Layers(.suite("app"), in: store).watcher(keys: nil) }
        #expect(watch?.exitStatus == .usage && watch == .usage(SuiteStore.notWatchable(.suite("app"))))
        // No file: two suites are one only when they are the same location; no layer has a path.
        #expect(store.same(.suite("app"), .suite("app")) && !store.same(.suite("app"), .suite("other")))
        // No layer of the store has a path: only the files every store reads, the packages'
        // registered defaults (the core adds them below the store's own) and the machine's
        // managed files.
        #expect(try Layers(.suite("app"), in: store).paths() == ["/p/prefs/defaults/app.plist", "/p/prefs/defaults/app.json",
                                                                 "/x/prefs/managed/app.plist", "/x/prefs/managed/app.json",
                                                                 "/x/prefs/managed/.GlobalPreferences.plist", "/x/prefs/managed/.GlobalPreferences.json"])
        // No empty suite is made (a file store makes the file), and nothing changed.
        #expect(try write("{}").changed == false)
        #expect(try storage.load(.suite("app")) == nil)
    }

    @Test func valuesStayInlineAndNoFormatBoundsThem() throws {
        let large = String(repeating: "x", count: 300_000)
        #expect(try write("big", large).changed)
        #expect(try storage.load(.suite("app"))?.contents["big"] == .string(large), "no blob store: inline")
        // A date, which an OpenStep or JSON file could not hold, previews and writes: no format.
        #expect(try write("when", "-date", "2026-01-02T03:04:05Z", dryRun: true).report?.count == 1)
        #expect(try write("when", "-date", "2026-01-02T03:04:05Z").changed)
    }

    @Test func aSchemaIsReadAsTheStoreLoadsIt() throws {
        storage.put(["keys": ["n": ["type": "integer", "default": 5]]], at: .schema("app"))
        let read = try store.value(at: PrefKeyPath(["n"]), in: .suite("app"), scope: ReadScope())
        #expect(read.value == 5 && read.origin == .schema("minimal:schema(\"app\")"))
        #expect(throws: PrefsError.self) { try write("n", "-string", "five") }
    }

    /// The etcd store watches only where its etcd can (`EtcdKV.canWatch`): the in-memory fake cannot,
    /// and an application observing a suite there is refused as `prefs watch` is, by every
    /// observation (the store's files being in memory makes no poll of it).
    @Test func anEtcdWithoutAWatchCannotBeWatched() async throws {
        let etcd = EtcdSuiteStorage(etcd: InMemoryEtcd(), prefix: "p", name: "etcd://memory/p", environment: environment)
        let store = SuiteStore(storage: etcd, files: FileSuiteStorage(fileSystem: InMemoryFileSystem(), environment: environment))
        #expect(etcd.isRemote && !etcd.holdsChangesByReading && !etcd.keepsByHostSuites)
        let refusal = PrefsError.usage(SuiteStore.notWatchable(.suite("app")))
        #expect(throws: refusal) { try Layers(.suite("app"), in: store).watcher(keys: nil) }
        let suite = Prefs.Suite("app", store: store)
        // `started()` returns once a watch is in place: here it never is.
        await #expect(throws: refusal) { _ = try await suite.changes().started() }
        await #expect(throws: refusal) { _ = try await suite.values(of: Prefs.Key<Int>("n", default: 0)).started() }
        await #expect(throws: refusal) { _ = try await suite.values(of: Prefs.Key<Int>("n", default: 0), Prefs.Key<Int>("m", default: 0)).started() }
    }

    /// Store URLs go through one table of schemes (`StoreScheme.all`): a scheme no row claims is a
    /// usage error naming the URL and every form; without a URL, suites are files.
    @Test func aStoreURLIsOpenedByTheRowOfItsScheme() throws {
        #expect(try StoreScheme.row(for: "ETCDS://h:1/p").name == "etcd")
        #expect(throws: PrefsError.usage("bad etcd URL 'http://h:1': expected " + EtcdClient.urlForm)) { try StoreScheme.row(for: "http://h:1") }
        let files = try SuiteStore.selected(url: nil, fileSystem: InMemoryFileSystem(), environment: environment)
        #expect(try files.storage.filePath(of: .suite("app")) == "/c/app.plist")
        let etcd = try SuiteStore.selected(url: "etcd://127.0.0.1:9/p", fileSystem: InMemoryFileSystem(), environment: environment)
        #expect(etcd.storage.isRemote && etcd.describe(.suite("app")) == "etcd://127.0.0.1:9/p/app")
        let bad = Environment(["PREFS_STORE": "ftp://h"])
        #expect(throws: PrefsError.badEnvironment(name: "PREFS_STORE", value: "ftp://h",
                                                  accepted: "\(EtcdClient.urlForm) (bad etcd URL 'ftp://h': expected \(EtcdClient.urlForm))")) {
            try SuiteStore.selected(url: nil, fileSystem: InMemoryFileSystem(), environment: bad)
        }
    }
}
