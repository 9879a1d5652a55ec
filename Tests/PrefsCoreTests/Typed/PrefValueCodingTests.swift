import Foundation
import Testing
@testable import PrefsCore

struct Window: Codable, Equatable, Sendable {
    var title: String
    var frame: [Double]
    var zoom: Float
    var pinned: Bool
    var tabs: [String: Int]
    var opened: Date
    var icon: Data
    var note: String?
}

enum Theme: String, Codable, Sendable { case light, dark }

/// `PrefValueEncoder` and `PrefValueDecoder`: Codable values as property-list structure, which
/// Foundation's own property-list coders read and write alike.
@Suite struct PrefValueCodingTests {
    static let window = Window(title: "Main", frame: [0, 0, 800.5, 600], zoom: 1.5, pinned: true, tabs: ["a": 1, "b": -2],
                               opened: Date(timeIntervalSinceReferenceDate: 700_000_000), icon: Data([0, 1, 255]), note: nil)

    @Test func aStructIsADictionaryOfRealPropertyListTypes() throws {
        let encoded = try #require(try PrefValueEncoder().encode(PrefValueCodingTests.window))
        #expect(encoded == [
            "title": "Main", "frame": [0.0, 0.0, 800.5, 600.0], "zoom": 1.5, "pinned": true, "tabs": ["a": 1, "b": -2],
            "opened": .date(PrefDate(secondsSinceReferenceDate: 700_000_000)), "icon": .data([0, 1, 255]),
        ])
        #expect(try PrefValueDecoder().decode(Window.self, from: encoded) == PrefValueCodingTests.window)
    }

    @Test func foundationsCodersReadWhatItWritesAndTheOtherWayRound() throws {
        let encoded = try #require(try PrefValueEncoder().encode(PrefValueCodingTests.window))
        let xml = try PropertyList.encode(encoded, as: .xml)
        #expect(try PropertyListDecoder().decode(Window.self, from: Data(xml)) == PrefValueCodingTests.window)
        let byFoundation = try PropertyListEncoder().encode(PrefValueCodingTests.window)
        let decoded = try PropertyList.decode(Array(byFoundation), as: .binary)
        #expect(decoded == encoded)
        #expect(try PrefValueDecoder().decode(Window.self, from: decoded) == PrefValueCodingTests.window)
    }

    @Test(arguments: [
        (PrefValue.integer(3), "3"), (.real(2.0), "2"), (.unsigned(UInt64.max), "nil"), (.real(2.5), "nil"), (.bool(true), "nil"),
    ])
    func integersConvertOnlyExactly(value: PrefValue, expected: String) {
        let decoded = try? PrefValueDecoder().decode(Int.self, from: value)
        #expect(decoded.map(String.init) ?? "nil" == expected)
    }

    @Test func scalarsEnumsAndOptionals() throws {
        let encoder = PrefValueEncoder()
        #expect(try encoder.encode(Theme.dark) == "dark")
        #expect(try encoder.encode(UInt64.max) == .unsignedInteger(UInt64.max))
        #expect(try encoder.encode(Optional<Int>.none) == nil)
        #expect(try encoder.encode(["x", "y"]) == ["x", "y"])
        #expect(try PrefValueDecoder().decode(Theme.self, from: "light") == .light)
        #expect(try PrefValueDecoder().decode(Double.self, from: 3) == 3.0)
        #expect(try PrefValueDecoder().decode(PrefDate.self, from: .date(PrefDate(secondsSinceReferenceDate: 5))).secondsSinceReferenceDate == 5)
    }

    @Test func aNilInsideAnArrayCannotBeStored() {
        #expect(throws: (any Error).self) { try PrefValueEncoder().encode([1, nil, 3] as [Int?]) }
    }

    @Test func aMismatchNamesWhereItIs() throws {
        guard case .dictionary(var window)? = try PrefValueEncoder().encode(PrefValueCodingTests.window) else {
            Issue.record("not a dictionary")
            return
        }
        window["frame"] = .array(["0", "x"])
        let stored = PrefValue.dictionary(window)
        do {
            _ = try PrefValueDecoder().decode(Window.self, from: stored)
            Issue.record("decoded a string as a Double")
        } catch let error as PrefCodingError {
            #expect(error.sentence == "at frame.0: expected a real, found a string")
        }
    }
}
