import Glibc

/// One change's dealings with external storage, inside `SuiteStore.update` (under the suite's lock):
/// read in the external values the change reads; after it, give back the references of values it
/// left alone, refuse values shaped like references, and move large new values to new blobs. Once
/// the suite is committed, the blobs it no longer refers to are removed — never before, so a crash
/// leaves at worst an orphan blob (for `gc`), never a reference without its blob.
final class ExternalTransaction {
    let store: SuiteStore
    let place: BlobPlace
    let options: ExternalOptions
    let threshold: Int
    let writesBlobs: Bool
    /// Blobs this change wrote (or was given); the ones its outcome does not refer to; and the old
    /// ones it left without a reference.
    private var written: [PendingBlob]
    private var unreferencedWritten: [PendingBlob] = []
    private var orphaned: [ExternalReference] = []
    /// Set just before the suite is replaced: after that, an error may still have committed.
    var committing = false
    /// Whether `committed` has cleaned up already.
    private var cleanedUp = false
    /// Whether the store kept a version of the change (`StoredChange.recorded`): the version names
    /// the old blobs the change left without a reference, which then stay; and the blobs the
    /// versions it pruned named, which go unless the suite or a kept version still names them.
    private var versionRecorded = false
    private var pruned: [ExternalReference] = []
    let location: SuiteLocation

    init?(store: SuiteStore, target: SuiteTarget, options: ExternalOptions, writesBlobs: Bool = true) throws {
        guard let place = try store.blobPlace(for: target) else {
            guard options.prewritten.isEmpty else { throw PrefsError.internalError("blobs written for a file without external storage") }
            return nil
        }
        self.store = store
        self.place = place
        location = target.location
        self.options = options
        threshold = try store.environment.externalThreshold()
        self.writesBlobs = writesBlobs
        written = options.prewritten
    }

    /// Runs `change` on `contents` (all of a suite, or just the `scope` keys a patch decoded).
    func run(_ contents: inout PrefDictionary, scope: KeySet?, format: PlistFormat?, _ change: (inout PrefDictionary) throws -> Void) throws {
        let original = contents
        var originalReferences: [[UInt8]: ExternalReference] = [:]
        // The references a value may be: the suite's own (moved, or left as they were) and the
        // prewritten ones, exactly as they are (an edited copy would name the blob wrongly).
        var known = options.prewritten.map(\.reference)
        var readIn: [[UInt8]: PrefValue] = [:]
        for entry in original where scope?.contains(entry.key) ?? true {
            guard let reference = try store.reference(in: entry.value, place: place, domain: place.suite, key: entry.key) else { continue }
            originalReferences[Array(entry.key.utf8)] = reference
            known.append(reference)
            if options.reading?.contains(entry.key) ?? true {
                let value = try store.materialize(reference, place: place, domain: place.suite, key: entry.key)
                readIn[Array(entry.key.utf8)] = value
                contents[entry.key] = value
            }
        }
        try change(&contents)

        // Keys the change removed need nothing here: their blobs are found orphaned below.
        let keys = scope.map(Array.init) ?? contents.keys
        var kept = Set<String>()
        // Only suites in a format that keeps a reference's integers (its marker, its size) get new
        // blobs: not OpenStep, which writes numbers as text.
        let canHoldReferences = format.map { $0.holding(.integer(1)) == .kept } ?? true
        for key in keys {
            guard let value = contents[key] else { continue }
            let bytesKey = Array(key.utf8)
            let old = original[key], previous = originalReferences[bytesKey]
            let reference = { try? ExternalReference.parse(value) }
            var blob: (kind: ExternalReference.Kind, bytes: [UInt8])?
            let facts = ExternalPlan.Facts(
                hadValue: old != nil, readInAndUnchanged: readIn[bytesKey].map { $0 == value } ?? false, unchanged: old == value,
                canHoldReferences: canHoldReferences, hadReference: previous != nil,
                shape: {
                    if let reference = reference() { return .reference(known: known.contains(reference)) }
                    return ExternalReference.containsMarker(value) ? .markerInside : .plain
                },
                sameAsOldBlob: {
                    guard let previous, let reference = reference(), previous.uuid != reference.uuid else { return false }
                    return self.place.holdsSame(reference, as: previous)
                },
                oldBlobHoldsIt: {
                    guard let previous, let (kind, bytes) = SuiteStore.blobBytes(value) else { return false }
                    return previous.holds(kind: kind, bytes: bytes)
                },
                goesExternal: {
                    blob = try self.externalBlob(for: value)
                    return blob != nil
                })
            switch try ExternalPlan.decide(facts) {
            case .restoreStored:
                contents[key] = old
            case .keep:
                break
            case .refuse:
                throw reserved(key)
            case .readIn:
                // A streamed value for a suite whose format cannot hold a reference: inline.
                contents[key] = try store.materialize(reference()!, place: place, domain: place.suite, key: key)
            case .writeBlob:
                if writesBlobs, let blob {
                    let pending = try place.store.write(suite: place.suite, key: key, kind: blob.kind) { sink in
                        try blob.bytes.withUnsafeBytes { try sink.write($0) }
                    }
                    written.append(pending)
                    contents[key] = pending.reference.value
                }
            }
            if let reference = try? contents[key].flatMap({ try ExternalReference.parse($0) }) {
                // Two keys naming one blob would leave one dangling when the other goes.
                guard kept.insert(reference.uuid).inserted else { throw reserved(key) }
            }
        }
        orphaned = originalReferences.values.filter { !kept.contains($0.uuid) }
        unreferencedWritten = written.filter { !kept.contains($0.reference.uuid) }
    }

    /// The suite is committed (`StoredChange.didCommit`), and no one else can look at it yet: releases
    /// the new blobs it now refers to and removes what it no longer refers to, so that no `check`
    /// ever finds an old blob a live writer is about to remove (see `finish`).
    func committed() {
        guard !cleanedUp else { return }
        cleanedUp = true
        for blob in written where !unreferencedWritten.contains(where: { $0 === blob }) { blob.release() }
        for blob in unreferencedWritten { blob.remove(from: place) }
        if !versionRecorded { for reference in orphaned { place.store.remove(reference, suite: place.suite) } }
        guard !pruned.isEmpty, let named = try? store.blobsNamed(at: location) else { return }
        for reference in pruned where !named.contains(reference.blobID) {
            place.store.remove(reference, suite: place.suite)
        }
    }

    /// The store kept a version of the change, pruning `versions`.
    func recorded(pruning versions: [SuiteVersion]) {
        versionRecorded = true
        pruned = versions.flatMap(\.references)
    }

    /// Releases the new blobs (held until now, so `gc` left them alone) and removes what the outcome
    /// leaves unreferenced: after a commit (or a change that changed nothing), the old blobs the suite
    /// dropped and new ones it did not take — unless `committed` did so already, under the suite's
    /// lock; after a failure before the commit, every new blob. A failure during the commit keeps
    /// everything (`gc` decides later).
    func finish(succeeded: Bool) {
        if succeeded {
            committed()
            return
        }
        guard !committing else {
            for blob in written { blob.release() }
            return
        }
        for blob in written { blob.remove(from: place) }
        for blob in written.reversed() { blob.removeMade() }
    }

    func reserved(_ key: String) -> PrefsError {
        .reservedKey(domain: place.suite, key: key, reserved: ExternalReference.marker)
    }

    /// The kind and bytes of the blob a changed value gets, or nil to keep it inline. A blob is a
    /// string's UTF-8, the data, or a container's binary plist (encoded only when it could be large).
    func externalBlob(for value: PrefValue) throws -> (ExternalReference.Kind, [UInt8])? {
        guard options.placement != .inline else { return nil }
        let forced = options.placement == .external
        switch value {
        case .string(let text): return forced || text.utf8.count > threshold ? (.string, Array(text.utf8)) : nil
        case .data(let bytes): return forced || bytes.count > threshold ? (.data, bytes) : nil
        case .array, .dictionary:
            guard forced || ExternalTransaction.estimatedSize(value) * 2 > threshold else { return nil }
            let bytes = try PropertyList.encode(value, as: .binary)
            guard forced || bytes.count > threshold else { return nil }
            let kind: ExternalReference.Kind = if case .array = value { .array } else { .dictionary }
            return (kind, bytes)
        default: return nil
        }
    }

    /// About the size of a value's binary plist, never under half of it.
    static func estimatedSize(_ value: PrefValue) -> Int {
        switch value {
        case .string(let text): return text.utf8.count + 2
        case .data(let bytes): return bytes.count + 2
        case .array(let elements): return elements.reduce(2) { $0 + 2 + estimatedSize($1) }
        case .dictionary(let dictionary): return dictionary.reduce(2) { $0 + 4 + $1.key.utf8.count + estimatedSize($1.value) }
        default: return 9
        }
    }
}
