import Testing
@testable import PrefsCore

/// Every type and edge, through every format: what comes back is the value itself, or exactly what
/// that format's documented mapping says.
@Suite struct RoundTripTests {
    /// A named value whose test-case label is just the name (some values are megabytes long).
    struct Edge: CustomTestStringConvertible, Sendable {
        let name: String
        let value: PrefValue
        var testDescription: String { name }
    }

    static func date(_ text: String) -> PrefValue { .date(PrefDate(iso8601: text)!) }

    static func nested(_ depth: Int) -> PrefValue {
        var value: PrefValue = "bottom"
        for i in 0..<depth { value = i % 2 == 0 ? .array([value]) : .dictionary(["k": value]) }
        return value
    }

    static let edges = edgeValues.map { Edge(name: $0.0, value: $0.1) }

    static let edgeValues: [(String, PrefValue)] = [
        ("Int64.min", .integer(.min)), ("Int64.max", .integer(.max)), ("UInt64.max", .unsignedInteger(.max)),
        ("2^63", .unsignedInteger(1 << 63)), ("zero", 0), ("minus one", -1), ("255", 255), ("256", 256),
        ("65535", 65535), ("65536", 65536), ("2^32-1", .integer(4_294_967_295)), ("2^32", .integer(4_294_967_296)),
        ("-0.0", .real(-0.0)), ("+inf", .real(.infinity)), ("-inf", .real(-.infinity)), ("NaN", .real(.nan)),
        ("0.1", 0.1), ("smallest subnormal", .real(.leastNonzeroMagnitude)), ("largest", .real(.greatestFiniteMagnitude)),
        ("1.0", 1.0), ("1e16", 1e16),
        ("true", true), ("false", false),
        ("date before 1901 with fraction", date("1850-06-15T12:00:00.125Z")),
        ("date after 2038 with fraction", date("2100-01-01T00:00:00.5Z")),
        ("earliest date", date("0001-01-01T00:00:00Z")), ("latest date", date("9999-12-31T23:59:59.999Z")),
        ("reference date", .date(PrefDate(secondsSinceReferenceDate: 0))),
        ("empty string", ""), ("1 MB string", .string(String(repeating: "abcdefgh", count: 131_072))),
        ("non-BMP", "😀 𝄞 \u{10FFFF}"), ("escape sequences", "\u{1B}[0m tab\there"), ("markup", "<a href=\"x\">&amp;</a> ]]>"),
        ("CR LF", "line\r\nnext\rlast"), ("NUL", "a\u{0}b"), ("NFD", "e\u{301}"),
        ("empty data", .data([])), ("all bytes", .data(Array(0...255))), ("1 MB data", .data((0..<1_048_576).map { UInt8($0 & 0xFF) })),
        ("empty array", []), ("empty dictionary", [:]),
        ("mixed dictionary", ["b": 1, "a": ["x", 2.5, true], "c": ["nested": [:]], "\u{E9}": "NFC", "e\u{301}": "NFD"]),
        ("uid 0", .uid(0)), ("uid max", .uid(.max)),
        ("depth 500", nested(500)),
    ]

    @Test(arguments: edges)
    func binary(edge: Edge) throws {
        let value = edge.value
        #expect(try value.roundTripped(.binary) == value)
    }

    @Test(arguments: edges)
    func typedJSON(edge: Edge) throws {
        let value = edge.value
        #expect(try value.roundTripped(.typedJSON) == value)
    }

    @Test(arguments: edges)
    func xml(edge: Edge) throws {
        let value = edge.value
        #expect(try value.roundTripped(.xml) == RoundTripTests.xmlMapping(value))
    }

    @Test(arguments: edges)
    func json(edge: Edge) throws {
        let value = edge.value
        guard let expected = RoundTripTests.jsonMapping(value) else {
            #expect(throws: PrefsError.self) { try JSONTextEncoder.encode(value) }
            return
        }
        #expect(try value.roundTripped(.json) == expected)
    }

    @Test(arguments: edges)
    func openStep(edge: Edge) throws {
        let value = edge.value
        guard let expected = RoundTripTests.openStepMapping(value) else {
            #expect(throws: PrefsError.self) { try OpenStepEncoder.encode(value) }
            return
        }
        #expect(try value.roundTripped(.openStep) == expected)
    }

    /// XML keeps everything but date fractions.
    static func xmlMapping(_ value: PrefValue) -> PrefValue {
        map(value) { if case .date(let d) = $0 { return .date(d.truncatedToSecond) }; return $0 }
    }

    /// Plain JSON: dates and data become strings, UIDs `{"CF$UID": n}`; non-finite reals cannot be written.
    static func jsonMapping(_ value: PrefValue) -> PrefValue? {
        var representable = true
        let mapped = map(value) { scalar in
            switch scalar {
            case .real(let r) where !r.isFinite: representable = false; return scalar
            case .date(let d): return .string(d.iso8601())
            case .data(let bytes): return .string(Base64.encode(bytes))
            case .uid(let u): return ["CF$UID": .unsigned(u)]
            default: return scalar
            }
        }
        return representable ? mapped : nil
    }

    /// OpenStep: numbers come back as their text; booleans, dates and UIDs cannot be written.
    static func openStepMapping(_ value: PrefValue) -> PrefValue? {
        var representable = true
        let mapped = map(value) { scalar in
            switch scalar {
            case .integer(let i): return .string(String(i))
            case .unsignedInteger(let u): return .string(String(u))
            case .real(let r): return .string(XMLPlistEncoder.realText(r))
            case .bool, .date, .uid: representable = false; return scalar
            default: return scalar
            }
        }
        return representable ? mapped : nil
    }

    static func map(_ value: PrefValue, _ transform: (PrefValue) -> PrefValue) -> PrefValue {
        switch value {
        case .array(let elements): return .array(elements.map { map($0, transform) })
        case .dictionary(let d): return .dictionary(PrefDictionary(d.map { ($0.key, map($0.value, transform)) }))
        default: return transform(value)
        }
    }

    @Test func everyFormatRefusesValuesNestedTooDeep() {
        let deep = RoundTripTests.nested(DecodingLimits.maxDepth + 1)
        for format in PlistFormat.allCases {
            #expect(throws: PrefsError.self, "\(format)") { try PropertyList.encode(deep, as: format) }
        }
    }

    @Test func encodersNameTheKeyPathOfWhatTheyCannotWrite() {
        let value: PrefValue = ["outer": ["list": ["fine", .real(.nan)]], "a:b": ["x": .bool(true)]]
        #expect(throws: PrefsError.unrepresentable(format: .json, keyPath: ":outer:list:1", reason: "nan has no JSON number (typed-json can write it)")) {
            try JSONTextEncoder.encode(value)
        }
        #expect(throws: PrefsError.unrepresentable(format: .openStep, keyPath: ":a\\:b:x", reason: "OpenStep has no boolean type (use xml, binary or typed-json)")) {
            try OpenStepEncoder.encode(value)
        }
    }

    @Test func datesOutsideTheSupportedRangeAreNeverWritten() {
        let tooLate: PrefValue = ["when": .date(PrefDate(secondsSinceReferenceDate: PrefDate.endSeconds))]
        for format in [PlistFormat.binary, .xml, .json, .typedJSON] {
            #expect(throws: PrefsError.self, "\(format)") { try PropertyList.encode(tooLate, as: format) }
        }
    }
}
