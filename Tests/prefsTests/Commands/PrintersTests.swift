import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// The output options resolve once into an `OutputForm`, whose printer prints every verb's results
/// in that form; `--compact` is one option with one meaning wherever a verb takes it.
@Suite struct PrintersTests {
    static let value: PrefValue = ["a": .array([.string("x")]), "b": .integer(2)]
    static let place = ValuePlace(domain: "app", key: "k")

    static func printed(_ form: OutputForm, _ print: (any ValuePrinter) throws -> Void) throws -> (text: String, bytes: [UInt8]) {
        let captured = Captured()
        try print(form.printer(captured.context(fileSystem: InMemoryFileSystem())))
        #expect(captured.error == "")
        return (captured.output, captured.outputBytes)
    }

    @Test func eachFormPrintsAValueItsWay() throws {
        let readable = try Self.printed(OutputForm()) { try $0.value(Self.value, Self.place, origin: nil) }
        #expect(readable.text == "{\n    a = (\n        x\n    );\n    b = 2;\n}\n")
        let json = try Self.printed(OutputForm(json: true)) { try $0.value(Self.value, Self.place, origin: nil) }
        #expect(json.bytes == (try PropertyList.encode(Self.value, as: .json)))
        #expect(json.text.split(separator: "\n").count > 1)
        let compact = try Self.printed(OutputForm(compact: true)) { try $0.value(Self.value, Self.place, origin: nil) }
        #expect(compact.text == #"{"a":["x"],"b":2}"# + "\n")
        let keys = try Self.printed(OutputForm(keys: true, null: true)) { try $0.value(Self.value, Self.place, origin: nil) }
        #expect(keys.bytes == Array("a\0b\0".utf8))
        let matched = try Self.printed(OutputForm(keys: true, match: "[a]")) { try $0.value(Self.value, Self.place, origin: "stored") }
        #expect(matched.text == "stored\ta\n")
        let raw = try Self.printed(OutputForm(raw: true)) { try $0.value(.data([0, 0xFF]), Self.place, origin: nil) }
        #expect(raw.bytes == [0, 0xFF])
        let document = try Self.printed(OutputForm(compact: true, format: .json)) { try $0.value(Self.value, Self.place, origin: nil) }
        #expect(document.text == #"{"a":["x"],"b":2}"#)
    }

    /// A form a value has no shape in is refused as bad data (65), naming the suite and key.
    @Test(arguments: ["--keys", "--raw"])
    func aValueWithoutThatShapeIsRefused(option: String) throws {
        let form = try OutputForm(keys: option == "--keys", raw: option == "--raw")
        #expect {
            _ = try Self.printed(form) { try $0.value(.integer(3), Self.place, origin: nil) }
        } throws: { error in
            guard let error = error as? PrefsError, case .typeMismatch(let domain, let key, _) = error else { return false }
            return error.exitStatus == .dataError && domain == "app" && key == "k"
        }
    }

    /// `find`'s matches, `watch`'s changes and `history`'s versions, readable and as JSON.
    @Test func listsInTheReadableFormAndAsJSON() throws {
        let matches = [FindMatch(suite: "app", key: nil, value: nil), FindMatch(suite: "app", key: PrefKeyPath(["name"]), value: .string("Ada"))]
        #expect(try Self.printed(OutputForm(null: true)) { try $0.matches(matches, deadlines: false) }.bytes == Array("app\0app\tname\0".utf8))
        #expect(try Self.printed(OutputForm(compact: true)) { try $0.matches(matches, deadlines: false) }.text
            == #"[{"suite":"app"},{"key":"name","suite":"app","value":"Ada"}]"# + "\n")
        let changes = [WatchChange(key: "n", old: nil, new: .integer(1)), WatchChange(key: "s", old: .string("a\nb"), new: nil)]
        #expect(try Self.printed(OutputForm()) { $0.changes(changes, in: .suite("app")) }.text == "n (absent) -> 1\ns \"a\\nb\" -> (removed)\n")
        // Each change one object on one line, with --json alone as with --compact.
        for form in [try OutputForm(json: true), try OutputForm(compact: true)] {
            #expect(try Self.printed(form) { $0.changes(changes, in: .suite("app")) }.text == """
                {"suite":"app","key":"n","old":null,"new":1}
                {"suite":"app","key":"s","old":"a\\nb","new":null}

                """)
        }
        let version = SuiteVersion(number: 7, time: 0, user: "u\tv", host: "h", verb: "write", keys: ["a b", "c"], changes: nil)
        #expect(try Self.printed(OutputForm()) { try $0.versions([version]) }.text == "7\t1970-01-01T00:00:00Z\tu\\x09v@h\twrite\t\"a b\" c\n")
        #expect(try Self.printed(OutputForm(compact: true)) { try $0.versions([version]) }.text
            == #"[{"host":"h","keys":["a b","c"],"time":"1970-01-01T00:00:00Z","user":"u\tv","valuesKept":false,"verb":"write","version":7}]"# + "\n")
    }

    /// One `--compact`: the same spelling and sentence in every verb that takes it.
    @Test func compactIsDefinedOnce() {
        let compact = CommandTable.verbs.compactMap { verb in verb.options.first { $0.name == "compact" }.map { (verb.name, $0) } }
        #expect(compact.map(\.0).sorted() == ["export", "find", "history", "read", "watch"])
        #expect(Set(compact.map(\.1.summary)).count == 1, "\(compact.map(\.1.summary))")
        #expect(compact.allSatisfy { $0.1.value == nil && !$0.1.repeatable })
    }
}
