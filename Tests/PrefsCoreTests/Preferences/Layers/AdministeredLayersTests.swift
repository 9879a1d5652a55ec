import Foundation
import Testing
@testable import PrefsCore

/// An administrator's layers (`$XDG_CONFIG_DIRS` is `ROOT/xdg1:ROOT/xdg2` in `LayerFixture`), on the
/// in-memory file system and the real one.
@Suite struct AdministeredLayersTests {
    /// The read order with the administrator's layers, highest first.
    static let order: [(file: String, origin: String)] = [
        ("xdg1/prefs/managed/app.json", "managed:ROOT/xdg1/prefs/managed/app.json"),
        ("xdg2/prefs/managed/.GlobalPreferences.plist", "managed:ROOT/xdg2/prefs/managed/.GlobalPreferences.plist"),
        ("config/app.plist", "stored"),
        ("config/.GlobalPreferences.plist", "global"),
        ("xdg1/prefs/defaults/app.plist", "system:ROOT/xdg1/prefs/defaults/app.plist"),
        ("xdg2/prefs/defaults/app.plist", "system:ROOT/xdg2/prefs/defaults/app.plist"),
        ("data/prefs/defaults/app.plist", "registered:ROOT/data/prefs/defaults/app.plist"),
        ("pkg1/prefs/defaults/app.plist", "registered:ROOT/pkg1/prefs/defaults/app.plist"),
    ]

    /// Every subset of the layers holding the key: the highest one present answers, and says so,
    /// in a one-key read and in the merged suite; `--stored` sees only the suite's file.
    @Test(arguments: FileSystemKind.allCases)
    func theHighestLayerThatHasTheKeyAnswers(kind: FileSystemKind) throws {
        for subset in 1..<(1 << AdministeredLayersTests.order.count) {
            let fixture = try LayerFixture(kind)
            for (i, layer) in AdministeredLayersTests.order.enumerated() {
                var contents: PrefDictionary = ["other\(i)": .integer(Int64(i))]
                if subset & (1 << i) != 0 { contents["k"] = .string(layer.file) }
                try fixture.put(layer.file, contents)
            }
            let highest = AdministeredLayersTests.order.indices.first { subset & (1 << $0) != 0 }!
            let origin = AdministeredLayersTests.order[highest].origin.replacingOccurrences(of: "ROOT", with: fixture.root)
            let found = try #require(try fixture.layers().value(at: PrefKeyPath(["k"])))
            #expect(found.value == .string(AdministeredLayersTests.order[highest].file) && "\(found.origin)" == origin, "subset \(subset)")
            let resolved = try fixture.layers().resolved()
            let index = try #require(resolved.values.entries.firstIndex { $0.key == "k" })
            #expect("\(resolved.origins[index])" == origin)
            #expect(try fixture.layers(storedOnly: true).value(at: PrefKeyPath(["k"]))?.origin == (subset & 4 != 0 ? .stored : nil))
        }
    }

    /// The first `$XDG_CONFIG_DIRS` directory that has a managed file wins whole; others are not read.
    @Test(arguments: FileSystemKind.allCases)
    func theFirstManagedFileWinsWhole(kind: FileSystemKind) throws {
        let fixture = try LayerFixture(kind)
        try fixture.put("config/app.plist", ["a": "stored", "b": "stored"])
        try fixture.put("xdg2/prefs/managed/app.plist", ["a": "second", "b": "second"])
        #expect(try fixture.origin(of: "b", try fixture.layers()) == "managed:\(fixture.root)/xdg2/prefs/managed/app.plist")
        try fixture.put("xdg1/prefs/managed/app.plist", ["a": "first"])
        #expect(try fixture.layers().value(at: PrefKeyPath(["a"]))?.value == "first")
        #expect(try fixture.origin(of: "b", try fixture.layers()) == "stored")
    }

    /// A managed file that is not a readable property list fails the read (never skipped); the
    /// suite's own file can still be read alone.
    @Test(arguments: FileSystemKind.allCases)
    func aBadManagedFileFailsTheRead(kind: FileSystemKind) throws {
        let fixture = try LayerFixture(kind)
        try fixture.put("config/app.plist", ["a": "stored"])
        let path = fixture.root + "/xdg1/prefs/managed/app.plist"
        try fixture.fixture.put("xdg1/prefs/managed/app.plist", Array("<plist><dict><key>a".utf8))
        #expect(throws: PrefsError.self) { try fixture.layers().value(at: PrefKeyPath(["a"])) }
        do {
            _ = try fixture.layers().resolved()
            Issue.record("a corrupt managed file was skipped")
        } catch let error as PrefsError {
            #expect(error.exitStatus == .dataError)
            if case .malformed(let source, _, _) = error { #expect(source == path) } else { Issue.record("\(error)") }
        }
        #expect(throws: PrefsError.self) { try fixture.store.update(.suite("app"), keys: ["z"]) { $0["z"] = 1 } }
        #expect(try fixture.layers(storedOnly: true).value(at: PrefKeyPath(["a"]))?.value == "stored")
        try fixture.store.fileSystem.removeFile(path)
        try fixture.store.fileSystem.createDirectory(path, mode: 0o755)
        #expect(throws: PrefsError.cannotRead(path: path, errno: EISDIR)) { try fixture.layers().value(at: PrefKeyPath(["a"])) }
    }

    /// A change that names a managed key, or leaves one other than it was, is refused whole; others
    /// go through.
    @Test(arguments: FileSystemKind.allCases)
    func changesOfManagedKeysAreRefusedWhole(kind: FileSystemKind) throws {
        let fixture = try LayerFixture(kind)
        try fixture.put("config/app.plist", ["locked": "user", "mine": 1])
        try fixture.put("xdg1/prefs/managed/app.plist", ["locked": "policy"])
        let refused = PrefsError.managedKey(domain: "app", key: "locked", source: fixture.root + "/xdg1/prefs/managed/app.plist")
        #expect(throws: refused) { try fixture.store.update(.suite("app"), keys: ["locked", "mine"]) { $0["mine"] = 2 } }
        #expect(throws: refused) { try fixture.store.update(.suite("app")) { $0 = ["mine": 3] } }
        #expect(throws: refused) { try fixture.store.reset([PrefKeyPath(["locked"])], in: .suite("app"), dryRun: true) }
        #expect(throws: refused) { try fixture.store.delete([], in: .suite("app"), dryRun: false) }
        #expect(try fixture.store.load(.suite("app"))?.contents == ["locked": "user", "mine": 1])
        #expect(try fixture.store.update(.suite("app"), keys: ["mine"]) { $0["mine"] = 4 })
        #expect(try fixture.store.update(.suite("app")) { $0["other"] = true })
    }

    /// The global suite's managed values bind every suite, under the suite's own: a change of one
    /// of their keys in any suite is refused naming the global suite's file, whole.
    @Test(arguments: FileSystemKind.allCases)
    func theGlobalSuitesManagedValuesBindEverySuite(kind: FileSystemKind) throws {
        let fixture = try LayerFixture(kind)
        try fixture.put("config/app.plist", ["forced": "user", "mine": 1])
        try fixture.put("xdg2/prefs/managed/.GlobalPreferences.plist", ["forced": "global policy", "both": "global policy"])
        try fixture.put("xdg1/prefs/managed/app.plist", ["both": "app policy"])
        let global = fixture.root + "/xdg2/prefs/managed/.GlobalPreferences.plist", app = fixture.root + "/xdg1/prefs/managed/app.plist"
        #expect(try fixture.origin(of: "forced", try fixture.layers()) == "managed:\(global)")
        #expect(try fixture.origin(of: "both", try fixture.layers()) == "managed:\(app)", "the suite's own over the global suite's")
        for domain in [Domain.suite("app"), .suite("other"), .global] {
            let refused = PrefsError.managedKey(domain: domain.displayName, key: "forced", source: global)
            #expect(throws: refused) { try fixture.store.update(domain, keys: ["forced"]) { $0["forced"] = "x" } }
            #expect(throws: refused) { try fixture.store.update(domain) { $0["forced"] = "x"; $0["fine"] = 1 } }
        }
        #expect(throws: PrefsError.managedKey(domain: "app", key: "forced", source: global)) { try fixture.store.reset([], in: .suite("app"), dryRun: false) }
        #expect(throws: PrefsError.managedKey(domain: "app", key: "both", source: app)) { try fixture.store.update(.suite("app"), keys: ["both"]) { $0["both"] = 1 } }
        #expect(try fixture.store.load(.suite("app"))?.contents == ["forced": "user", "mine": 1])
        #expect(try fixture.store.load(.suite("other")) == nil)
        #expect(try fixture.store.update(.suite("other")) { $0["fine"] = 1 })
    }
}
