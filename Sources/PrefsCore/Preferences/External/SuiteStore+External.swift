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
