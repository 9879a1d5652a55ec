import Foundation
import Testing
@testable import PrefsCore

/// A suite's keys and values listed as a read sees them, without the write lock; and the defaults
/// registered in code shared by the suite's copies.
@Suite struct SuiteListingTests {
    /// Listed inside `update`, which holds the suite's lock (a second lock on the file would wait
    /// 0.2 s, the fixture's PREFS_LOCK_TIMEOUT, and fail): every layer, the defaults registered in
    /// code, and an external value read whole.
    @Test func keysAndValuesAreListedWithoutTheLock() throws {
        let fixture = try LayerFixture(.disk)
        let suite = Prefs.Suite("com.example.app", store: SuiteStore(fileSystem: fixture.fixture.fileSystem, environment: fixture.store.environment,
                                                                     options: StoreOptions(externalThreshold: 64, lockTimeout: 0.2)))
        try fixture.put("config/.GlobalPreferences.plist", ["AppleLocale": "en_GB"])
        try fixture.put("data/prefs/defaults/com.example.app.plist", ["retries": 9, "theme": "light"])
        suite.register(defaults: ["timeout": 30])
        try suite.set(.theme, .dark)
        try suite.set(.hosts, Array(repeating: "host.example", count: 20))
        var listed: ([String], PrefDictionary)?
        try suite.update { _ in listed = (try suite.keys(), try suite.dictionaryRepresentation()) }
        let (keys, values) = try #require(listed)
        #expect(keys == ["AppleLocale", "hosts", "retries", "theme", "timeout"])
        #expect(values == ["AppleLocale": "en_GB", "hosts": .array(Array(repeating: "host.example", count: 20)), "retries": 9,
                           "theme": "dark", "timeout": 30])
    }

    /// A copy made before `register(defaults:)`, and the caching copy, see what it registers; a
    /// suite made apart does not.
    @Test func copiesShareTheDefaultsRegisteredInCode() throws {
        let suite = Prefs.Suite.inMemory("com.example.app")
        let before = suite, cached = suite.cachingReads()
        suite.register(defaults: ["retries": 7])
        try before.register(.theme, .dark)
        #expect(try before[.retries] == 7 && cached[.retries] == 7 && suite[.theme] == .dark)
        #expect(try Prefs.Suite("com.example.app", store: suite.store)[.retries] == 3)
    }
}
