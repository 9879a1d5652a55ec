import Testing
@testable import PrefsCore

@Suite struct PrefValueTests {
    @Test func boolIsNeverAnInteger() {
        #expect(PrefValue.bool(true) != .integer(1))
        #expect(PrefValue.bool(false) != .integer(0))
        #expect(PrefValue.bool(true).typeName == "boolean")
    }

    @Test func unsignedValuesNormalize() {
        #expect(PrefValue.unsigned(5) == .integer(5))
        if case .integer = PrefValue.unsigned(UInt64(Int64.max)) {} else { Issue.record("Int64.max should stay .integer") }
        if case .unsignedInteger(let u) = PrefValue.unsigned(UInt64.max) { #expect(u == .max) } else { Issue.record("UInt64.max") }
        #expect(PrefValue.unsignedInteger(7) == .integer(7))
        #expect(PrefValue.integer(-1) != .unsignedInteger(UInt64.max))
    }

    @Test func realsCompareExactly() {
        #expect(PrefValue.real(.nan) == .real(.nan))
        #expect(PrefValue.real(0.0) != .real(-0.0))
        #expect(PrefValue.real(1.5) != .integer(1))
    }

    @Test func stringsCompareByBytesNotCanonicalEquivalence() {
        let nfc = "\u{E9}", nfd = "e\u{301}"
        #expect(nfc == nfd)  // Swift's String ==
        #expect(PrefValue.string(nfc) != .string(nfd))
    }

    @Test func dictionaryKeepsNFCAndNFDKeysApart() {
        var dictionary = PrefDictionary()
        dictionary["\u{E9}"] = "NFC"
        dictionary["e\u{301}"] = "NFD"
        #expect(dictionary.count == 2)
        #expect(dictionary["\u{E9}"] == "NFC")
        #expect(dictionary["e\u{301}"] == "NFD")
    }

    @Test func dictionaryIsSortedByCodePointAndLastDuplicateWins() {
        let dictionary = PrefDictionary([("b", 1), ("a", 2), ("\u{10000}", 3), ("\u{FFFF}", 4), ("a", 5), ("B", 6)])
        #expect(dictionary.keys == ["B", "a", "b", "\u{FFFF}", "\u{10000}"])
        #expect(dictionary["a"] == 5)
    }

    @Test func dictionaryEditing() {
        var dictionary: PrefDictionary = ["m": 1]
        dictionary["z"] = 2
        dictionary["a"] = 3
        dictionary["m"] = 4
        #expect(dictionary.keys == ["a", "m", "z"])
        #expect(dictionary["m"] == 4)
        #expect(dictionary.removeValue(forKey: "m") == 4)
        dictionary["z"] = nil
        dictionary["absent"] = nil
        #expect(dictionary.keys == ["a"])
    }

    @Test(arguments: [
        (PrefValue.string("x"), "string"), (.integer(1), "integer"), (.unsignedInteger(.max), "integer"),
        (.real(1), "float"), (.bool(true), "boolean"), (.date(PrefDate(secondsSinceReferenceDate: 0)), "date"),
        (.data([]), "data"), (.array([]), "array"), (.dictionary([:]), "dictionary"), (.uid(1), "uid"),
    ])
    func typeNames(value: PrefValue, name: String) {
        #expect(value.typeName == name)
    }
}
