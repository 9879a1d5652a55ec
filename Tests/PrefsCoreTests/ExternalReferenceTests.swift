import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// The pieces of external storage that need no process: SHA-256 against the FIPS vectors and against
/// `sha256sum`, key directory names, reference parsing, and UTF-8 checked in pieces.
@Suite struct ExternalReferenceTests {
    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    @Test func sha256MatchesTheFIPSVectors() {
        #expect(Self.hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Random lengths around the block and padding boundaries, fed in random pieces, against
    /// coreutils' `sha256sum`.
    @Test func sha256FedInPiecesMatchesSha256sum() throws {
        let directory = try TemporaryDirectory()
        var generator = SeededGenerator(seed: 256)
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 4097, 100_003] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path = try directory.write("input", bytes)
            let expected = String(try runProcess("/usr/bin/sha256sum", [path]).outputText.prefix(64))
            var hasher = SHA256()
            var offset = 0
            while offset < length {
                let piece = min(length - offset, Int.random(in: 1...200, using: &generator))
                bytes[offset..<offset + piece].withUnsafeBytes { hasher.update($0) }
                offset += piece
            }
            #expect(Self.hex(hasher.finish()) == expected, "length \(length)")
        }
    }

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
        let reference = ExternalReference(kind: .data, size: 3, sha256: SHA256.hash([1, 2, 3]), directory: "k", uuid: ExternalReference.newUUID())
        #expect(try ExternalReference.parse(reference.value) == reference)
        #expect(ExternalReference.isUUID(reference.uuid))
        // Not references: no marker.
        #expect(try ExternalReference.parse(.string(reference.uuid)) == nil)
        #expect(try ExternalReference.parse(.dictionary(["uuid": .string(reference.uuid)])) == nil)
        // The marker with anything wrong is refused, never read as a value.
        let fields = try #require(reference.value.dictionary, "a reference is a dictionary")
        let edits: [(String, PrefValue?)] = [
            ("uuid", .string("../../etc/passwd")), ("uuid", .string(reference.uuid.uppercased())), ("key", .string("..")),
            ("key", .string("a/b")), ("key", .string(".hidden")), ("size", .integer(-1)), ("size", .string("3")),
            ("sha256", .string("00")), ("type", .string("date")), (ExternalReference.marker, .integer(2)), ("extra", .bool(true)),
            ("uuid", nil),
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
