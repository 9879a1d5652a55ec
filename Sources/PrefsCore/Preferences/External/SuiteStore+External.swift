import Glibc

/// Where a changed value goes: by its size (`PREFS_EXTERNAL_THRESHOLD`), or forced.
package enum Placement: Sendable {
    case automatic, external, inline
}

/// How a change deals with external storage (see `SuiteStore.update`).
package struct ExternalOptions: Sendable {
    /// Where the values the change sets go.
    package var placement: Placement
    /// The top-level keys whose external values the change reads: they are read from their blobs
    /// before it runs. nil: every key it may touch. A change that only sets, removes or moves values
    /// reads none.
    package var reading: KeySet?
    /// Blobs already written for this change (values streamed from a file), held until it ends: the
    /// change puts their references in the suite; the ones it does not keep are removed.
    package var prewritten: [PendingBlob]

    package init(placement: Placement = .automatic, reading: KeySet? = nil, prewritten: [PendingBlob] = []) {
        self.placement = placement
        self.reading = reading
        self.prewritten = prewritten
    }
}

/// Where a suite's external values are: a blob store and the suite's name in it.
package struct BlobPlace: Sendable {
    package let store: any BlobStore
    package let suite: String
}

extension SuiteStore {
    /// Where the external values of a location are; nil when its values stay inline (a file that is
    /// not a suite, registered defaults) or there is no blob store (no data home).
    package func blobPlace(for location: SuiteLocation) throws -> BlobPlace? {
        let storage = storage(for: location)
        guard let suite = storage.blobSuite(for: location), let blobs = try storage.blobStore() else { return nil }
        return BlobPlace(store: blobs, suite: suite)
    }

    func blobPlace(for target: SuiteTarget) throws -> BlobPlace? {
        guard target.blobSuite != nil else { return nil }
        return try blobPlace(for: target.location)
    }

    /// Removes blobs no suite refers to: of a suite that is gone.
    func discard(_ references: [ExternalReference], place: BlobPlace?) {
        guard let place else { return }
        for reference in references { place.store.remove(reference, suite: place.suite) }
    }

    /// Releases and removes blobs written for a change that did not happen.
    package func discard(_ pending: [PendingBlob], target: SuiteTarget) {
        discard(pending, place: try? blobPlace(for: target))
    }

    func discard(_ pending: [PendingBlob], place: BlobPlace?) {
        guard let place else {
            for blob in pending { blob.release() }
            return
        }
        for blob in pending { blob.remove(from: place) }
        for blob in pending.reversed() { blob.removeMade() }
    }

    /// The external value a stored value refers to; nil when it is not a reference (or its place keeps
    /// values inline).
    func reference(in value: PrefValue, place: BlobPlace?, domain: String, key: String) throws -> ExternalReference? {
        // Most values are not dictionaries with the marker.
        guard place != nil, case .dictionary(let fields) = value, fields[ExternalReference.marker] != nil else { return nil }
        do {
            return try ExternalReference.parse(value)
        } catch {
            throw PrefsError.badExternalValue(domain: domain, key: key, reason: "malformed reference: \(error.reason)")
        }
    }

    /// A stored top-level value with its blob read in, when it is a reference.
    func materialized(_ value: PrefValue, place: BlobPlace?, domain: String, key: String) throws -> PrefValue {
        guard let reference = try reference(in: value, place: place, domain: domain, key: key), let place else { return value }
        return try materialize(reference, place: place, domain: domain, key: key)
    }

    func materialize(_ reference: ExternalReference, place: BlobPlace, domain: String, key: String) throws -> PrefValue {
        do {
            let bytes = try BlobReader(place: place, reference: reference).bytes()
            switch reference.kind {
            case .data: return .data(bytes)
            case .string:
                guard let text = String(validating: bytes, as: UTF8.self) else { throw ExternalReference.Problem("the blob is not UTF-8") }
                return .string(text)
            case .array, .dictionary:
                let value: PrefValue
                do { value = try PropertyList.decode(bytes, as: .binary) } catch { throw ExternalReference.Problem("the blob is not a binary property list") }
                guard value.typeName == reference.kind.rawValue else { throw ExternalReference.Problem("the blob holds \(value.typeNameWithArticle), not the \(reference.kind.rawValue) the reference says") }
                return value
            }
        } catch let problem as ExternalReference.Problem {
            throw problem.error(domain: domain, key: key)
        }
    }

    /// A domain's stored contents with every external value read in (what `export` and `find` see).
    package func loadMaterialized(_ domain: Domain) throws -> StoredSuite? {
        try rereadingReplaced {
            let location = try location(of: domain)
            guard var suite = try load(at: location) else { return nil }
            suite.contents = try materializedContents(suite.contents, place: try blobPlace(for: location), domain: domain.displayName)
            return suite
        }
    }

    /// Runs `read` (which reads stored values and opens their blobs) again, up to twice, when a blob
    /// it went for was missing: a writer that replaces an external value removes the old blob as soon
    /// as the suite naming the new one is committed, and a read that loaded the suite just before
    /// still names the old one. Read again, it finds the new value. A blob that really is missing is
    /// missing every time (65). Only the opening of a blob can find it missing, before any of it was
    /// used, so nothing is handed over twice.
    func rereadingReplaced<T>(_ read: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try read()
            } catch PrefsError.badExternalValue(_, _, _, missing: true) where attempt < 2 {
                attempt += 1
            }
        }
    }

    func materializedContents(_ contents: PrefDictionary, place: BlobPlace?, domain: String) throws -> PrefDictionary {
        guard let place else { return contents }
        var result = contents
        for entry in contents {
            guard let reference = try reference(in: entry.value, place: place, domain: domain, key: entry.key) else { continue }
            result[entry.key] = try materialize(reference, place: place, domain: domain, key: entry.key)
        }
        return result
    }

    /// The open blob of a top-level value as `Layers.value(at:materializing: false)` gave it, for
    /// streaming it (`read --raw`), checked as it is read; nil when the value is not external.
    /// `place` is `Layers.blobPlace(for:)` of the value's origin.
    package func openExternal(_ value: PrefValue, place: BlobPlace?, key: String) throws -> Blob? {
        guard let place, let reference = try reference(in: value, place: place, domain: place.suite, key: key) else { return nil }
        do throws(ExternalReference.Problem) {
            return Blob(reader: try BlobReader(place: place, reference: reference), domain: place.suite, key: key)
        } catch {
            throw error.error(domain: place.suite, key: key)
        }
    }

    /// The real type of such a value (`read-type`): an external one's blob is checked in full, as every
    /// read of it is, so a damaged value never answers as good.
    package func typeName(of value: PrefValue, place: BlobPlace?, key: String) throws -> String {
        guard let blob = try openExternal(value, place: place, key: key) else { return value.typeName }
        try blob.verify()
        return blob.kind.rawValue
    }
}

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
            let old = original[key]
            if let before = readIn[bytesKey], before == value, let old {
                contents[key] = old
            } else if let old, old == value {
                // unchanged
            } else if let reference = try? ExternalReference.parse(value) {
                guard known.contains(reference) else { throw reserved(key) }
                if !canHoldReferences {
                    // A streamed value for a suite whose format cannot hold a reference: inline.
                    contents[key] = try store.materialize(reference, place: place, domain: place.suite, key: key)
                } else if let previous = originalReferences[bytesKey], previous.uuid != reference.uuid,
                          place.holdsSame(reference, as: previous), let old {
                    contents[key] = old
                }
            } else if ExternalReference.containsMarker(value) {
                throw reserved(key)
            } else if let previous = originalReferences[bytesKey], let old, let (kind, bytes) = SuiteStore.blobBytes(value),
                      previous.holds(kind: kind, bytes: bytes) {
                // The value the blob holds: a no-op, wherever the value would go (--inline too).
                contents[key] = old
            } else if canHoldReferences, let (kind, blob) = try externalBlob(for: value) {
                if writesBlobs {
                    let pending = try place.store.write(suite: place.suite, key: key, kind: kind) { sink in
                        try blob.withUnsafeBytes { try sink.write($0) }
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
