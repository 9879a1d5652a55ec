/// Changing a few top-level keys of a large document without decoding and re-encoding all of it.
///
/// The whole document is still checked exactly as `decode` checks it — a document that would not
/// decode is refused with the same error, so a damaged suite is never written over — but only the
/// values of the keys the change names are decoded, and the new document is the old one with just
/// those entries replaced, inserted or removed. For a document prefs wrote, the result is byte for
/// byte what a full re-encode would give (tests compare the two).
package enum TopLevelPatch {
    package enum Result: Equatable {
        /// The change left every value as it was: nothing to write.
        case unchanged
        /// The new document.
        case patched([UInt8])
        /// This document cannot be patched (another format, a key that appears twice, a binary
        /// plist that would need wider references…): decode and re-encode it in full instead.
        case unsupported
    }

    /// Applies `change` to the top-level `keys` of `bytes`. `change` sees a dictionary holding only
    /// those keys (the ones present) and may set or remove only them.
    package static func apply(to bytes: UnsafeBufferPointer<UInt8>, keys: KeySet,
                             change: (inout PrefDictionary) throws -> Void) throws -> Result {
        switch try applyInPieces(to: bytes, keys: keys, change: change) {
        case .unchanged: .unchanged
        case .patched(let document): .patched(document.joined())
        case .unsupported: .unsupported
        }
    }

    /// What `apply` gives, with the new document as pieces of the old one and new bytes.
    enum PiecesResult {
        case unchanged
        case patched(PatchedDocument)
        case unsupported
    }

    /// `apply`, with the new document left in pieces (to be written out without joining them).
    static func applyInPieces(to bytes: UnsafeBufferPointer<UInt8>, keys: KeySet,
                              change: (inout PrefDictionary) throws -> Void) throws -> PiecesResult {
        switch try PropertyList.detect(bytes) {
        case .xml:
            guard let patch = try XMLPlistPatch(bytes, keys: keys) else { return .unsupported }
            return try run(patch.current, keys: keys, change: change) { try patch.applying($0) }
        case .binary:
            guard let patch = try BinaryPlistPatch(bytes, keys: keys) else { return .unsupported }
            return try run(patch.current, keys: keys, change: change) { try patch.applying($0) }
        default:
            return .unsupported
        }
    }

    /// A key, its place in the declared `KeySet`'s `sorted`, and its new value (nil: remove it). A
    /// struct, not a tuple: an array of tuples has its type built at run time on first use.
    struct Edit {
        let key: String
        let slot: Int
        let value: PrefValue?
    }

    static func run(_ current: PrefDictionary, keys: KeySet, change: (inout PrefDictionary) throws -> Void,
                    apply: ([Edit]) throws -> PatchedDocument?) throws -> PiecesResult {
        var changed = current
        try change(&changed)
        guard changed != current else { return .unchanged }
        var edits: [Edit] = []
        for slot in keys.sorted.indices {
            let key = keys.sorted[slot]
            if changed[key] != current[key] { edits.append(Edit(key: key, slot: slot, value: changed[key])) }
        }
        guard changed.keys.allSatisfy(keys.contains) else {
            throw PrefsError.internalError("a change touched keys it did not declare")
        }
        return try apply(edits).map(PiecesResult.patched) ?? .unsupported
    }
}
