import Glibc

/// A blob being read, checked as it goes: every byte passes through SHA-256 (by the reference's
/// `BlobDigest` algorithm), and at the end the count and the digest must be the reference's. A blob
/// changed after it was written (even in place, at the same size) is therefore never served as
/// good: whole reads fail before returning anything, and a stream fails at its end.
struct BlobReader {
    let file: any BlobSource
    let reference: ExternalReference

    init(place: BlobPlace, reference: ExternalReference) throws(ExternalReference.Problem) {
        file = try place.store.open(reference, suite: place.suite)
        self.reference = reference
    }

    /// The whole blob, checked before it is returned.
    func bytes() throws(ExternalReference.Problem) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(reference.size)
        do {
            try forEachChunk { bytes.append(contentsOf: $0) }
        } catch {
            throw ExternalReference.Problem.reading(error) { $0 }
        }
        return bytes
    }

    /// Calls `body` with each piece, then checks the whole; the file is closed at the end. A large
    /// blob is hashed on another thread while `body` runs: a `sha256-tree` digest by a `TreeReader`,
    /// whose worker reads and hashes pieces while this thread uses them (and hashes some when it has
    /// nothing to use), a digest of the whole as one stream (`OverlappedHasher`) while this thread
    /// uses a piece and reads the next.
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        defer { file.close() }
        let read = { [self] (buffer: UnsafeMutableRawBufferPointer) throws -> Int in
            do { return try file.read(into: buffer) } catch {
                throw ExternalReference.Problem.reading(error) { problem("cannot be read: " + $0).reason }
            }
        }
        var total = 0
        func count(_ piece: UnsafeRawBufferPointer) throws {
            total += piece.count
            guard total <= reference.size else { throw problem("is damaged: it holds more than the \(reference.size) bytes its reference records") }
        }
        // `body` gets at most 1 MiB at a time: what it makes of a piece (hex, base64) is held whole.
        func use(_ piece: UnsafeRawBufferPointer) throws {
            for start in stride(from: 0, to: piece.count, by: SHA256Tree.pieceSize) {
                try body(UnsafeRawBufferPointer(rebasing: piece[start..<min(start + SHA256Tree.pieceSize, piece.count)]))
            }
        }
        let digest: BlobDigest
        if reference.digest.algorithm == .sha256Tree && reference.size > OverlappedHasher.worthwhile {
            digest = BlobDigest(.sha256Tree, try TreeReader.read(from: read) { piece in
                try count(piece)
                try use(piece)
            })
        } else {
            let hasher = OverlappedHasher(reference.digest.algorithm)
            try FileDescriptor.forEachPiece(reading: read) { piece, readNext in
                try count(piece)
                try hasher.update(piece) {
                    try use(piece)
                    try readNext()
                }
            }
            digest = hasher.finish()
        }
        guard total == reference.size else { throw problem("is damaged: it holds \(total) bytes, its reference records \(reference.size)") }
        guard digest == reference.digest else { throw problem("is damaged: its \(digest.algorithm.rawValue) digest is not the one its reference records") }
    }

    func problem(_ text: String) -> ExternalReference.Problem {
        ExternalReference.Problem("blob \(reference.directory)/\(reference.uuid) \(text)")
    }
}

extension BlobPlace {
    /// Whether the blob `reference` names holds the value `previous` names: by their digests, or,
    /// when `previous` records the other algorithm (written before the tree digest), by reading the
    /// blob through that one.
    func holdsSame(_ reference: ExternalReference, as previous: ExternalReference) -> Bool {
        guard reference.kind == previous.kind && reference.size == previous.size else { return false }
        guard reference.digest.algorithm != previous.digest.algorithm else { return reference.digest == previous.digest }
        var hasher = BlobHasher(previous.digest.algorithm)
        do {
            try BlobReader(place: self, reference: reference).forEachChunk { hasher.update($0) }
        } catch {
            return false
        }
        return hasher.finish() == previous.digest
    }
}

/// An external value opened for streaming (`read --raw`): its kind and size from the reference, and
/// its bytes checked as they are copied. Errors name the suite and key.
package struct Blob {
    let reader: BlobReader
    let domain: String
    let key: String
    package var size: Int { reader.reference.size }
    /// What the bytes are: a string's UTF-8, data, or an array's or dictionary's binary plist.
    package var kind: ExternalReference.Kind { reader.reference.kind }

    /// Copies the blob to standard output (`descriptor`), checking it on the way. A damaged blob fails
    /// (65) once its end is reached, after the bytes before were written; a failed write is
    /// `.outputFailed`.
    package func copy(toOutput descriptor: Int32) throws {
        try FileDescriptor.borrowing(descriptor) { output in
            do {
                try reader.forEachChunk { piece in
                    do throws(FileDescriptor.Errno) { try output.writeAll(piece) } catch { throw PrefsError.outputFailed(errno: error.code) }
                }
            } catch let problem as ExternalReference.Problem {
                throw problem.error(domain: domain, key: key)
            }
        }
    }

    /// The whole blob, checked before it is returned.
    package func bytes() throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        do {
            try reader.forEachChunk { bytes.append(contentsOf: $0) }
        } catch let problem as ExternalReference.Problem {
            throw problem.error(domain: domain, key: key)
        }
        return bytes
    }

    /// Reads the blob through, only to check it.
    package func verify() throws {
        do {
            try reader.forEachChunk { _ in }
        } catch let problem as ExternalReference.Problem {
            throw problem.error(domain: domain, key: key)
        }
    }
}
