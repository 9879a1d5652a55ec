/// The digest a new blob's reference records (`sha256-tree`): the SHA-256 of the SHA-256 digests of
/// the value's 1 MiB pieces, in order (the last piece shorter; no piece for an empty value):
///
///     sha256(sha256(bytes[0 ..< 1 MiB]) + sha256(bytes[1 MiB ..< 2 MiB]) + …)
///
/// One SHA-256 of a whole value is a single chain of blocks, each waiting for the one before: at
/// most one SHA unit's speed (100 MB in about 55 ms here). The pieces' digests are independent, so
/// four are computed at once on one core (`SHA256.hash(lanes:)`, 100 MB in about 32 ms), and on
/// several cores (`TreeReader`), which lets `read --raw` check a blob at about the speed it copies
/// it. Whole pieces given together go four at a time, then two; anything else goes through one
/// piece's hasher.
package struct SHA256Tree: Sendable {
    package static let pieceSize = 1 << 20

    package let implementation: SHA256.Implementation
    /// The piece being filled, and how many of its bytes came.
    private var piece: SHA256
    private var pieceCount = 0
    /// The digests of the pieces done, 32 bytes each.
    private var digests: [UInt8] = []

    package init(implementation: SHA256.Implementation = .fastest) {
        self.implementation = implementation
        piece = SHA256(implementation: implementation)
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: [UInt8], implementation: SHA256.Implementation = .fastest) -> [UInt8] {
        var hasher = SHA256Tree(implementation: implementation)
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        let size = SHA256Tree.pieceSize
        var rest = bytes[...]
        while !rest.isEmpty {
            if pieceCount == 0 && rest.count >= 2 * size {
                let whole = rest.count / size * size
                digests += SHA256Tree.hashWhole(UnsafeRawBufferPointer(rebasing: rest.prefix(whole)), implementation: implementation)
                rest = rest.dropFirst(whole)
                continue
            }
            let taken = min(size - pieceCount, rest.count)
            piece.update(UnsafeRawBufferPointer(rebasing: rest.prefix(taken)))
            pieceCount += taken
            rest = rest.dropFirst(taken)
            if pieceCount == size {
                digests += piece.finish()
                piece = SHA256(implementation: implementation)
                pieceCount = 0
            }
        }
    }

    /// The digests of `bytes`' pieces, one after the other (a multiple of 32 bytes): whole ones
    /// several at once, the last one (when shorter) alone.
    static func hashWhole(_ bytes: UnsafeRawBufferPointer, implementation: SHA256.Implementation = .fastest) -> [UInt8] {
        let size = pieceSize
        var digests: [UInt8] = []
        var start = 0
        while bytes.count - start >= 2 * size {
            let lanes = bytes.count - start >= 4 * size ? 4 : 2
            let inputs = (0..<lanes).map { UnsafeRawBufferPointer(rebasing: bytes[start + $0 * size..<start + ($0 + 1) * size]) }
            for digest in SHA256.hash(lanes: inputs, implementation: implementation) { digests += digest }
            start += lanes * size
        }
        while start < bytes.count {
            var hasher = SHA256(implementation: implementation)
            hasher.update(UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + size, bytes.count)]))
            digests += hasher.finish()
            start += size
        }
        return digests
    }

    /// The digest of everything given (32 bytes). The hasher is spent.
    package mutating func finish() -> [UInt8] {
        if pieceCount > 0 { digests += piece.finish() }
        pieceCount = 0
        return SHA256Tree.root(of: digests, implementation: implementation)
    }

    /// The digest of a value whose pieces' digests (32 bytes each, in order) are `digests`.
    static func root(of digests: [UInt8], implementation: SHA256.Implementation = .fastest) -> [UInt8] {
        SHA256.hash(digests, implementation: implementation)
    }
}
