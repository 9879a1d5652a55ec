import Testing
@testable import PrefsCore

/// `PlistFormat.holding`: the one table of what each format can hold agrees with what its codec
/// does, so the callers that ask it (the file store, `export`, external storage) cannot drift from
/// the encoders.
@Suite struct FormatCapabilityTests {
    static let samples: [PrefValue] = [
        "text", .integer(-7), .unsigned(UInt64.max), .real(1.5), .bool(true),
        .date(PrefDate(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5)!), .data([0, 1, 254]), .uid(9),
    ]

    @Test(arguments: PlistFormat.allCases)
    func theTableSaysWhatTheCodecGivesBack(format: PlistFormat) throws {
        for value in FormatCapabilityTests.samples {
            let document = PrefValue.dictionary(["k": value])
            let holding = format.holding(value)
            guard holding != .unwritable else {
                #expect(throws: PrefsError.self, "\(format) \(value)") { try PropertyList.encode(document, as: format) }
                continue
            }
            let back = try PropertyList.decode(try PropertyList.encode(document, as: format), as: format)
            guard case .dictionary(let contents) = back, let read = contents["k"] else {
                Issue.record("\(format) \(value): no dictionary back")
                continue
            }
            switch holding {
            case .kept: #expect(read == value, "\(format)")
            case .asText: #expect(read.typeName == "string" && value.typeName != "string", "\(format) \(value): \(read)")
            case .asUIDDictionary: #expect(read == ["CF$UID": .integer(9)], "\(format)")
            case .unwritable: break
            }
        }
    }

    @Test func theFirstValueNotKeptIsNamedByItsKeyPath() {
        let value: PrefValue = ["a": "x", "b": ["c": ["ok", .bool(false)]], "d:e": .integer(1)]
        #expect(PlistFormat.openStep.firstValue(in: value, where: { $0 != .kept })?.keyPath == ":b:c:1")
        #expect(PlistFormat.json.firstValue(in: value, where: { $0 != .kept }) == nil)
        #expect(PlistFormat.json.firstValue(in: ["u": .uid(1), "d": .data([])], where: { $0 == .asText })?.keyPath == ":d")
        #expect(PlistFormat.xml.keeps(value) && PlistFormat.json.keeps(value) && !PlistFormat.openStep.keeps(value))
    }
}
