/// What a reference records to check its blob by, under the field named for its algorithm: the
/// tree digest every new blob gets (`sha256-tree`, see `SHA256Tree`), or the SHA-256 of the whole
/// value (`sha256`) that references written before it hold, and which stay checked by it.
package struct BlobDigest: Equatable, Sendable {
    package enum Algorithm: String, CaseIterable, Sendable {
        case sha256 = "sha256"
        case sha256Tree = "sha256-tree"

        /// What new blobs record.
        package static let current = Algorithm.sha256Tree
    }

    package let algorithm: Algorithm
    /// 32 bytes.
    package let bytes: [UInt8]

    package init(_ algorithm: Algorithm, _ bytes: [UInt8]) {
        self.algorithm = algorithm
        self.bytes = bytes
    }

    /// The digest of `bytes` by `algorithm`.
    package static func of(_ bytes: [UInt8], by algorithm: Algorithm = .current) -> BlobDigest {
        var hasher = BlobHasher(algorithm)
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }
}

/// Computes a `BlobDigest` of bytes fed in pieces.
struct BlobHasher {
    // One of the two, updated in place (through the optional, without a copy of the tree's digests).
    private var whole: SHA256?
    private var tree: SHA256Tree?

    init(_ algorithm: BlobDigest.Algorithm) {
        switch algorithm {
        case .sha256: whole = SHA256()
        case .sha256Tree: tree = SHA256Tree()
        }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        whole?.update(bytes)
        tree?.update(bytes)
    }

    /// The digest of everything given; the hasher is spent.
    mutating func finish() -> BlobDigest {
        if let digest = whole?.finish() { return BlobDigest(.sha256, digest) }
        return BlobDigest(.sha256Tree, tree!.finish())
    }
}
