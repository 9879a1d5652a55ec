import PrefsCore
import PrefsTestSupport
import Testing

/// PrefsCore never crashes its host: what a Swift program can pass through the public API (no
/// `@testable` here) that names no value — an empty key path, one deeper than any document — or
/// that no format can hold — a value nested deeper than that — is an error, and nothing changes.
@Suite struct PublicAPITrapTests {
    let home: TemporaryDirectory
    let store: SuiteStore
    let suite: Prefs.Suite

    init() throws {
        home = try TemporaryDirectory()
        store = SuiteStore(environment: Environment(["XDG_CONFIG_HOME": home.file("config"), "XDG_DATA_HOME": home.file("data"), "XDG_DATA_DIRS": home.file("packages"),
                                                     "XDG_CONFIG_DIRS": home.file("xdg"), "XDG_STATE_HOME": home.file("state"), "HOME": home.path, "PREFS_HOST_ID": "h"]))
        suite = Prefs.Suite("s", store: store)
        try suite.update { $0.contents = ["a": 1, "list": [1, 2]] }
    }

    static let empty = PrefsError.badName(domain: "s", name: "", reason: "the key path is empty")

    @Test func anEmptyKeyPathIsABadNameForEveryVerb() throws {
        let none = PrefKeyPath([])
        #expect(throws: PublicAPITrapTests.empty) { try store.value(at: none, in: .suite("s"), scope: ReadScope()) }
        #expect(throws: PublicAPITrapTests.empty) { try store.value(at: none, in: .suite("s")) }
        #expect(throws: PublicAPITrapTests.empty) { try store.rename(none, to: PrefKeyPath(["b"]), in: .suite("s")) }
        #expect(throws: PublicAPITrapTests.empty) { try store.rename(PrefKeyPath(["a"]), to: none, in: .suite("s")) }
        #expect(throws: PublicAPITrapTests.empty) { try store.delete(none, in: .suite("s")) }
        #expect(throws: PublicAPITrapTests.empty) { try store.delete([PrefKeyPath(["a"]), none], in: .suite("s")) }
        #expect(throws: PublicAPITrapTests.empty) { try store.reset([none], in: .suite("s")) }
        #expect(try store.value(at: PrefKeyPath(["a"]), in: .suite("s")) == 1, "nothing changed")
    }

    /// On a dictionary alone too: setting the root would have replaced (or, with a scalar, emptied) it.
    @Test func anEmptyKeyPathIsRefusedByADictionary() throws {
        var dictionary: PrefDictionary = ["a": 1]
        let empty = PrefsError.badName(domain: nil, name: "", reason: "the key path is empty")
        #expect(throws: empty) { try dictionary.value(at: PrefKeyPath([])) }
        #expect(throws: empty) { try dictionary.setValue(2, at: PrefKeyPath([])) }
        #expect(throws: empty) { try dictionary.removeValue(at: PrefKeyPath([])) }
        #expect(dictionary == ["a": 1])
    }

    /// A path of 100,000 components (each level of which the change would create) is refused before
    /// it is followed; an index too large for an integer is no index.
    @Test func aKeyPathDeeperThanAnyDocumentOrAHugeIndexIsAnError() throws {
        let deep = PrefKeyPath(Array(repeating: "k", count: 100_000))
        #expect(throws: PrefsError.self) { try store.rename(PrefKeyPath(["a"]), to: deep, in: .suite("s")) }
        var dictionary: PrefDictionary = ["a": 1]
        #expect(throws: PrefsError.self) { try dictionary.setValue(2, at: deep) }
        #expect(throws: PrefsError.self) { try store.value(at: PrefKeyPath(["list", "99999999999999999999"]), in: .suite("s")) }
        #expect(throws: PrefsError.self) { try store.rename(PrefKeyPath(["list", "-1"]), to: PrefKeyPath(["b"]), in: .suite("s")) }
        #expect(try store.value(at: PrefKeyPath(["a"]), in: .suite("s")) == 1)
    }

    /// A value nested 10,000 deep, built in code, is refused with the limit named: every check of a
    /// change went through it recursively and ran out of stack.
    @Test func aValueNestedDeeperThanAnyFormatIsAnError() throws {
        var deep = PrefValue.integer(1)
        for _ in 0..<10_000 { deep = .array([deep]) }
        #expect(throws: PrefsError.invalidValue(domain: "s", key: "deep", flag: nil, given: nil, reason: "containers nested deeper than 512 levels")) {
            try suite.update { $0.contents["deep"] = deep }
        }
        #expect(try store.value(at: PrefKeyPath(["deep"]), in: .suite("s")) == nil, "not stored")
    }
}
