import Foundation
import Testing
import PrefsCore
import PrefsFoundation

extension Prefs.Keys {
    static let home = Prefs.Key<URL>("home", default: URL(string: "https://example.com/")!)
    static let folder = Prefs.Key<URL?>("folder")
    static let links = Prefs.Key<[URL]>("links", default: [])
}

/// The Foundation bridge: messages as `LocalizedError`, and `Date`, `Data`, `URL` and property-list
/// objects to and from PrefsCore's values, stored as `UserDefaults` stores them.
@Suite struct PrefsFoundationTests {
    static func suite() -> Prefs.Suite {
        let store = SuiteStore(fileSystem: InMemoryFileSystem(), environment: Environment(["HOME": "/home/test"]))
        return Prefs.Suite("com.example.app", store: store)
    }

    @Test func anErrorsLocalizedDescriptionIsTheLibrarysMessage() {
        let error: any Error = PrefsError.keyNotFound(domain: "com.example.app", key: "retries")
        #expect(error.localizedDescription == "com.example.app: no key retries")
        #expect((error as? LocalizedError)?.errorDescription == "\(error)")
    }

    /// A file URL is stored as its path, as `UserDefaults.set(_:forKey:)` stores it; any other URL
    /// as its string; both read back equal.
    @Test(arguments: [
        ("https://example.com/a?b=1#c", "https://example.com/a?b=1#c"),
        ("file:///tmp/x%20y", "/tmp/x y"),
        ("file:///srv/caf%C3%A9/", "/srv/café/"),
        ("mailto:kim@example.com", "mailto:kim@example.com"),
    ])
    func aURLIsStoredAsUserDefaultsStoresIt(url: String, stored: String) throws {
        let suite = PrefsFoundationTests.suite()
        let value = try #require(URL(string: url))
        try suite.set(.home, value)
        #expect(try suite.store.load(.suite("com.example.app"))?.contents["home"] == .string(stored))
        #expect(try suite[.home] == value)
        #expect(PrefValue(value) == .string(stored))
        #expect(PrefValue.string(stored).urlValue == value)
    }

    @Test func fileURLsAndPathsOfUserDefaults() throws {
        let suite = PrefsFoundationTests.suite()
        try suite.set(.folder, URL(fileURLWithPath: "/var/lib/app data", isDirectory: true))
        #expect(try suite.store.load(.suite("com.example.app"))?.contents["folder"] == "/var/lib/app data/")
        // What UserDefaults wrote for a file URL (a path, perhaps with ~) reads as that file URL.
        try suite.store.update(.suite("com.example.app")) { $0["folder"] = "~/Documents" }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/"
        #expect(try suite[.folder]?.path == URL(fileURLWithPath: home).appendingPathComponent("Documents").path)
        // A URL relative to a directory is stored joined; nil removes the key.
        try suite.set(.folder, URL(fileURLWithPath: "notes.txt", relativeTo: URL(fileURLWithPath: "/srv/", isDirectory: true)))
        #expect(try suite.store.load(.suite("com.example.app"))?.contents["folder"] == "/srv/notes.txt")
        try suite.set(.folder, nil)
        #expect(try suite.store.load(.suite("com.example.app"))?.contents["folder"] == nil)
        // Inside an array (or a struct), a URL is what Foundation's PropertyListEncoder writes; the
        // strings stored there before read too.
        try suite.set(.links, [URL(string: "https://a.example")!, URL(fileURLWithPath: "/b")])
        #expect(try suite.store.load(.suite("com.example.app"))?.contents["links"] == [["relative": "https://a.example"], ["relative": "file:///b"]])
        #expect(try suite[.links] == [URL(string: "https://a.example")!, URL(fileURLWithPath: "/b")])
        try suite.store.update(.suite("com.example.app")) { $0["links"] = ["https://a.example", "/b"] }
        #expect(try suite[.links] == [URL(string: "https://a.example")!, URL(fileURLWithPath: "/b")])
    }

    @Test func aStringThatIsNoURLIsATypeMismatch() throws {
        let suite = PrefsFoundationTests.suite()
        try suite.store.update(.suite("com.example.app")) { $0["home"] = "" }
        #expect(throws: PrefsError.self) { try suite[.home] }
        try suite.store.update(.suite("com.example.app")) { $0["home"] = 3 }
        #expect(throws: PrefsError.typeMismatch(domain: "com.example.app", key: "home", reason: "expected a URL (a string), found an integer")) {
            try suite[.home]
        }
    }

    @Test func propertyListObjectsBothWays() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        let object: [String: Any] = [
            "s": "text", "i": 3, "r": 2.5, "b": true, "nb": NSNumber(value: false), "n": NSNumber(value: 7),
            "u": NSNumber(value: UInt64.max), "d": date, "x": Data([1, 2]), "a": [1, "two"], "o": ["k": Int8(-1)],
            "url": URL(fileURLWithPath: "/etc/hosts"),
        ]
        let value = try PrefDictionary(propertyList: object)
        #expect(value == [
            "s": "text", "i": 3, "r": 2.5, "b": true, "nb": false, "n": 7, "u": .unsignedInteger(UInt64.max),
            "d": .date(PrefDate(date)), "x": .data([1, 2]), "a": [1, "two"], "o": ["k": -1], "url": "/etc/hosts",
        ])
        let back = value.propertyList
        #expect(back["s"] as? String == "text" && back["i"] as? Int == 3 && back["b"] as? Bool == true)
        #expect(back["d"] as? Date == date && back["x"] as? Data == Data([1, 2]))
        #expect(try PrefDictionary(propertyList: back) == value)
        #expect(throws: PrefsError.self) { try PrefValue(propertyList: NSNull()) }
        #expect(Date(PrefDate(date)) == date && PrefValue(date).dateValue == date && PrefValue(Data([9])).dataValue == Data([9]))
    }

    /// What `UserDefaults.dictionaryRepresentation()` hands out: values wrapped in optionals, and
    /// booleans as `NSNumber`s.
    @Test func valuesWrappedInOptionalsComeInAsTheyAre() throws {
        let wrapped: [String: Any] = ["flag": Optional<Any>.some(NSNumber(value: true)) as Any, "count": Optional<Any>.some(3) as Any]
        #expect(try PrefDictionary(propertyList: wrapped) == ["flag": true, "count": 3])
        #expect(throws: PrefsError.self) { try PrefValue(propertyList: Optional<Any>.none as Any) }
    }
}
