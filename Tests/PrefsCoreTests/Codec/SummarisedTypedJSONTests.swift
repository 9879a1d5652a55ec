import Foundation
import Testing
@testable import PrefsCore

/// The typed JSON `prefs edit` opens: large values by their summary, each restored exactly when read
/// back, wherever its summary went; an edited summary is refused.
@Suite struct SummarisedTypedJSONTests {
    static let big = String(repeating: "0123456789abcdef", count: 5000)  // 80000 bytes
    static let blob = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    static let contents: PrefDictionary = [
        "a": 1,
        "nested": .dictionary(["big": .data(blob), "k": "v"]),
        "list": .array((0..<20_000).map { _ in "item" }),
        "twin": .string(big),
        "twin2": .string(big),
    ]

    static func text(_ document: SummarisedTypedJSON) -> String { String(decoding: document.bytes, as: UTF8.self) }

    @Test func largeValuesAreSummarisedAndComeBackExactly() throws {
        let document = try SummarisedTypedJSON(Self.contents)
        let text = Self.text(document)
        #expect(document.count == 4)
        #expect(text.utf8.count < 2000)
        // A large leaf inside a small container: the container's other keys stay editable.
        #expect(text.contains(#""big": {"summary": "<data: 70000 bytes, sha256 \#(Hex.encode(SHA256.hash(Self.blob)))>"}"#))
        #expect(text.contains(#""k": {"string": "v"}"#))
        // A container of small values, large in all: summarised whole, by its one-line form.
        #expect(text.contains(#""list": {"summary": "<array: "#))
        #expect(text.contains(#""twin": {"summary": "<string: 80000 bytes of UTF-8, sha256 \#(Hex.encode(SHA256.hash(Array(Self.big.utf8))))>"}"#))
        #expect(try document.decode(document.bytes) == .dictionary(Self.contents))
        // Reformatted (as another JSON writer would): the same.
        let compact = Array(text.filter { $0 != "\n" }.utf8)
        #expect(try document.decode(compact) == .dictionary(Self.contents))
    }

    @Test func aSummaryMovedTakesItsValueAndOneDeletedDeletesIt() throws {
        let document = try SummarisedTypedJSON(Self.contents)
        let text = Self.text(document)
            .replacingOccurrences(of: #""k": {"string": "v"}"#, with: #""k": {"string": "w"}"#)
            .replacingOccurrences(of: #""twin2":"#, with: #""renamed":"#)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains(#""list": {"summary""#) }
        let edited = try document.decode(Array(lines.joined(separator: "\n").utf8))
        var expected = Self.contents
        expected["nested"] = .dictionary(["big": .data(Self.blob), "k": "w"])
        expected["renamed"] = expected.removeValue(forKey: "twin2")
        _ = expected.removeValue(forKey: "list")
        #expect(edited == .dictionary(expected))
    }

    @Test func anEditedSummaryIsRefused() throws {
        let document = try SummarisedTypedJSON(Self.contents)
        let text = Self.text(document).replacingOccurrences(of: "<data: 70000 bytes", with: "<data: 70001 bytes")
        #expect(throws: PrefsError.self) { try document.decode(Array(text.utf8)) }
        do {
            _ = try document.decode(Array(text.utf8))
        } catch let error as PrefsError {
            #expect(error.description.hasPrefix("typed JSON: at :nested:big: a summary of a large value was changed"), "\(error.description)")
        }
        let retyped = Self.text(document).replacingOccurrences(of: #""twin": {"summary": "<string"#, with: #""twin": {"summary": "<data"#)
        #expect(throws: PrefsError.self) { try document.decode(Array(retyped.utf8)) }
    }

    /// With no large value the document is the plain typed JSON, and any format is read back.
    @Test func smallSuitesAreTheUsualTypedJSON() throws {
        let small: PrefDictionary = ["a": 1, "s": .string(String(repeating: "x", count: SummarisedTypedJSON.limit)), "d": .dictionary(["e": true])]
        let document = try SummarisedTypedJSON(small)
        #expect(document.count == 0)
        #expect(document.bytes == (try TypedJSON.encode(.dictionary(small))))
        #expect(try document.decode(Array("{\"a\": 2}".utf8)) == .dictionary(["a": 2]))
        let withSummaries = try SummarisedTypedJSON(Self.contents)
        #expect(try withSummaries.decode(try PropertyList.encode(.dictionary(["a": 2]), as: .xml)) == .dictionary(["a": 2]))
    }
}
