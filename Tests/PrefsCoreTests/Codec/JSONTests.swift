import Foundation
import Testing
@testable import PrefsCore
import PrefsTestSupport

@Suite struct JSONTests {
    static func decode(_ text: String) throws -> PrefValue { try JSONTextDecoder.decode(Array(text.utf8)) }

    /// The implementation-defined cases, pinned (README "JSON policy" and JSONTextDecoder's doc).
    @Test(arguments: [
        ("[-9223372036854775808]", PrefValue.array([.integer(.min)])),
        ("[18446744073709551615]", [.unsignedInteger(.max)]),
        ("[-0]", [0]),
        ("[-0.0]", [.real(-0.0)]),
        ("[1.0]", [1.0]),
        ("[1E6]", [1_000_000.0]),
        ("[1.000000000000000005]", [1.0]),
        ("[1e-999]", [0.0]),
        ("[123e-10000000]", [0.0]),
        ("{\"a\":1,\"a\":2}", ["a": 2]),
        ("{\"\u{E9}\":\"NFC\",\"e\u{301}\":\"NFD\"}", ["\u{E9}": "NFC", "e\u{301}": "NFD"]),
        ("[\"\\ud83d\\ude00\\u00e9\\/\\b\\f\\n\\r\\t\\\"\\\\\"]", ["😀é/\u{8}\u{C}\n\r\t\"\\"]),
        ("[\"A\\u0000B\"]", ["A\u{0}B"]),
        ("\u{FEFF}{}", [:]),
        (" \t\r\n{ \"a\" : [ true , false ] } \n", ["a": [true, false]]),
    ] as [(String, PrefValue)])
    func policy(text: String, value: PrefValue) throws {
        #expect(try JSONTests.decode(text) == value)
    }

    @Test(arguments: [
        "[-9223372036854775809]", "[18446744073709551616]", "[100000000000000000000]", "[1e400]", "[-1e400]",
        "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]", "[\"\\ud800\\\"]", "[null]", "null", "{\"a\":null}",
        "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[0x10]", "[NaN]", "[Infinity]", "[\"\t\"]", "['a']", "[1,]", "{\"a\":1,}",
        "[1 2]", "{\"a\" 1}", "{a:1}", "[\"\\x41\"]", "[tru]", "[", "", "   ", "[] []", "[\"\\u12\"]",
    ])
    func refuses(text: String) {
        #expect(throws: PrefsError.self) { try JSONTests.decode(text) }
    }

    /// Error messages name the line and column (characters, not bytes) and the reason; pinned, since
    /// the decoder's fast paths must report exactly what a byte-by-byte reading would.
    static let errorCases: [(text: String, message: String)] = [
        ("[\"abc", "line 1, column 2: unterminated string"),
        ("[\"abcdefghijklmnop", "line 1, column 2: unterminated string"),
        ("[\"abcdefgh\u{1}ijk\"]", "line 1, column 11: raw control character in string (escape it)"),
        ("[\"é\u{1}\"]", "line 1, column 4: raw control character in string (escape it)"),
        ("[\"%FF abc \u{1}\"]", "line 1, column 9: raw control character in string (escape it)"),
        ("[\"%FF\\x\"]", "line 1, column 4: invalid escape '\\x'"),
        ("[\"%FFabcdefghijkl\"]", "line 1, column 2: string is not valid UTF-8"),
        ("{\"a\\u00e9\":1,\"%C3\":2}", "line 1, column 14: string is not valid UTF-8"),
        ("[\"tab\there\"]", "line 1, column 6: raw control character in string (escape it)"),
        ("[\"\\ud800\"]", "line 1, column 3: lone surrogate \\uD800 (not a character)"),
        ("[\"\\udbff\\udbff\"]", "line 1, column 3: lone surrogate \\uDBFF (not a character)"),
        ("[\"\\u12\"]", "line 1, column 7: invalid \\u escape"),
        ("[01]", "line 1, column 2: number with a leading zero"),
        ("[1.]", "line 1, column 2: invalid number (digits must follow '.')"),
        ("[1e]", "line 1, column 2: invalid number (digits must follow the exponent)"),
        ("[-]", "line 1, column 2: invalid number"),
        ("[1e400]", "line 1, column 2: number 1e400 is too large for a 64-bit real"),
        ("[-1.5e309]", "line 1, column 2: number -1.5e309 is too large for a 64-bit real"),
        ("[18446744073709551616]", "line 1, column 2: integer 18446744073709551616 does not fit in 64 bits"),
        ("[-9223372036854775809]", "line 1, column 2: integer -9223372036854775809 does not fit in 64 bits"),
        ("{\"a\":1,}", "line 1, column 8: expected a string key"),
        ("{\"k\" 1}", "line 1, column 6: expected ':' after a key"),
        ("{\n  \"a\": [1,\n  2,,]\n}", "line 3, column 5: unexpected character ','"),
        ("{\"ключ\":\"значение\",\n \"ä\":[true,\n  fals]}", "line 3, column 3: invalid literal (expected false)"),
        ("{\"é\": {\"b\": nul}}", "line 1, column 13: invalid literal (expected null)"),
        ("[\"a\"]  x", "line 1, column 8: unexpected data after the JSON value"),
        ("{\"a\":[1,2,3}", "line 1, column 12: expected ',' or ']' in array"),
        ("[1,2", "line 1, column 5: unterminated array"),
        ("{\"a\":1", "line 1, column 7: unterminated object"),
    ]

    /// The text's UTF-8 with `%XX` standing for the byte XX (for bytes that are not UTF-8).
    static func bytes(_ text: String) -> [UInt8] {
        var out: [UInt8] = [], rest = Substring(text)
        while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent].utf8
            out.append(UInt8(rest[rest.index(after: percent)...].prefix(2), radix: 16)!)
            rest = rest[rest.index(percent, offsetBy: 3)...]
        }
        return out + rest.utf8
    }

    @Test(arguments: JSONTests.errorCases)
    func errorsNameThePlaceAndTheReason(text: String, message: String) {
        #expect {
            _ = try JSONTextDecoder.decode(JSONTests.bytes(text))
        } throws: { error in
            guard case PrefsError.malformed(_, .json?, let reason) = error else { return false }
            return reason == message
        }
    }

    /// Objects too large to sort by comparing whole keys go through the radix sort: the same
    /// dictionary as `PrefDictionary` builds from the members (last of equal keys wins), whatever
    /// the keys share (long prefixes, NUL bytes, one key a prefix of another) or how they are spelled.
    @Test(arguments: [UInt64(1), 2, 3, TestSeed.run])
    func largeObjectsAreSortedAsPrefDictionaryIs(seed: UInt64) throws {
        var random = RandomValues(seed: seed)
        let pieces = ["a", "b", "\u{0}", "é", "e\u{301}", "😀", "com.example.", "~", "\u{7F}"]
        for _ in 0..<30 {
            let shared = ["", "com.example.", "aaaaaaaaaaaaaaaaaaaaaaa"][random.int(0...2)]
            var members: [(String, PrefValue)] = (0..<random.int(0...400)).map { i in
                (shared + (0..<random.int(0...12)).map { _ in pieces[random.int(0...pieces.count - 1)] }.joined(), .integer(Int64(i)))
            }
            if random.int(0...2) == 0 {  // keys in order for a while, as in a file prefs wrote and someone added to
                let inOrder = random.int(0...members.count)
                members[..<inOrder].sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            }
            var text = "{"
            for (i, (key, _)) in members.enumerated() {
                let escaped = random.int(0...2) == 0  // every character as \u escapes, else only NUL
                let spelled = key.unicodeScalars.map { scalar -> String in
                    guard escaped || scalar.value == 0 else { return String(scalar) }
                    return String(scalar).utf16.map { String(format: "\\u%04x", $0) }.joined()
                }.joined()
                text += (i == 0 ? "" : ",") + "\"\(spelled)\":\(i)"
                members[i].1 = .integer(Int64(i))
            }
            text += "}"
            #expect(try JSONTests.decode(text) == .dictionary(PrefDictionary(members)), "\(TestSeed.reproduce(seed))")
        }
    }

    @Test func validateAcceptsNullButDecodeDoesNot() throws {
        let text = Array("{\"a\": [null, 1], \"b\": null}".utf8)
        #expect(try PropertyList.validate(text) == .json)
        #expect(throws: PrefsError.self) { try JSONTextDecoder.decode(text) }
        #expect(try PropertyList.validate(Array("null".utf8)) == .json)
    }

    @Test func deepNestingFailsCleanly() {
        #expect(throws: PrefsError.self) { try JSONTextDecoder.decode(Array(String(repeating: "[", count: 100_000).utf8)) }
        #expect(throws: PrefsError.self) { try JSONTextDecoder.decode(Array((String(repeating: "[", count: 513) + String(repeating: "]", count: 513)).utf8)) }
        #expect(throws: Never.self) { try JSONTextDecoder.decode(Array((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8)) }
    }

    @Test func writesTheDocumentedMapping() throws {
        let value: PrefValue = [
            "s": "a\"b\\c\n\u{1}é", "i": .unsignedInteger(.max), "r": 1.0, "b": false,
            "d": .date(PrefDate(iso8601: "2026-01-02T03:04:05.25Z")!), "x": .data([0xFF, 0]), "u": .uid(3), "e": [], "o": [:],
        ]
        let text = String(decoding: try JSONTextEncoder.encode(value), as: UTF8.self)
        #expect(text == """
            {
              "b": false,
              "d": "2026-01-02T03:04:05.25Z",
              "e": [],
              "i": 18446744073709551615,
              "o": {},
              "r": 1.0,
              "s": "a\\"b\\\\c\\n\\u0001é",
              "u": {
                "CF$UID": 3
              },
              "x": "/wA="
            }

            """)
        #expect(String(decoding: try JSONTextEncoder.encode(["a": [1, 2]], pretty: false), as: UTF8.self) == "{\"a\":[1,2]}")
    }

    @Test func typedJSONIsExactAndDetected() throws {
        let value: PrefValue = ["nan": .real(.nan), "neg": .real(-0.0), "uid": .uid(9), "n": 1, "f": 1.0,
                                "d": .date(PrefDate(secondsSinceReferenceDate: -0.1)), "b": .data([1]), "t": true]
        let bytes = try TypedJSON.encode(value)
        let (decoded, format) = try PropertyList.decode(bytes)
        #expect(format == .typedJSON)
        #expect(decoded == value)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"n\": {\"integer\": 1}"))
    }

    @Test(arguments: [
        "{\"prefs-typed-json\": 2, \"value\": {\"string\": \"x\"}}",
        "{\"prefs-typed-json\": 1}",
        "{\"prefs-typed-json\": 1, \"value\": {\"strin\": \"x\"}}",
        "{\"prefs-typed-json\": 1, \"value\": {\"integer\": \"1\"}}",
        "{\"prefs-typed-json\": 1, \"value\": {\"string\": \"x\", \"integer\": 1}}",
        "{\"prefs-typed-json\": 1, \"value\": {\"date\": \"yesterday\"}}",
        "{\"prefs-typed-json\": 1, \"value\": {\"data\": \"!!\"}}",
        "{\"prefs-typed-json\": 1, \"value\": {\"float\": \"huge\"}}",
        "{\"prefs-typed-json\": 1, \"value\": {\"uid\": -1}}",
        "{\"prefs-typed-json\": 1, \"value\": {\"array\": [1]}}",
        "{\"prefs-typed-json\": 1, \"value\": {\"string\": \"x\"}, \"extra\": 1}",
    ])
    func typedJSONRefusesMalformedNodes(text: String) {
        #expect(throws: PrefsError.self) { try PropertyList.decode(Array(text.utf8)) }
    }
}
