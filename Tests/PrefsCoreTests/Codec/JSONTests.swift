import Testing
@testable import PrefsCore

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
