import Testing
@testable import PrefsCore

/// The schema format read strictly, and each rule checked, without a store.
@Suite struct SchemaTests {
    static func schema(_ json: String) throws -> Schema {
        guard case .dictionary(let document) = try PropertyList.decode(Array(json.utf8)).value else { throw PrefsError.internalError("not a dictionary") }
        return try Schema(document: document, source: "s.json")
    }

    static let example = #"""
        {"allowUndeclaredKeys": false, "description": "d",
         "keys": {"timeout": {"type": "integer", "default": 30, "min": 1, "max": 300, "description": "seconds"},
                  "level": {"type": "string", "choices": ["debug", "info"], "default": "info"},
                  "ports": {"type": "array", "element": "integer", "min": 1, "max": 65535},
                  "ratio": {"type": "float", "min": 0, "max": 1},
                  "since": {"type": "date", "min": "2020-01-01T00:00:00Z", "default": "2026-01-01T00:00:00Z"},
                  "any": {"type": "array"}}}
        """#

    @Test func theExampleReadsAsWritten() throws {
        let schema = try SchemaTests.schema(SchemaTests.example)
        #expect(!schema.allowsUndeclaredKeys && schema.description == "d")
        #expect(schema.keys.map(\.name) == ["any", "level", "ports", "ratio", "since", "timeout"])
        let timeout = try #require(schema.key("timeout"))
        #expect(timeout.type == .integer && timeout.minimum == 1 && timeout.maximum == 300 && timeout.defaultValue == 30)
        #expect(timeout.rule == "an integer from 1 to 300")
        #expect(schema.key("ports")?.rule == "an array of integers from 1 to 65535")
        #expect(schema.key("level")?.rule == "a string, one of \"debug\", \"info\"")
        #expect(schema.defaults == ["level": "info", "since": .date(PrefDate(iso8601: "2026-01-01T00:00:00Z")!), "timeout": 30])
    }

    /// Each rule: a value that keeps it (nil) and ones that break it, with what is said of them.
    @Test(arguments: [
        ("timeout", PrefValue.integer(300), nil),
        ("timeout", .integer(301), "expected an integer from 1 to 300, not 301"),
        ("timeout", .integer(0), "expected an integer from 1 to 300, not 0"),
        ("timeout", .string("30"), "expected an integer from 1 to 300, not \"30\" (a string)"),
        ("timeout", .real(30), "expected an integer from 1 to 300, not 30.0 (a float)"),
        ("timeout", .unsignedInteger(.max), "expected an integer from 1 to 300, not 18446744073709551615"),
        ("ratio", .real(1), nil),
        ("ratio", .real(1.5), "expected a float from 0 to 1, not 1.5"),
        ("ratio", .real(.nan), "expected a float from 0 to 1, not nan"),
        ("ratio", .integer(1), "expected a float from 0 to 1, not 1 (an integer)"),
        ("level", .string("info"), nil),
        ("level", .string("trace"), "expected a string, one of \"debug\", \"info\", not \"trace\""),
        ("level", .bool(true), "expected a string, one of \"debug\", \"info\", not true (a boolean)"),
        ("ports", .array([80, 443]), nil),
        ("ports", .array([80, 0]), "expected an array of integers from 1 to 65535, but element 1 is 0"),
        ("ports", .array([80, "x"]), "expected an array of integers from 1 to 65535, but element 1 is \"x\" (a string)"),
        ("any", .array([1, "x", true]), nil),
        ("since", .date(PrefDate(iso8601: "2019-12-31T23:59:59Z")!), "expected a date of at least 2020-01-01T00:00:00Z, not 2019-12-31T23:59:59Z"),
        ("timout", .integer(5), "not a key the schema declares, and it allows no others"),
    ] as [(String, PrefValue, String?)])
    func eachRuleIsChecked(key: String, value: PrefValue, expected: String?) throws {
        #expect(try SchemaTests.schema(SchemaTests.example).violation(key: key, value: value) == expected)
    }

    @Test func anOpenSchemaAllowsUndeclaredKeys() throws {
        let schema = try SchemaTests.schema(#"{"keys": {"a": {"type": "boolean"}}}"#)
        #expect(schema.violation(key: "other", value: "x") == nil)
        #expect(schema.violation(key: "a", value: "x") != nil)
    }

    /// An external value is checked by the kind its reference says.
    @Test func anExternalReferenceIsCheckedByItsKind() throws {
        let schema = try SchemaTests.schema(#"{"keys": {"s": {"type": "string"}, "d": {"type": "data"}}}"#)
        let reference = ExternalReference(kind: .string, size: 200_000, digest: BlobDigest(.sha256Tree, Array(repeating: 1, count: 32)), directory: "s", uuid: "00000000-0000-4000-8000-000000000000").value
        #expect(schema.violation(key: "s", value: reference) == nil)
        #expect(schema.violation(key: "d", value: reference) == "expected a data, not a value of type string (kept in external storage)")
    }

    /// Every way a schema can be malformed is refused, naming the key and the member.
    @Test(arguments: [
        (#"{"keys": {}, "allowUndeclared": false}"#, "unknown member \"allowUndeclared\""),
        (#"{"kees": {}}"#, "unknown member \"kees\""),
        (#"{}"#, "\"keys\" must be a dictionary"),
        (#"{"keys": []}"#, "\"keys\" must be a dictionary"),
        (#"{"keys": {}, "allowUndeclaredKeys": "no"}"#, "\"allowUndeclaredKeys\" must be a boolean"),
        (#"{"keys": {"a": "integer"}}"#, "key a: must be a dictionary"),
        (#"{"keys": {"a": {}}}"#, "key a: no \"type\""),
        (#"{"keys": {"a": {"type": "int"}}}"#, "key a: \"type\" must be one of string, integer, float, boolean, date, data, array, dictionary, not \"int\""),
        (#"{"keys": {"a": {"type": "integer", "mni": 1}}}"#, "key a: unknown member \"mni\""),
        (#"{"keys": {"a": {"type": "string", "min": 1}}}"#, "key a: min and max are for integers, floats and dates, not strings"),
        (#"{"keys": {"a": {"type": "integer", "min": "1"}}}"#, "key a: \"min\" must be a number"),
        (#"{"keys": {"a": {"type": "integer", "min": 5, "max": 1}}}"#, "key a: min 5 is above max 1"),
        (#"{"keys": {"a": {"type": "integer", "min": 1, "choices": [1]}}}"#, "key a: give a range (min, max) or choices, not both"),
        (#"{"keys": {"a": {"type": "integer", "choices": []}}}"#, "key a: \"choices\" must be a non-empty array"),
        (#"{"keys": {"a": {"type": "integer", "choices": [1, "2"]}}}"#, "key a: choice \"2\" is not an integer"),
        (#"{"keys": {"a": {"type": "integer", "min": 1, "max": 5, "default": 9}}}"#, "key a: the default breaks the key's own rule: expected an integer from 1 to 5, not 9"),
        (#"{"keys": {"a": {"type": "string", "choices": ["x"], "default": "y"}}}"#, "key a: the default breaks the key's own rule"),
        (#"{"keys": {"a": {"type": "integer", "default": "9"}}}"#, "key a: the default breaks the key's own rule: expected an integer, not \"9\" (a string)"),
        (#"{"keys": {"a": {"type": "array", "element": "integer", "max": 3, "default": [1, 4]}}}"#, "but element 1 is 4"),
        (#"{"keys": {"a": {"type": "string", "element": "string"}}}"#, "key a: \"element\" is for arrays"),
        (#"{"keys": {"a": {"type": "array", "min": 1}}}"#, "key a: a range or choices constrain a scalar, or an array's elements"),
        (#"{"keys": {"a": {"type": "date", "default": "yesterday"}}}"#, "key a: \"yesterday\" is not an ISO 8601 date"),
        (#"{"keys": {"a": {"type": "integer", "description": 3}}}"#, "key a: \"description\" must be a string"),
        (#"{"keys": {"": {"type": "integer"}}}"#, "a key name is empty"),
        (#"{"keys": {"a\u0000b": {"type": "integer"}}}"#, "a key name cannot contain NUL"),
    ])
    func aMalformedSchemaIsRefused(json: String, reason: String) throws {
        do {
            _ = try SchemaTests.schema(json)
            Issue.record("accepted \(json)")
        } catch PrefsError.malformed(let source, _, let message) {
            #expect(source == "s.json")
            #expect(message.hasPrefix("schema: ") && message.contains(reason), "\(message)")
        }
    }

    /// `write`'s untyped values take the schema's type; a flag given, or a string key, keeps its own.
    @Test func untypedValuesTakeTheSchemasType() throws {
        let schema = try SchemaTests.schema(SchemaTests.example)
        let request = try WriteRequest.parse(["timeout", "45", "ratio", "0.5", ":ports:0", "80", "level", "42", "other", "7", "timeout", "-string", "x"], domain: "app")
        guard case .changes(let changes) = try request.typed(by: schema, domain: "app") else { Issue.record("not changes"); return }
        #expect(changes.map(\.action) == [.set(45), .set(0.5), .set(80), .set("42"), .set("7"), .set("x")])
        #expect(changes.map(\.flag) == ["-int", "-float", "-int", nil, nil, "-string"])
        #expect(throws: PrefsError.self) { try WriteRequest.parse(["timeout", "thirty"], domain: "app").typed(by: schema, domain: "app") }
    }
}
