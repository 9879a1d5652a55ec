import Testing
@testable import PrefsCore

@Suite struct OpenStepTests {
    static func decode(_ text: String) throws -> PrefValue { try OpenStepDecoder.decode(Array(text.utf8)) }

    @Test(arguments: [
        ("{ a = b; \"c d\" = (1, \"2\", <0a0B 0c>); e = {}; }", PrefValue.dictionary(["a": "b", "c d": ["1", "2", .data([10, 11, 12])], "e": [:]])),
        ("( a, b, )", ["a", "b"]),
        ("()", []),
        ("{}", [:]),
        ("\"quoted\"", "quoted"),
        ("'single'", "single"),
        ("\"esc \\\" \\\\ \\n \\t \\r \\a \\b \\f \\v \\101 \\U00e9 \\UD83D\\UDE00 \\q\"", "esc \" \\ \n \t \r \u{7} \u{8} \u{C} \u{B} A é 😀 q"),
        ("// comment\n{ /* block */ a = /* inline */ b; // trailing\n }", ["a": "b"]),
        ("{ path = /usr/local/bin:/bin; num = -1.5e3; plus = a+b; }", ["path": "/usr/local/bin:/bin", "num": "-1.5e3", "plus": "a+b"]),
        ("\"k\" = \"v\";\n\"k2\" = v2;", ["k": "v", "k2": "v2"]),
        ("\"k\";\n\"k2\" = \"v2\";", ["k": "k", "k2": "v2"]),
        ("\u{FEFF}{ a = b; }", ["a": "b"]),
        ("{ \"日本語\" = \"русский\"; }", ["日本語": "русский"]),
    ] as [(String, PrefValue)])
    func reads(text: String, value: PrefValue) throws {
        #expect(try OpenStepTests.decode(text) == value)
    }

    @Test(arguments: [
        "", "   ", "// only a comment", "word", "{ a = b }", "{ a b; }", "{ a = ; }", "( a b )", "( a, ", "<0g>", "<abc>",
        "\"unterminated", "/* unterminated", "{ (a) = b; }", "\"\\UD800\"", "\"\\UDC00\"", "\"\\UD83Dx\"", "\"\\200\"",
        "{ a = b; } trailing", "\"k\" = \"v\"", "a = b; c",
    ])
    func refuses(text: String) {
        #expect(throws: PrefsError.self) { try OpenStepTests.decode(text) }
    }

    @Test func writesLibplistLayout() throws {
        let text = String(decoding: try OpenStepEncoder.encode(["a": ["x y", .data([1, 2, 3, 4, 5]), 7], "b.c": [:], "": "q\"\n"]), as: UTF8.self)
        #expect(text == """
            {
              "" = "q\\"\\n";
              a = (
                "x y",
                <01020304 05>,
                7
              );
              b.c = {};
            }

            """)
    }

    @Test func quotesEverythingThatIsNotPlain() throws {
        for string in ["", "a b", "a+b", "a/b", "a:b", "é", "a;b", "\u{1}"] {
            let encoded = try OpenStepEncoder.encode([.string(string)])
            #expect(String(decoding: encoded, as: UTF8.self).contains("\""), "\(string)")
            #expect(try OpenStepDecoder.decode(encoded) == [.string(string)])
        }
    }

    @Test func refusesTypesOpenStepCannotHold() {
        for value: PrefValue in [true, .date(PrefDate(secondsSinceReferenceDate: 0)), .uid(1), ["k": [false]]] {
            #expect(throws: PrefsError.self) { try OpenStepEncoder.encode(value) }
        }
    }
}
