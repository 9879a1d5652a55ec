import Foundation
import Testing
import PrefsCore
import PrefsFoundation

struct Bookmark: Codable, Equatable, Sendable {
    var site: URL
    var mirrors: [URL]
    var folder: URL?
}

extension Prefs.Keys {
    static let flag = Prefs.Key<Bool>("flag", default: false)
    static let bookmark = Prefs.Key<Bookmark?>("bookmark")
}

/// Foundation itself as the oracle: `UserDefaults` for what a stored word means to a `Bool` key,
/// `PropertyListDecoder` and `PropertyListEncoder` for what a stored struct holds.
@Suite struct FoundationOracleTests {
    /// Each word a `Bool` key reads means what `UserDefaults.bool(forKey:)` makes of it.
    @Test(arguments: ["true", "YES", "1", "True", "yes", "TRUE", "false", "NO", "0", "no", "False", "FALSE"])
    func aBoolKeyReadsAWordAsUserDefaultsDoes(word: String) throws {
        let defaults = try #require(UserDefaults(suiteName: "prefscore.tests.oracle"))
        defaults.register(defaults: ["flag." + word: word])  // one registration domain per process: a key per word
        let suite = Prefs.Suite.inMemory("com.example.app")
        try suite.store.update(.suite("com.example.app")) { $0["flag"] = .string(word) }
        #expect(try suite[.flag] == defaults.bool(forKey: "flag." + word))
    }

    static let bookmark = Bookmark(
        site: URL(string: "https://example.com/a?b=1")!,
        mirrors: [URL(fileURLWithPath: "/srv/mirror one"), URL(string: "b/c", relativeTo: URL(string: "https://m.example/d/"))!],
        folder: URL(fileURLWithPath: "/tmp/x"))

    /// A URL inside a stored value is what Foundation's `PropertyListEncoder` writes, so
    /// `PropertyListDecoder` decodes the stored struct; and PrefsCore reads what Foundation wrote.
    @Test func foundationDecodesAStoredStructWithURLs() throws {
        let suite = Prefs.Suite.inMemory("com.example.app")
        try suite.set(.bookmark, Self.bookmark)
        let stored = try #require(try suite.store.load(.suite("com.example.app"))?.contents["bookmark"])
        let bytes = try PropertyListSerialization.data(fromPropertyList: stored.propertyList, format: .binary, options: 0)
        #expect(try PropertyListDecoder().decode(Bookmark.self, from: bytes) == Self.bookmark)
        let byFoundation = try PropertyListEncoder().encode(Self.bookmark)
        let written = try PrefValue(propertyList: PropertyListSerialization.propertyList(from: byFoundation, format: nil))
        #expect(written == stored)
        #expect(try suite[.bookmark] == Self.bookmark)
    }
}
