import Glibc

/// A value read from a file or standard input for `write KEY -data @FILE` / `-string-file FILE`.
package enum StreamedValue {
    /// Small (or for a place that keeps values inline): the value itself.
    case inline(PrefValue)
    /// Large: already in a new blob, streamed there without being held in memory, and held until
    /// the change that commits its reference (`ExternalOptions.prewritten`) ends.
    case external(PendingBlob)
}

extension SuiteStore {
    /// Reads a string or data value from `source` (a path, or `-` for standard input) for `key` of
    /// `target`. A value over the threshold (or any, with `.external`) of a suite goes straight to a new
    /// blob as it is read; otherwise it is read whole. A string must be UTF-8.
    package func readValue(from source: String, kind: ExternalReference.Kind, key: String, for target: SuiteTarget,
                          placement: Placement) throws -> StreamedValue {
        guard source != "-" else {
            return try FileDescriptor.borrowing(0) { input in
                try readValue(from: input, name: "standard input", kind: kind, key: key, for: target, placement: placement)
            }
        }
        let input: FileDescriptor
        do {
            input = try FileDescriptor.open(source, O_RDONLY)
        } catch {
            if error == .notFound { throw PrefsError.fileNotFound(path: source) }
            throw PrefsError.cannotRead(path: source, errno: error.code)
        }
        return try readValue(from: input, name: source, kind: kind, key: key, for: target, placement: placement)
    }

    func readValue(from input: borrowing FileDescriptor, name: String, kind: ExternalReference.Kind, key: String, for target: SuiteTarget,
                   placement: Placement) throws -> StreamedValue {
        func readError(_ error: FileDescriptor.Errno) -> PrefsError { .cannotRead(path: name, errno: error.code) }
        func inline(_ bytes: [UInt8]) throws -> StreamedValue {
            guard kind == .string else { return .inline(.data(bytes)) }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw PrefsError.malformed(source: name, format: nil, reason: "not UTF-8 text") }
            return .inline(.string(text))
        }
        let info: stat
        do { info = try input.status() } catch { throw readError(error) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw PrefsError.cannotRead(path: name, errno: EISDIR) }
        guard let place = try blobPlace(for: target), placement != .inline else {
            // Held in memory, as a document is: bounded as one.
            let limit = DocumentInput.maximumSize
            let bytes: [UInt8]
            do { bytes = try input.readAll(sizeHint: Swift.min(Int(info.st_size), limit), limit: limit) } catch { throw readError(error) }
            guard bytes.count <= limit else { throw DocumentInput.tooLarge(name, limit: limit, what: "value kept inline") }
            return try inline(bytes)
        }
        let threshold = try environment.externalThreshold()
        // The first threshold + 1 bytes decide, unless told: a value that ends within them is inline.
        var head: [UInt8] = []
        if placement == .automatic {
            if info.st_mode & S_IFMT == S_IFREG && Int(info.st_size) <= threshold {
                // At most threshold + 1 bytes, should the file have grown: then the rest is streamed.
                do { head = try input.readAll(sizeHint: Int(info.st_size), limit: threshold) } catch { throw readError(error) }
                if head.count <= threshold { return try inline(head) }
            } else {
                head = [UInt8](repeating: 0, count: threshold + 1)
                let count: Int
                do { count = try head.withUnsafeMutableBytes { try input.read(into: $0) } } catch let error as FileDescriptor.Errno { throw readError(error) }
                head.removeLast(head.count - count)
                if count <= threshold { return try inline(head) }
            }
        }
        var validator = kind == .string ? UTF8Validator() : nil
        let pending = try place.store.write(suite: place.suite, key: key, kind: kind) { sink in
            func put(_ bytes: UnsafeRawBufferPointer, while readNext: () throws -> Void) throws {
                if validator?.feed(bytes) == false { throw PrefsError.malformed(source: name, format: nil, reason: "not UTF-8 text") }
                try sink.write(bytes, while: readNext)
            }
            try head.withUnsafeBytes { try put($0) {} }
            do { try input.forEachChunk(after: head.count, overlapping: put) } catch let error as FileDescriptor.Errno { throw readError(error) }
            if validator?.finish() == false { throw PrefsError.malformed(source: name, format: nil, reason: "not UTF-8 text") }
        }
        return .external(pending)
    }
}

/// Checks UTF-8 that arrives in pieces: a sequence cut between two pieces is checked once whole.
struct UTF8Validator {
    private var carry: [UInt8] = []

    /// False when the bytes so far are not UTF-8.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var piece = carry
        piece.append(contentsOf: bytes)
        // Keep back a final sequence that is not complete yet (at most 3 bytes).
        var cut = piece.count
        var back = 0
        while back < min(3, piece.count) {
            let byte = piece[piece.count - 1 - back]
            if byte & 0xC0 != 0x80 {
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if length > back + 1 { cut = piece.count - 1 - back }
                break
            }
            back += 1
        }
        carry = Array(piece[cut...])
        return String(validating: piece[..<cut], as: UTF8.self) != nil
    }

    /// False when the text ended inside a sequence.
    func finish() -> Bool { carry.isEmpty }
}
