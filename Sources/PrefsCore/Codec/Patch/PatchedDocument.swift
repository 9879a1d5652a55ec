/// A patched document as pieces — runs of the original bytes and new bytes between them — so that it
/// can be written out without being joined first: a one-key change of a large suite then holds the
/// old file and the new bytes, not a second copy of the whole file.
struct PatchedDocument {
    let original: UnsafeBufferPointer<UInt8>
    /// In order: a range of `original`, or (`isNew`) a range of `added`. (A struct, not a tuple: an
    /// array of tuples holding a `Range` has its type built at run time, which costs a small write
    /// more than its patch.)
    struct Piece {
        let isNew: Bool
        var range: Range<Int>
    }
    private(set) var pieces: [Piece] = []
    /// Every new piece's bytes, one after the other.
    private(set) var added: [UInt8] = []
    private(set) var count = 0

    init(_ original: UnsafeBufferPointer<UInt8>) { self.original = original }

    mutating func append(original range: Range<Int>) {
        guard !range.isEmpty else { return }
        if let last = pieces.last, !last.isNew, last.range.upperBound == range.lowerBound {
            pieces[pieces.count - 1].range = last.range.lowerBound..<range.upperBound
        } else {
            pieces.append(Piece(isNew: false, range: range))
        }
        count += range.count
    }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        pieces.append(Piece(isNew: true, range: added.count..<added.count + bytes.count))
        added += bytes
        count += bytes.count
    }

    /// Runs `body` with the pieces' bytes, in order.
    func withPieces<T>(_ body: ([UnsafeRawBufferPointer]) throws -> T) rethrows -> T {
        try added.withUnsafeBytes { added in
            try body(pieces.map { piece in
                piece.isNew ? UnsafeRawBufferPointer(rebasing: added[piece.range]) : UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: original[piece.range]))
            })
        }
    }

    /// The document in one array.
    func joined() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count)
        withPieces { pieces in for piece in pieces { out.append(contentsOf: piece) } }
        return out
    }

    /// Whether the document is byte for byte the original.
    var isOriginal: Bool {
        guard count == original.count else { return false }
        return withPieces { pieces in
            var at = 0
            for piece in pieces {
                guard piece.elementsEqual(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: original[at..<at + piece.count]))) else { return false }
                at += piece.count
            }
            return true
        }
    }
}
