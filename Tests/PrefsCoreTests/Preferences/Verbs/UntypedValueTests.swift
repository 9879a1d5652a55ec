import Testing
@testable import PrefsCore

/// Untyped values, read as `defaults` reads them: a bare word holding none of `"()[]{}<>` is a
/// quoted old-style string (escapes decoded), any other word the property list it spells; and the
/// `defaults` dialect of `write` (`WriteRequest.parseDefaults`), word for word.
@Suite struct UntypedValueTests {
    static func value(_ words: [String]) throws -> PrefValue? {
        guard case .changes(let changes) = try WriteRequest.parse(words[...], domain: "s"), let change = changes.first else { return nil }
        switch change.action {
        case .set(let value): return value
        case .arrayAdd(let elements): return .array(elements)
        case .dictAdd(let additions): return .dictionary(additions)
        default: return nil
        }
    }

    static let table: [([String], PrefValue)] = [
        (["k", #"@\U21a9"#], "@↩"),
        (["k", #"\U2318\U21e7"#], "⌘⇧"),
        (["k", #"a\nb\tc"#], "a\nb\tc"),
        (["k", #"\101\102"#], "AB"),
        (["k", #"back\\slash"#], #"back\slash"#),
        (["k", #"\q"#], "q"),
        (["k", #"\Ud83d\Ude00"#], "😀"),
        (["k", "it's"], "it's"),
        (["k", "Dark"], "Dark"),
        (["k", "~/Downloads"], "~/Downloads"),
        (["k", "file:///tmp/x y"], "file:///tmp/x y"),
        (["k", "1.5"], "1.5"),
        (["k", "true"], "true"),
        (["k", ""], ""),
        (["k", #""quoted words""#], "quoted words"),
        (["k", #""\U00e9""#], "é"),
        (["k", "(a, b)"], ["a", "b"]),
        (["k", "{ a = 1; }"], ["a": "1"]),
        (["k", "<0a0b>"], .data([10, 11])),
        (["k", "-string", #"@\U21a9"#], #"@\U21a9"#),
        (["k", "-array", #"\U00e9"#, "-string", #"\U00e9"#], [.string("é"), .string(#"\U00e9"#)]),
        (["k", "-array-add", #"a\tb"#], ["a\tb"]),
        (["NSUserKeyEquivalents", "-dict-add", "Send", #"@\U21a9"#], ["Send": "@↩"]),
        (["k", "-dict", #"tab\tkey"#, "v", "-string", "-k", "w"], ["tab\tkey": "v", "-k": "w"]),
        (["k", "-dict", "x", "(a)"], ["x": ["a"]]),
    ]

    @Test(arguments: table.indices)
    func untypedWordsAreReadAsDefaultsReadsThem(index: Int) throws {
        let (words, expected) = UntypedValueTests.table[index]
        #expect(try UntypedValueTests.value(words) == expected, "\(words)")
    }

    /// A word `defaults` cannot parse is refused (macOS: "Could not parse"), never stored as typed.
    @Test(arguments: [#"ends\"#, "Main (1)", #"a"b"#, "x{", #"\Ud83d"#, "-dict k"])
    func aWordThatDoesNotParseIsRefused(word: String) throws {
        #expect(throws: PrefsError.self) { try WriteRequest.parse(["k", word], domain: "s") }
        #expect(throws: PrefsError.self) { try WriteRequest.parse(["k", "-array", "ok", word], domain: "s") }
    }

    @Test func aDictionaryKeyMustBeAString() throws {
        #expect(throws: PrefsError.self) { try WriteRequest.parse(["k", "-dict", "-int", "1", "v"], domain: "s") }
        #expect(throws: PrefsError.self) { try WriteRequest.parse(["k", "-dict", "(a)", "v"], domain: "s") }
    }

    // MARK: The defaults dialect

    static func defaults(_ words: String...) throws(DefaultsSyntaxError) -> WriteRequest { try WriteRequest.parseDefaults(words[...]) }

    static func set(_ key: String, _ value: PrefValue, flag: String? = nil) -> WriteRequest {
        .changes([WriteRequest.Change(path: PrefKeyPath([key]), action: .set(value), flag: flag)])
    }

    static let dialect: [(words: [String], result: Result<WriteRequest, DefaultsSyntaxError>)] = [
        (["k", "v"], .success(set("k", "v"))),
        (["k", #"@\U21a9"#], .success(set("k", "@↩"))),
        (["k", "-string", #"@\U21a9"#], .success(set("k", #"@\U21a9"#, flag: "-string"))),
        (["k", "-float", "0.1"], .success(set("k", .real(Double(Float(0.1))), flag: "-float"))),
        (["k", "-float", "1e40"], .success(set("k", .real(.infinity), flag: "-float"))),
        (["k", "-int", " 42 "], .success(set("k", 42, flag: "-int"))),
        (["k", "-integer", "+7"], .success(set("k", 7, flag: "-integer"))),
        (["k", "-int", "99999999999999999999"], .success(set("k", .integer(.max), flag: "-int"))),
        (["k", "-int", "-99999999999999999999"], .success(set("k", .integer(.min), flag: "-int"))),
        (["k", "-int", "18446744073709551615"], .success(set("k", .integer(.max), flag: "-int"))),
        (["k", "-data", "abc"], .success(set("k", .data([0x0A, 0xBC]), flag: "-data"))),
        (["k", "-data", ""], .success(set("k", .data([]), flag: "-data"))),
        (["k", "-bool", "YES"], .success(set("k", true, flag: "-bool"))),
        (["k", "-boolean", "False"], .success(set("k", false, flag: "-boolean"))),
        (["k", "-date", "2026-01-02 03:04:05 +0000"], .success(set("k", .date(PrefDate(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5)!), flag: "-date"))),
        (["k", "-array"], .success(set("k", [], flag: "-array"))),
        (["k", "-array", "a", "-int", "1", "(x)"], .success(set("k", ["a", 1, ["x"]], flag: "-array"))),
        (["k", "-dict", "-string", "a", "b"], .success(set("k", ["a": "b"], flag: "-dict"))),
        (["k", "-json", "1"], .failure(.message("Unexpected argument 1; leaving defaults unchanged."))),
        (["k", "-json"], .success(set("k", "-json"))),
        (["k", "-foo"], .success(set("k", "-foo"))),
        ([":a:b", "v"], .success(set(":a:b", "v"))),
        (["k", "v", "extra"], .failure(.message("Unexpected argument extra; leaving defaults unchanged."))),
        (["k", "-bool", "1"], .failure(.usage)),
        (["k", "-data", "xy"], .failure(.usage)),
        (["k", "-date", "tomorrow"], .failure(.usage)),
        (["k", "-int"], .failure(.usage)),
        ([], .failure(.usage)),
        (["k", "-int", "abc"], .failure(.message("-int abc: not a decimal integer (defaults would store 0); leaving defaults unchanged."))),
        (["k", "-float", "fast"], .failure(.message("-float fast: not a number (defaults would store 0); leaving defaults unchanged."))),
        (["k", "-array", "-array", "x"], .failure(.message("Cannot nest composite types (arrays and dictionaries); exiting"))),
        (["k", "-dict", "a", "-dict"], .failure(.message("Cannot nest composite types (arrays and dictionaries); exiting"))),
        (["k", "-dict", "-int", "1", "v"], .failure(.message("Dictionary keys must be strings"))),
        (["k", "-dict", "a"], .failure(.message("Key a lacks a corresponding value"))),
        (["k", "Main (1)"], .failure(.message("Could not parse: Main (1).  Try single-quoting it."))),
        (["k", #"end\"#], .failure(.message(#"Could not parse: "end\".  Try single-quoting it."#))),
        (["k", #"{"a": 1}"#], .failure(.message(#"Could not parse: {"a": 1}.  Try single-quoting it."#))),
        (["{ a = 1; }"], .success(.replaceDomain(["a": "1"]))),
        (["k"], .failure(.message("\nRep argument is not a dictionary\nDefaults have not been changed.\n"))),
    ]

    @Test(arguments: dialect.indices)
    func theDefaultsDialectReadsWordsAsDefaultsDoes(index: Int) {
        let row = UntypedValueTests.dialect[index]
        let result = Result { () throws(DefaultsSyntaxError) in try WriteRequest.parseDefaults(row.words[...]) }
        #expect(result == row.result, "\(row.words)")
    }

    @Test func addingFlagsAreKeptForTheWrite() throws {
        let request = try UntypedValueTests.defaults("k", "-array-add", "a", "-int", "2")
        #expect(request == .changes([WriteRequest.Change(path: PrefKeyPath(["k"]), action: .arrayAdd(["a", 2]), flag: "-array-add")]))
        let merge = try UntypedValueTests.defaults("k", "-dict-add", "Send", #"@\U21a9"#)
        #expect(merge == .changes([WriteRequest.Change(path: PrefKeyPath(["k"]), action: .dictAdd(["Send": "@↩"]), flag: "-dict-add")]))
    }
}
