/// What a lookup through a `FileReader` came to: the value of the key (nil when it is absent), or
/// undecided — the document is damaged, or uses something the streaming reader leaves to the full
/// one — and the caller must read it whole (`PropertyList.lookup(_:in:)` on its bytes) for the answer
/// or the exact error.
///
/// A streaming lookup accepts a document only when the whole-document lookup would accept it with
/// the same value (tests check this on the conformance corpora, on random documents and on damaged
/// ones), so its answer never differs from that one, and its failures are that one's messages.
package enum StreamedLookup: Equatable, Sendable {
    case found(PrefValue?)
    case undecided
}

/// Thrown inside the streaming readers: the document is damaged or unusual; the whole-document
/// reader decides.
struct Undecided: Error {}

extension PropertyList {
    /// The value of one top-level key, read through `reader` with memory that does not grow with the
    /// document (binary and XML plists); `.undecided` for other formats and whatever the streaming
    /// readers leave to the whole-document one.
    static func lookup(_ key: String, reading reader: FileReader) throws -> StreamedLookup {
        guard let prefix = try reader.bytes(at: 0, count: Swift.min(reader.size, 4096)) else { return .undecided }
        return try lookup(key, reading: reader, as: prefix.withUnsafeBufferPointer { try? detect($0) })
    }

    /// The streaming reader of `format` (the XML one through a window of `bufferSize` bytes, with a
    /// second thread from `split`).
    static func lookup(_ key: String, reading reader: FileReader, as format: PlistFormat?, bufferSize: Int = 1 << 17,
                       split: XMLPlistStreamLookup.Split = .automatic) throws -> StreamedLookup {
        do {
            switch format {
            case .binary?: return .found(try BinaryPlistFileLookup.lookup(key, in: reader))
            case .xml?: return .found(try XMLPlistStreamLookup.lookup(key, in: reader, bufferSize: bufferSize, split: split))
            default: return .undecided
            }
        } catch is Undecided {
            return .undecided
        }
    }

    /// The streaming lookup of `bytes` (binary or XML) alone, the XML one through a window of
    /// `bufferSize` bytes and, given `secondThreadFrom`, with a second thread skipping entries from
    /// that offset on; the fuzzer checks it against the whole-document lookup.
    package static func streamedLookup(_ key: String, in bytes: UnsafeBufferPointer<UInt8>, bufferSize: Int, secondThreadFrom: Int? = nil) throws -> StreamedLookup {
        try lookup(key, reading: FileReader(bytes), as: try? detect(bytes), bufferSize: bufferSize, split: secondThreadFrom.map { .at($0) } ?? .none)
    }
}
