import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// The pieces of external storage that need no process: key directory names, reference parsing, and
/// UTF-8 checked in pieces (SHA-256 has its own suite, External/SHA256Tests).
@Suite struct ExternalReferenceTests {
    @Test func keyDirectoriesCannotEscapeAndDoNotCollide() {
        let keys = ["Avatar", "", ".", "..", "a/b", "../../etc", "-x", "a.b", "%41", "A", "a b", "ü", "é", "e\u{301}", "\0", String(repeating: "k", count: 300),
                    String(repeating: "k", count: 300) + "x", String(repeating: "/", count: 100)]
        var names = Set<String>()
        for key in keys {
            let name = ExternalReference.directoryName(forKey: key)
            #expect(ExternalReference.isDirectoryName(name), "\(key) → \(name)")
            #expect(!name.contains("/") && name != "." && name != ".." && !name.hasPrefix("."))
            #expect(name.utf8.count <= 200)
            names.insert(name)
        }
        #expect(names.count == keys.count, "two keys share a directory")
        #expect(ExternalReference.directoryName(forKey: "Avatar") == "Avatar")
        #expect(ExternalReference.directoryName(forKey: "a/b") == "a%2Fb")
        #expect(ExternalReference.directoryName(forKey: ".x") == "%2Ex")
    }

    @Test func referencesParseOnlyWhenWellFormed() throws {
        let reference = ExternalReference(kind: .data, size: 3, digest: .of([1, 2, 3]), directory: "k", uuid: ExternalReference.newUUID())
        #expect(reference.digest.algorithm == .sha256Tree && reference.value.dictionary?["sha256-tree"] == .string(Hex.encode(SHA256Tree.hash([1, 2, 3]))))
        #expect(try ExternalReference.parse(reference.value) == reference)
        // One written before the tree digest: the SHA-256 of the whole value.
        var whole = reference
        whole.digest = .of([1, 2, 3], by: .sha256)
        #expect(whole.value.dictionary?["sha256"] == .string(Hex.encode(SHA256.hash([1, 2, 3]))) && whole.value.dictionary?["sha256-tree"] == nil)
        #expect(try ExternalReference.parse(whole.value) == whole)
        #expect(ExternalReference.isUUID(reference.uuid))
        // Not references: no marker.
        #expect(try ExternalReference.parse(.string(reference.uuid)) == nil)
        #expect(try ExternalReference.parse(.dictionary(["uuid": .string(reference.uuid)])) == nil)
        // The marker with anything wrong is refused, never read as a value.
        let fields = try #require(reference.value.dictionary, "a reference is a dictionary")
        let edits: [(String, PrefValue?)] = [
            ("uuid", .string("../../etc/passwd")), ("uuid", .string(reference.uuid.uppercased())), ("key", .string("..")),
            ("key", .string("a/b")), ("key", .string(".hidden")), ("size", .integer(-1)), ("size", .string("3")),
            ("sha256-tree", .string("00")), ("sha256-tree", .integer(0)), ("sha256-tree", nil),
            ("sha256", .string(Hex.encode(SHA256.hash([1, 2, 3])))),  // two digests
            ("type", .string("date")), (ExternalReference.marker, .integer(2)), ("extra", .bool(true)), ("uuid", nil),
        ]
        for (field, value) in edits {
            var edited = fields
            edited[field] = value
            #expect(throws: ExternalReference.Problem.self, "\(field)") { try ExternalReference.parse(.dictionary(edited)) }
        }
        #expect(ExternalReference.containsMarker(.array([.dictionary(["a": .dictionary([ExternalReference.marker: .integer(1)])])])))
        #expect(!ExternalReference.containsMarker(.dictionary(["a": .string(ExternalReference.marker)])))
    }

    @Test func utf8CheckedInPiecesAgreesWithCheckingItWhole() {
        var generator = SeededGenerator(seed: 8)
        let samples: [[UInt8]] = [Array("grüße, 世界 🎉".utf8), [0xC3], [0xE4, 0xB8], [0xFF], [0x80], [0xED, 0xA0, 0x80], Array("ok".utf8) + [0xF0, 0x9F, 0x8E]]
        for sample in samples {
            for _ in 0..<50 {
                var validator = UTF8Validator()
                var valid = true
                var offset = 0
                while offset < sample.count {
                    let piece = min(sample.count - offset, Int.random(in: 1...4, using: &generator))
                    valid = sample[offset..<offset + piece].withUnsafeBytes { validator.feed($0) } && valid
                    offset += piece
                }
                valid = valid && validator.finish()
                #expect(valid == (String(validating: sample, as: UTF8.self) != nil), "\(sample)")
            }
        }
    }
}
