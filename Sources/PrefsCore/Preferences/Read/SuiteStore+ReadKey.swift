/// What `read DOMAIN KEY` prints from: a value and the layer that gave it, or an external string or
/// data value still in its blob, to stream (a 100 MB value is never held in memory to be printed).
package enum ReadAnswer {
    case value(PrefValue, Origin)
    case blob(Blob, Origin)
}

extension SuiteStore {
    /// `read DOMAIN KEY [--default VALUE]`: the value at `path` and its layer. With `streaming`, a
    /// top-level external string or data value comes back as its open blob (checked as it is read).
    /// When the key or the suite is absent (what would exit 1), `fallback` is the answer, with the
    /// origin `command-line`; every other failure (a malformed layer, a path through a scalar, an
    /// unreadable file) is still thrown.
    package func read(_ path: PrefKeyPath, in domain: Domain, scope: ReadScope = ReadScope(), fallback: PrefValue? = nil, streaming: Bool = false) throws -> ReadAnswer {
        do {
            return try rereadingReplaced { try readOnce(path, in: domain, scope: scope, streaming: streaming) }
        } catch let error as PrefsError where fallback != nil && SuiteStore.isAbsence(error) {
            return .value(fallback!, .commandLine("--default"))
        }
    }

    private func readOnce(_ path: PrefKeyPath, in domain: Domain, scope: ReadScope, streaming: Bool) throws -> ReadAnswer {
        guard streaming, path.components.count == 1, domain != .standardInput else {
            let (value, origin) = try valueOnce(at: path, in: domain, scope: scope, materializing: true)
            return .value(value, origin)
        }
        let (value, origin) = try valueOnce(at: path, in: domain, scope: scope, materializing: false)
        // Only a reference needs its blob place (which reads the layers again).
        guard ExternalReference.isMarked(value) else { return .value(value, origin) }
        let place = try layers(of: domain, scope: scope).blobPlace(for: origin)
        guard let blob = try openExternal(value, place: place, key: path.display) else { return .value(value, origin) }
        guard blob.kind == .string || blob.kind == .data else {
            return .value(try materialized(value, place: place, domain: place?.suite ?? domain.displayName, key: path.first), origin)
        }
        return .blob(blob, origin)
    }

    /// `read --raw` with `--default`: the bytes of the value at `path`, or of `fallback` (a string or
    /// data value) when the key or suite is absent.
    package func raw(at path: PrefKeyPath, in domain: Domain, scope: ReadScope, fallback: PrefValue?) throws -> RawValue {
        do {
            return try raw(at: path, in: domain, scope: scope)
        } catch let error as PrefsError where fallback != nil && SuiteStore.isAbsence(error) {
            switch fallback! {
            case .string(let text): return .bytes(Array(text.utf8))
            case .data(let bytes): return .bytes(bytes)
            case let other:
                throw PrefsError.typeMismatch(domain: domain.displayName, key: path.display,
                                              reason: "--raw prints strings and data, and the --default value is \(other.typeNameWithArticle)")
            }
        }
    }

    /// Whether a read failed only because what it asked for is not there (exit 1).
    static func isAbsence(_ error: PrefsError) -> Bool {
        switch error {
        case .keyNotFound, .suiteNotFound: return true
        default: return false
        }
    }
}

extension Blob {
    /// Calls `body` with each piece of the blob as it is read, then checks the whole against the
    /// reference (a damaged blob fails with 65 naming the suite and key, after the pieces before its
    /// end were handed over).
    package func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        do {
            try reader.forEachChunk(body)
        } catch let problem as ExternalReference.Problem {
            throw problem.error(domain: domain, key: key)
        }
    }
}
