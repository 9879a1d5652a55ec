import Foundation
import Testing
@testable import PrefsCore

/// A store with a configuration directory, a data home and two package data directories.
final class LayerFixture {
    let fixture: StoreFixture
    var root: String { fixture.root }

    init(_ kind: FileSystemKind) throws { fixture = try StoreFixture(kind) }

    var store: SuiteStore {
        SuiteStore(fileSystem: fixture.fileSystem, environment: Environment([
            "XDG_CONFIG_HOME": root + "/config", "XDG_DATA_HOME": root + "/data",
            "XDG_DATA_DIRS": root + "/pkg1/:" + root + "/pkg2", "PREFS_LOCK_TIMEOUT": "0.2",
            "XDG_CONFIG_DIRS": root + "/xdg1:" + root + "/xdg2",
        ]))
    }

    /// Writes `contents` as XML (or JSON for a `.json` path) at `relative`.
    func put(_ relative: String, _ contents: PrefDictionary) throws {
        try fixture.put(relative, try PropertyList.encode(.dictionary(contents), as: relative.hasSuffix(".json") ? .json : .xml))
    }

    func layers(_ domain: Domain = .suite("app"), defaults: [String] = [], storedOnly: Bool = false) throws -> Layers {
        try Layers(domain, in: store, defaults: defaults.map { root + "/" + $0 }, storedOnly: storedOnly)
    }

    func origin(of key: String, _ layers: Layers) throws -> String? {
        try layers.value(at: PrefKeyPath([key])).map { "\($0.origin)" }
    }
}

@Suite struct LayersTests {
    /// Every layer, highest first, as the relative file that holds it and the origin `read` shows.
    static let order: [(file: String, origin: String)] = [
        ("config/app.plist", "stored"),
        ("config/.GlobalPreferences.plist", "global"),
        ("cli2.plist", "command-line"),
        ("cli1.json", "command-line"),
        ("data/prefs/defaults/app.plist", "registered:ROOT/data/prefs/defaults/app.plist"),
        ("data/prefs/defaults/app.json", "registered:ROOT/data/prefs/defaults/app.json"),
        ("pkg1/prefs/defaults/app.plist", "registered:ROOT/pkg1/prefs/defaults/app.plist"),
        ("pkg2/prefs/defaults/app.json", "registered:ROOT/pkg2/prefs/defaults/app.json"),
    ]

    /// Every subset of the layers holding the key: the highest one present answers, and says so.
    @Test(arguments: FileSystemKind.allCases)
    func theHighestLayerThatHasTheKeyAnswers(kind: FileSystemKind) throws {
        for subset in 1..<(1 << LayersTests.order.count) {
            let fixture = try LayerFixture(kind)
            for (i, layer) in LayersTests.order.enumerated() {
                // Every layer exists (so the suite does); only those in the subset hold `k`.
                var contents: PrefDictionary = ["other\(i)": .integer(Int64(i))]
                if subset & (1 << i) != 0 { contents["k"] = .string(layer.file) }
                try fixture.put(layer.file, contents)
            }
            let layers = try fixture.layers(defaults: ["cli1.json", "cli2.plist"])
            let highest = LayersTests.order.indices.first { subset & (1 << $0) != 0 }!
            let found = try #require(try layers.value(at: PrefKeyPath(["k"])))
            #expect(found.value == .string(LayersTests.order[highest].file), "subset \(subset)")
            #expect("\(found.origin)" == LayersTests.order[highest].origin.replacingOccurrences(of: "ROOT", with: fixture.root))
            let stored = try fixture.layers(storedOnly: true).value(at: PrefKeyPath(["k"]))
            #expect(stored?.origin == (subset & 1 != 0 ? .stored : nil), "subset \(subset)")
        }
    }

    @Test(arguments: FileSystemKind.allCases)
    func theMergedSuiteTakesEachKeyFromItsHighestLayerAndNeverMergesDictionaries(kind: FileSystemKind) throws {
        let fixture = try LayerFixture(kind)
        try fixture.put("config/app.plist", ["theme": "light", "window": ["width": 800]])
        try fixture.put("config/.GlobalPreferences.plist", ["AppleLocale": "en_GB", "theme": "global"])
        try fixture.put("data/prefs/defaults/app.plist", ["size": 10])
        try fixture.put("pkg1/prefs/defaults/app.json", ["size": 12, "window": ["width": 640, "height": 480], "shipped": true])
        let resolved = try fixture.layers().resolved()
        #expect(resolved.values == ["AppleLocale": "en_GB", "shipped": true, "size": 10, "theme": "light", "window": ["width": 800]])
        #expect(resolved.origins.map(\.description) == [
            "global", "registered:\(fixture.root)/pkg1/prefs/defaults/app.json", "registered:\(fixture.root)/data/prefs/defaults/app.plist",
            "stored", "stored",
        ])
        #expect(try fixture.layers().value(at: PrefKeyPath(["window", "height"])) == nil)
        #expect(try fixture.layers(storedOnly: true).resolved().values == ["theme": "light", "window": ["width": 800]])
        // The global suite's own layers: its stored values over its registered defaults.
        try fixture.put("pkg2/prefs/defaults/NSGlobalDomain.plist", ["AppleLocale": "fr_FR", "AppleMetric": true])
        #expect(try fixture.layers(.global).resolved().values == ["AppleLocale": "en_GB", "AppleMetric": true, "theme": "global"])
        // A later --defaults file wins over an earlier one, and both over the files.
        try fixture.put("a.plist", ["size": 1, "a": "a"])
        try fixture.put("b.plist", ["size": 2])
        let withCommandLine = try fixture.layers(defaults: ["a.plist", "b.plist"]).resolved()
        #expect(withCommandLine.values["size"] == 2 && withCommandLine.values["a"] == "a")
    }

    @Test(arguments: FileSystemKind.allCases)
    func aDomainExistsThroughItsFileOrItsRegisteredDefaultsButNotThroughTheGlobalSuite(kind: FileSystemKind) throws {
        let fixture = try LayerFixture(kind)
        try fixture.put("config/.GlobalPreferences.plist", ["g": 1])
        // A key still answers from the global suite, as UserDefaults(suiteName:) would.
        #expect(try fixture.origin(of: "g", fixture.layers()) == "global")
        #expect(throws: PrefsError.suiteNotFound(domain: "app")) { try fixture.layers().value(at: PrefKeyPath(["missing"])) }
        #expect(throws: PrefsError.suiteNotFound(domain: "app")) { try fixture.layers().resolved() }
        try fixture.put("pkg2/prefs/defaults/app.json", ["r": 2])
        #expect(try fixture.origin(of: "g", fixture.layers()) == "global")
        #expect(try fixture.layers().value(at: PrefKeyPath(["missing"])) == nil)
        #expect(throws: PrefsError.suiteNotFound(domain: "app")) { try fixture.layers(storedOnly: true).value(at: PrefKeyPath(["r"])) }
    }

    /// A malformed registration file fails every read that goes through it, even when a higher layer
    /// has the answer: nothing read from it is trusted, and nothing else is half-answered.
    @Test(arguments: FileSystemKind.allCases)
    func aMalformedRegistrationFileFailsTheReadWithADataError(kind: FileSystemKind) throws {
        for bad in ["<plist><dict><key>k</key></dict></plist>", "{\"k\": 1,}", "(1, 2)"] {
            let fixture = try LayerFixture(kind)
            try fixture.put("config/app.plist", ["k": "stored"])
            try fixture.put("pkg1/prefs/defaults/app.plist", ["k": "shipped"])
            try fixture.fixture.put("pkg2/prefs/defaults/app.json", Array(bad.utf8))
            for read in [{ _ = try fixture.layers().value(at: PrefKeyPath(["k"])) }, { _ = try fixture.layers().resolved() }] {
                do {
                    try read()
                    Issue.record("\(bad) was trusted")
                } catch let error as PrefsError {
                    #expect(error.exitStatus == .dataError)
                    guard case .malformed(let source, _, _) = error else { Issue.record("\(error)"); continue }
                    #expect(source == fixture.root + "/pkg2/prefs/defaults/app.json", "\(error)")
                }
            }
            #expect(try fixture.layers(storedOnly: true).value(at: PrefKeyPath(["k"]))?.value == "stored")
        }
    }

    @Test func commandLineDefaultsMustExistAndNeedASuite() throws {
        let fixture = try LayerFixture(.memory)
        try fixture.put("config/app.plist", ["k": 1])
        #expect(throws: PrefsError.fileNotFound(path: fixture.root + "/nope.plist")) { try fixture.layers(defaults: ["nope.plist"]).resolved() }
        #expect(throws: PrefsError.self) { try fixture.layers(.file(fixture.root + "/x.plist"), defaults: ["a.plist"]) }
        #expect(throws: PrefsError.self) { try fixture.layers(defaults: ["a.plist"], storedOnly: true) }
        // A file domain is only itself.
        try fixture.put("x.plist", ["k": 2])
        #expect(try fixture.layers(.file(fixture.root + "/x.plist")).value(at: PrefKeyPath(["k"]))?.origin == .stored)
    }

    @Test func registrationFilesAreListedMostImportantFirst() throws {
        let store = SuiteStore(fileSystem: InMemoryFileSystem(), environment: Environment([
            "HOME": "/h", "XDG_DATA_DIRS": "/opt/share/:relative:/usr/share:/opt/share",
        ]))
        func paths(_ store: SuiteStore, _ name: String) throws -> [String] {
            let listed = try store.registeredLayers(for: name)
            #expect(listed.map(\.origin) == listed.map { .registered(store.describe($0.location)) })
            return listed.map { store.describe($0.location) }
        }
        #expect(try store.registeredLayers(for: "app").first?.location == .registered("app"))
        #expect(try store.storage.registrationLocations(for: "app").map(store.describe) == [
            "/h/.local/share/prefs/defaults/app.plist", "/h/.local/share/prefs/defaults/app.json",
        ], "the store lists its own; the core adds the packages' files")
        #expect(try paths(store, "app") == [
            "/h/.local/share/prefs/defaults/app.plist", "/h/.local/share/prefs/defaults/app.json",
            "/opt/share/prefs/defaults/app.plist", "/opt/share/prefs/defaults/app.json",
            "/usr/share/prefs/defaults/app.plist", "/usr/share/prefs/defaults/app.json",
        ])
        let defaults = SuiteStore(fileSystem: InMemoryFileSystem(), environment: Environment(["XDG_CONFIG_HOME": "/c"]))
        #expect(try paths(defaults, "NSGlobalDomain") == [
            "/usr/local/share/prefs/defaults/NSGlobalDomain.plist", "/usr/local/share/prefs/defaults/NSGlobalDomain.json",
            "/usr/share/prefs/defaults/NSGlobalDomain.plist", "/usr/share/prefs/defaults/NSGlobalDomain.json",
        ])
        // A data directory that is the data home adds nothing: each file is listed once, where the
        // store lists it.
        let overlapping = SuiteStore(fileSystem: InMemoryFileSystem(), environment: Environment([
            "HOME": "/h", "XDG_DATA_DIRS": "/h/.local/share:/usr/share",
        ]))
        #expect(try paths(overlapping, "app") == [
            "/h/.local/share/prefs/defaults/app.plist", "/h/.local/share/prefs/defaults/app.json",
            "/usr/share/prefs/defaults/app.plist", "/usr/share/prefs/defaults/app.json",
        ])
        #expect(try overlapping.registeredLayers(for: "app").first?.location == .registered("app"))
    }

    @Test func theUserRegistrationFileKeepsAnExistingJSONFile() throws {
        let fixture = try LayerFixture(.memory)
        func path(_ domain: Domain) throws -> String { try #require(try fixture.store.files.filePath(of: try fixture.store.registrationTarget(for: domain).location)) }
        #expect(try path(.suite("app")) == fixture.root + "/data/prefs/defaults/app.plist")
        try fixture.put("data/prefs/defaults/app.json", ["a": 1])
        #expect(try path(.suite("app")) == fixture.root + "/data/prefs/defaults/app.json")
        try fixture.put("data/prefs/defaults/app.plist", ["a": 1])
        #expect(try path(.suite("app")) == fixture.root + "/data/prefs/defaults/app.plist")
        #expect(try path(.global) == fixture.root + "/data/prefs/defaults/NSGlobalDomain.plist")
        #expect(throws: PrefsError.self) { try fixture.store.registrationTarget(for: .file("/x.plist")) }
    }
}

@Suite struct ChangeAndSumTests {
    @Test func changesListEveryTopLevelKeyThatDiffersInKeyOrder() {
        let before: PrefDictionary = ["a": 1, "b": "x", "c": [1], "d": true]
        let after: PrefDictionary = ["a": 1, "b": "y", "c": [1, 2], "e": 0.5]
        #expect(before.changes(to: after) == [
            KeyChange(key: "b", old: "x", new: "y"), KeyChange(key: "c", old: [1], new: [1, 2]),
            KeyChange(key: "d", old: true, new: nil), KeyChange(key: "e", old: nil, new: 0.5),
        ])
        #expect(after.changes(to: after).isEmpty)
        // Keys that differ only in Unicode normalization stay two keys.
        let nfc: PrefDictionary = ["\u{E9}": 1], nfd: PrefDictionary = ["e\u{301}": 1]
        #expect(nfc.changes(to: nfd).count == 2)
    }

    @Test func integersAddExactlyAcrossTheWholePlistRange() throws {
        #expect(try PrefValue.sum(nil, 5) == 5)
        #expect(try PrefValue.sum(-3, 5) == 2)
        #expect(try PrefValue.sum(.integer(.max), 1) == .unsignedInteger(UInt64(Int64.max) + 1))
        #expect(try PrefValue.sum(.unsignedInteger(.max), -1) == .unsignedInteger(.max - 1))
        #expect(try PrefValue.sum(.unsignedInteger(UInt64(Int64.max) + 1), -1) == .integer(.max))
        #expect(try PrefValue.sum(.integer(.min), .unsignedInteger(.max)) == .integer(.max))
        #expect(throws: PrefKeyPathError.self) { try PrefValue.sum(.unsignedInteger(.max), 1) }
        #expect(throws: PrefKeyPathError.self) { try PrefValue.sum(.integer(.min), -1) }
    }

    @Test func realsAddAndNothingElseDoes() throws {
        #expect(try PrefValue.sum(0.25, 0.5) == 0.75)
        #expect(try PrefValue.sum(nil, -1.5) == -1.5)
        #expect(try PrefValue.sum(.real(.infinity), 1.0) == .real(.infinity))
        #expect(throws: PrefKeyPathError.self) { try PrefValue.sum(.real(.greatestFiniteMagnitude), .real(.greatestFiniteMagnitude)) }
        for stored: PrefValue in ["1", true, .date(PrefDate(secondsSinceReferenceDate: 0)), .data([1]), [1], ["a": 1], 1.0] {
            #expect(throws: PrefKeyPathError.self, "\(stored)") { try PrefValue.sum(stored, 1) }
        }
        #expect(throws: PrefKeyPathError.self) { try PrefValue.sum(1, 1.0) }
    }
}
