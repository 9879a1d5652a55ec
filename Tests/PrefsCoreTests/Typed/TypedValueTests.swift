import Foundation
import Testing
@testable import PrefsCore

extension Prefs.Keys {
    static let enabled = Prefs.Key<Bool>("enabled", default: false)
    static let themes = Prefs.Key<[Theme]>("themes", default: [])
}

/// How a typed read sees stored values: values print as `prefs read` prints them, a `Bool` key
/// reads the words `prefs write S K true` stores, and every refusal is a `PrefsError` naming the
/// suite, the key and what was found.
@Suite struct TypedValueTests {
    @Test func aValuePrintsAsPrefsReadPrintsIt() {
        #expect("\(PrefValue.string("light"))" == "light")
        #expect("\(PrefValue.integer(3)) \(PrefValue.real(2.5)) \(PrefValue.bool(true))" == "3 2.5 true")
        #expect("\(PrefValue.date(PrefDate(secondsSinceReferenceDate: 0.5)))" == "2001-01-01T00:00:00.5Z")
        #expect("\(PrefValue.data([0, 255]))" == "00ff")
        let window: PrefValue = ["title": "Main", "frame": [0, 800]]
        #expect("\(window)" == "{\n    frame = (\n        0,\n        800\n    );\n    title = Main;\n}")
    }

    @Test func aBoolKeyReadsTheWordsUserDefaultsReads() throws {
        let suite = Prefs.Suite.inMemory("com.example.app")
        for (word, meaning) in [("true", true), ("YES", true), ("1", true), ("False", false), ("NO", false), ("0", false)] {
            try suite.store.update(.suite("com.example.app")) { $0["enabled"] = .string(word) }
            #expect(try suite[.enabled] == meaning, "\(word)")
        }
        try suite.store.update(.suite("com.example.app")) { $0["enabled"] = "banana" }
        #expect(throws: PrefsError.typeMismatch(domain: "com.example.app", key: "enabled", reason: "expected a boolean, found a string")) {
            try suite[.enabled]
        }
        // Only a Bool key: a String key reads the word as it is.
        try suite.store.update(.suite("com.example.app")) { $0["word"] = "YES" }
        #expect(try suite[.word] == "YES")
    }

    @Test func anUnknownRawValueIsAPrefsErrorNamingSuiteKeyAndWhatWasFound() throws {
        let suite = Prefs.Suite.inMemory("com.example.app")
        try suite.store.update(.suite("com.example.app")) { $0["theme"] = "purple"; $0["themes"] = ["dark", "sepia"] }
        #expect(throws: PrefsError.typeMismatch(domain: "com.example.app", key: "theme",
                                                reason: "found purple: cannot initialize Theme from invalid String value purple")) {
            try suite[.theme]
        }
        #expect(throws: PrefsError.typeMismatch(domain: "com.example.app", key: "themes",
                                                reason: "at 1: found sepia: cannot initialize Theme from invalid String value sepia")) {
            try suite[.themes]
        }
    }

    struct Refusing: Codable, Sendable {
        func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(0, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "Never stored"))
        }
    }

    @Test func aValueThatRefusesToEncodeIsAPrefsErrorAndNothingIsWritten() throws {
        let suite = Prefs.Suite.inMemory("com.example.app")
        #expect(throws: PrefsError.invalidValue(domain: "com.example.app", key: "refusing", flag: nil, given: nil, reason: "never stored")) {
            try suite.set(Prefs.Key<Refusing?>("refusing"), Refusing())
        }
        #expect(try suite.store.load(.suite("com.example.app")) == nil)
    }
}
