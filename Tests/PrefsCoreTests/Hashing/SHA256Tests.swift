import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// SHA-256, portable and on the CPU's instructions: the FIPS 180-2 vectors, coreutils' `sha256sum`,
/// and the two against each other on every length to 1000 bytes and on megabytes, fed whole and in
/// random pieces. The hardware one must be the one in use wherever the CPU has the instructions.
@Suite struct SHA256Tests {
    /// The portable implementation, and the hardware one if this CPU has it.
    static let implementations: [SHA256.Implementation] =
        SHA256.Implementation.fastest == .portable ? [.portable] : [.portable, .fastest]
    static let hasHardware = SHA256.Implementation.fastest != .portable

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    static func randomBytes(_ count: Int, _ generator: inout SeededGenerator) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            for offset in stride(from: 0, to: count, by: 8) {
                withUnsafeBytes(of: generator.next()) { word in
                    buffer[offset..<min(offset + 8, count)].copyBytes(from: word.prefix(count - offset))
                }
            }
        }
        return bytes
    }

    /// The digest of `bytes` fed in random pieces (some empty) of at most `largest` bytes.
    static func hashInPieces(_ bytes: ArraySlice<UInt8>, _ implementation: SHA256.Implementation, largest: Int,
                             _ generator: inout SeededGenerator) -> [UInt8] {
        var hasher = SHA256(implementation: implementation)
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let piece = min(bytes.endIndex - offset, Int.random(in: 0...largest, using: &generator))
            bytes[offset..<offset + piece].withUnsafeBytes { hasher.update($0) }
            offset += piece
        }
        return hasher.finish()
    }

    /// What the kernel says this CPU has (`/proc/cpuinfo`, independent of our cpuid and auxv checks).
    static func cpuFeatures() throws -> Set<Substring> {
        let info = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let line = info.split(separator: "\n").first { $0.hasPrefix("flags") || $0.hasPrefix("Features") } ?? ""
        return Set(line.split(separator: ":").dropFirst().first?.split(separator: " ") ?? [])
    }

    @Test func theHardwareImplementationIsInUseWhereverTheCPUHasIt() throws {
        let features = try Self.cpuFeatures()
        #if arch(x86_64)
        let expected: SHA256.Implementation = features.isSuperset(of: ["sha_ni", "sse4_1", "ssse3"]) ? .x86SHA : .portable
        #elseif arch(arm64)
        let expected: SHA256.Implementation = features.contains("sha2") ? .armSHA2 : .portable
        #else
        let expected = SHA256.Implementation.portable
        #endif
        #expect(SHA256.Implementation.fastest == expected, "CPU features: \(features.sorted())")
        #expect(SHA256().implementation == expected)
        #expect(SHA256(implementation: .portable).implementation == .portable)
    }

    /// The C compression function called directly, many blocks per call, against the Swift one.
    @Test(.enabled(if: hasHardware)) func hardwareCompressionAgreesWithPortable() {
        var generator = SeededGenerator(seed: 64)
        for blockCount in [1, 2, 3, 16, 1000] {
            let blocks = Self.randomBytes(64 * blockCount + 1, &generator)
            var portable: SHA256.State = (1, 2, 3, 4, 5, 6, 7, 0xffff_ffff)
            var hardware = portable
            // Offset by one byte: the instructions must not need aligned input.
            blocks[1...].withUnsafeBytes {
                SHA256.compressPortable(&portable, blocks: $0)
                SHA256.compressHardware(&hardware, blocks: $0)
            }
            #expect(withUnsafeBytes(of: &portable) { Array($0) } == withUnsafeBytes(of: &hardware) { Array($0) }, "\(blockCount) blocks")
        }
    }

    static let fipsVectors: [(message: [UInt8], digest: String)] = [
        ([], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (Array(("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                + "mnopqrstnopqrstu").utf8),
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        ([UInt8](repeating: 0x61, count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ]

    @Test(arguments: implementations) func matchesTheFIPSVectors(_ implementation: SHA256.Implementation) {
        var generator = SeededGenerator(seed: 180)
        for (message, digest) in Self.fipsVectors {
            #expect(Self.hex(SHA256.hash(message, implementation: implementation)) == digest, "\(message.count) bytes")
            #expect(Self.hex(Self.hashInPieces(message[...], implementation, largest: 100, &generator)) == digest, "\(message.count) bytes in pieces")
        }
    }

    /// Random lengths around the block and padding boundaries and of several megabytes, fed in random
    /// pieces, against coreutils' `sha256sum`.
    @Test(arguments: implementations) func fedInPiecesMatchesSha256sum(_ implementation: SHA256.Implementation) throws {
        let directory = try TemporaryDirectory()
        var generator = SeededGenerator(seed: 256)
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 4097, 100_003, 3_000_000, 5_242_891] {
            let bytes = Self.randomBytes(length, &generator)
            let path = try directory.write("input", bytes)
            let expected = String(try runProcess("/usr/bin/sha256sum", [path]).outputText.prefix(64))
            let largest = length > 1_000_000 ? 300_000 : 200
            #expect(Self.hex(Self.hashInPieces(bytes[...], implementation, largest: largest, &generator)) == expected, "length \(length)")
            #expect(Self.hex(SHA256.hash(bytes, implementation: implementation)) == expected, "length \(length) whole")
        }
    }

    /// Every length from 0 to 1000 bytes, at every alignment modulo 16, whole and in pieces.
    @Test(.enabled(if: hasHardware)) func hardwareAgreesWithPortableOnEveryLengthTo1000() {
        var generator = SeededGenerator(seed: 1000)
        let source = Self.randomBytes(1016, &generator)
        for length in 0...1000 {
            let bytes = source[length % 16..<length % 16 + length]
            let portable = SHA256.hash(Array(bytes), implementation: .portable)
            #expect(bytes.withUnsafeBytes { buffer in
                var hasher = SHA256(implementation: .fastest)
                hasher.update(buffer)
                return hasher.finish()
            } == portable, "length \(length) whole")
            #expect(Self.hashInPieces(bytes, .fastest, largest: 70, &generator) == portable, "length \(length) in pieces")
        }
    }

    @Test(.enabled(if: hasHardware)) func hardwareAgreesWithPortableOnMegabytes() {
        var generator = SeededGenerator(seed: 1 << 20)
        for length in [1 << 20, 4_000_037, 6_291_456 + 63] {
            let bytes = Self.randomBytes(length, &generator)
            let portable = SHA256.hash(bytes, implementation: .portable)
            #expect(SHA256.hash(bytes, implementation: .fastest) == portable, "length \(length) whole")
            #expect(Self.hashInPieces(bytes[...], .fastest, largest: 1 << 17, &generator) == portable, "length \(length) in pieces")
            #expect(Self.hashInPieces(bytes[..<100_000], .fastest, largest: 3, &generator)
                    == SHA256.hash(Array(bytes[..<100_000]), implementation: .portable), "length 100000 in tiny pieces")
        }
    }

    /// Hashing on a second thread while the caller works with the same pieces, by either algorithm:
    /// the same digest as hashing them in turn, below and past the length where the thread starts,
    /// the body run once for every piece, and a body that throws leaves the hasher usable and its
    /// thread stopped.
    @Test(arguments: BlobDigest.Algorithm.allCases) func overlappedHashingMatchesHashingInTurn(_ algorithm: BlobDigest.Algorithm) throws {
        var generator = SeededGenerator(seed: 16)
        for length in [0, 1000, OverlappedHasher.worthwhile + 12_345, 3 * OverlappedHasher.worthwhile] {
            let bytes = Self.randomBytes(length, &generator)
            let hasher = OverlappedHasher(algorithm)
            var copied: [UInt8] = []
            var offset = 0
            while offset < length {
                let piece = min(length - offset, Int.random(in: 0...(3 << 20) + 17, using: &generator))
                bytes[offset..<offset + piece].withUnsafeBytes { piece in hasher.update(piece) { copied += piece } }
                offset += piece
            }
            #expect(copied == bytes, "length \(length)")
            #expect(hasher.finish() == BlobDigest.of(bytes, by: algorithm), "length \(length)")
        }
        struct Stop: Error {}
        let bytes = Self.randomBytes(OverlappedHasher.worthwhile + 1, &generator)
        let hasher = OverlappedHasher(algorithm)
        bytes.withUnsafeBytes { all in hasher.update(all) {} }
        #expect(throws: Stop.self) { try bytes.withUnsafeBytes { all in try hasher.update(all) { throw Stop() } } }
        #expect(hasher.finish() == BlobDigest.of(bytes + bytes, by: algorithm))
    }

    /// Several inputs hashed at once (four lanes, two, then one on x86) give each one's digest, at
    /// any alignment, for every implementation.
    @Test(arguments: implementations) func lanesAgreeWithOneAtATime(_ implementation: SHA256.Implementation) {
        var generator = SeededGenerator(seed: 4)
        for length in [0, 64, 640, 1 << 20] {
            for lanes in [1, 2, 3, 4, 5, 7, 8] {
                let source = Self.randomBytes(lanes * length + 1, &generator)
                // Offset by one byte: the instructions must not need aligned input.
                let digests = source.withUnsafeBytes { all in
                    SHA256.hash(lanes: (0..<lanes).map { UnsafeRawBufferPointer(rebasing: all[1 + $0 * length..<1 + ($0 + 1) * length]) },
                                implementation: implementation)
                }
                let expected = (0..<lanes).map { SHA256.hash(Array(source[1 + $0 * length..<1 + ($0 + 1) * length]), implementation: .portable) }
                #expect(digests == expected, "\(lanes) lanes of \(length) bytes")
            }
        }
    }

    /// The tree digest as the man page (EXTERNAL STORAGE) defines it, computed by Python's hashlib on the same bytes, against
    /// `SHA256Tree` fed whole and in random pieces, across the 1 MiB piece boundaries.
    @Test(arguments: implementations) func treeDigestMatchesItsDefinitionComputedByPython(_ implementation: SHA256.Implementation) throws {
        let directory = try TemporaryDirectory()
        var generator = SeededGenerator(seed: 1 << 20)
        let mebibyte = 1 << 20
        let lengths = [0, 1, 1000, mebibyte - 1, mebibyte, mebibyte + 1, 2 * mebibyte, 2 * mebibyte + 1, 3 * mebibyte + 7, 4 * mebibyte,
                       9 * mebibyte + 5]
        var inputs: [[UInt8]] = []
        for (index, length) in lengths.enumerated() {
            inputs.append(Self.randomBytes(length, &generator))
            _ = try directory.write("input\(index)", inputs[index])
        }
        let expected = try Fixtures.sha256TreeByPython(lengths.indices.map { directory.file("input\($0)") })
        #expect(expected[0] == Self.hex(SHA256.hash(Array("".utf8))), "the empty value has no piece")
        for (index, bytes) in inputs.enumerated() {
            #expect(Self.hex(SHA256Tree.hash(bytes, implementation: implementation)) == expected[index], "length \(bytes.count) whole")
            var hasher = SHA256Tree(implementation: implementation)
            var offset = 0
            while offset < bytes.count {
                let piece = min(bytes.count - offset, Int.random(in: 0...(5 * mebibyte / 2), using: &generator))
                bytes[offset..<offset + piece].withUnsafeBytes { hasher.update($0) }
                offset += piece
            }
            #expect(Self.hex(hasher.finish()) == expected[index], "length \(bytes.count) in pieces")
        }
    }

    /// A stream read and hashed by `TreeReader`, with and without its worker, read back short (as
    /// pipes and sockets do): every byte handed over once and in order, and the tree digest of it.
    @Test func treeReaderHandsEveryByteOverInOrderAndHashesThem() throws {
        var generator = SeededGenerator(seed: 3)
        let piece = TreeReader.pieceSize
        for length in [0, 1, piece - 1, piece, piece + 1, 3 * piece, 6 * piece + 12_345] {
            let bytes = Self.randomBytes(length, &generator)
            for withWorker in [true, false] {
                var offset = 0
                var shortReads = SeededGenerator(seed: UInt64(length))
                let read = { (buffer: UnsafeMutableRawBufferPointer) -> Int in
                    let count = min(bytes.count - offset, Int.random(in: 1...buffer.count, using: &shortReads))
                    bytes[offset..<offset + count].withUnsafeBytes { buffer.copyMemory(from: $0) }
                    offset += count
                    return count
                }
                var used: [UInt8] = []
                let digest = try TreeReader.read(from: read, withWorker: withWorker) { used += $0 }
                #expect(used == bytes, "length \(length), worker \(withWorker)")
                #expect(digest == SHA256Tree.hash(bytes), "length \(length), worker \(withWorker)")
            }
        }
    }

    /// A file read after a head of it was (`write -data @FILE` deciding inline or external): every
    /// byte after the head handed over once and in order, and every piece but the last ending on a multiple
    /// of two `SHA256Tree` pieces of the whole stream, so that its pieces are hashed two at a time.
    @Test func piecesReadAfterAHeadEndOnTreePieces() throws {
        var generator = SeededGenerator(seed: 5)
        let chunk = FileDescriptor.overlappedPiece
        for (head, length) in [(0, 3 * chunk + 7), (4097, 3 * chunk), (chunk, 2 * chunk + 1), (chunk + 1, chunk - 1), (100, 0)] {
            let bytes = Self.randomBytes(length, &generator)
            var offset = 0
            var used: [UInt8] = []
            var ends: [Int] = []
            try FileDescriptor.forEachPiece(after: head, reading: { buffer in
                let count = min(bytes.count - offset, buffer.count)
                bytes[offset..<offset + count].withUnsafeBytes { buffer.copyMemory(from: $0) }
                offset += count
                return count
            }) { piece, _ in
                used += piece
                ends.append(head + used.count)
            }
            #expect(used == bytes, "head \(head), length \(length)")
            #expect(ends.dropLast().allSatisfy { $0 % chunk == 0 }, "head \(head), length \(length): \(ends)")
        }
    }

    /// A read or a use that fails, anywhere in the stream: the error comes back, nothing hangs, and
    /// nothing is used after it (repeated, for the threads' every interleaving to have its chance).
    @Test func treeReaderStopsCleanlyOnAnError() throws {
        struct Failure: Error, Equatable { let at: Int }
        var generator = SeededGenerator(seed: 5)
        let bytes = Self.randomBytes(8 * TreeReader.pieceSize + 99, &generator)
        for round in 0..<60 {
            let failAt = Int.random(in: 0...bytes.count, using: &generator)
            let withWorker = round % 4 != 3
            var offset = 0
            let read = { (buffer: UnsafeMutableRawBufferPointer) throws -> Int in
                let count = min(bytes.count - offset, buffer.count)
                if round % 2 == 0 && offset + count >= failAt && count > 0 { throw Failure(at: failAt) }
                bytes[offset..<offset + count].withUnsafeBytes { buffer.copyMemory(from: $0) }
                offset += count
                return count
            }
            var used = 0
            #expect(throws: Failure(at: failAt), "round \(round)") {
                try TreeReader.read(from: read, withWorker: withWorker) { piece in
                    used += piece.count
                    if round % 2 == 1 && used >= failAt { throw Failure(at: failAt) }
                }
            }
            #expect(used <= failAt + TreeReader.pieceSize, "round \(round): \(used) bytes used")
        }
    }
}
