/// What `load` did to each suite of a dump, in the dump's order.
package struct LoadReport: Sendable {
    package enum Outcome: Sendable {
        /// Made exactly the dump's contents: how many top-level keys were added, replaced, removed.
        case restored(added: Int, replaced: Int, removed: Int)
        /// Already exactly so: nothing written.
        case unchanged
        /// Not restored (its own error; the other suites were).
        case failed(PrefsError)
    }

    package struct Entry: Sendable {
        package let suite: DumpedSuite
        package let outcome: Outcome
    }

    package var entries: [Entry] = []

    package var changed: Bool { entries.contains { if case .restored = $0.outcome { true } else { false } } }
    package var firstFailure: PrefsError? { entries.lazy.compactMap { if case .failed(let error) = $0.outcome { error } else { nil } }.first }
}

extension SuiteStore {
    /// `load FILE|-`: restores a dump (`dump`). All or nothing for the document: it is read and
    /// checked whole first — its structure, names (none twice) and values, then each suite's keys,
    /// values and schema as its restore will check them — and a fault anywhere (65) changes nothing;
    /// its large string and data values go, as they are read, into new blobs of their suites (never
    /// held in memory), which are removed then. Then each suite is made exactly the dump's contents,
    /// in one atomic change of its own: keys the dump does not have are removed, and an equal suite
    /// is not written. A suite whose store fails (a corrupt file, a held lock) is reported and the
    /// others are still restored. Suites the dump does not hold are left alone. With `dryRun`, every
    /// check is made and nothing is written (no blob, no lock).
    package func load(from source: String, dryRun: Bool = false) throws -> LoadReport {
        var suites: [LoadedSuite] = []
        var written: [(PendingBlob, BlobPlace)] = []
        let checks: [Result<LoadReport.Outcome, PrefsError>]
        let threshold = try environment.externalThreshold()
        do {
            try withReader(of: source) { read in
                try withoutActuallyEscaping(read) { read in
                    var parser = DumpParser(store: self, dryRun: dryRun, threshold: threshold,
                                            reader: DumpReader(name: DocumentInput.name(of: source), read: read))
                    defer { (suites, written) = (parser.suites, parser.written) }
                    try parser.parse()
                }
            }
            checks = try suites.map(checkBeforeWriting)
        } catch {
            // The last written first, so each blob's new directories are empty when it goes.
            for (blob, place) in written.reversed() { discard([blob], place: place) }
            throw error
        }
        var report = LoadReport()
        for (suite, check) in zip(suites, checks) {
            let outcome: LoadReport.Outcome
            do {
                outcome = dryRun ? try check.get() : try restore(suite)
            } catch let error as PrefsError {
                outcome = .failed(error)
            }
            report.entries.append(LoadReport.Entry(suite: suite.suite, outcome: outcome))
        }
        return report
    }

    /// Runs `body` with a reader of the bytes of a file (through the file system) or of standard input.
    func withReader(of source: String, _ body: ((UnsafeMutableRawBufferPointer) throws -> Int) throws -> Void) throws {
        guard source == "-" else { return try fileSystem.withReader(of: source, body) }
        try FileDescriptor.borrowing(0) { input in
            try body { buffer in
                do throws(FileDescriptor.Errno) { return try input.read(into: buffer) } catch {
                    throw PrefsError.cannotRead(path: "standard input", errno: error.code)
                }
            }
        }
    }

    func target(of suite: DumpedSuite) -> SuiteTarget {
        SuiteTarget(location: suite.location, displayName: suite.displayName, blobSuite: storage(for: suite.location).blobSuite(for: suite.location))
    }

    /// The suite made exactly the dump's contents, in one atomic change.
    func restore(_ loaded: LoadedSuite) throws -> LoadReport.Outcome {
        var counts = (added: 0, replaced: 0, removed: 0)
        let restored = SuiteStore.contents(of: loaded) { $0?.reference.value }
        let changed = try update(target(of: loaded.suite), removingEmpty: loaded.suite.section == .registered,
                                 external: ExternalOptions(reading: [], prewritten: loaded.pending)) { contents in
            counts = SuiteStore.counts(from: contents, to: loaded, place: loaded.place)
            contents = restored
        }
        return changed ? .restored(added: counts.added, replaced: counts.replaced, removed: counts.removed) : .unchanged
    }

    /// What restoring a suite would do, checked as its change will check it, with nothing written:
    /// a fault of the document (a key no suite stores, a value its file's format cannot hold or its
    /// schema refuses) is thrown; one of the store (its file or its schema cannot be read now) is
    /// the result's failure, left for the restore to meet and report.
    func checkBeforeWriting(_ loaded: LoadedSuite) throws -> Result<LoadReport.Outcome, PrefsError> {
        let stored: StoredSuite?
        let schema: LoadedSchema?
        do {
            stored = try load(at: loaded.suite.location)
            schema = try self.schema(for: target(of: loaded.suite))
        } catch let error as PrefsError {
            return .failure(error)
        }
        return .success(try check(loaded, against: stored, schema: schema))
    }

    func check(_ loaded: LoadedSuite, against stored: StoredSuite?, schema: LoadedSchema?) throws -> LoadReport.Outcome {
        let before = stored?.contents ?? PrefDictionary()
        // A streamed value stands in as a string: what the checks look at is the keys and the format.
        let after = SuiteStore.contents(of: loaded) { _ in .string("") }
        for entry in after where ExternalReference.containsMarker(entry.value) {
            throw PrefsError.reservedKey(domain: loaded.suite.displayName, key: entry.key, reserved: ExternalReference.marker)
        }
        try after.checkStoredKeys(comparedTo: before, domain: loaded.suite.displayName)
        if !after.isEmpty { try storage(for: loaded.suite.location).checkStorable(after, format: stored?.format) }
        if let schema { try check(loaded, against: before, schema: schema) }
        let counts = SuiteStore.counts(from: before, to: loaded, place: loaded.place)
        guard counts != (0, 0, 0) || (stored == nil && !after.isEmpty) else { return .unchanged }
        return .restored(added: counts.0, replaced: counts.1, removed: counts.2)
    }

    /// The suite's schema applied to the values a restore changes (a streamed one is checked by its
    /// restore, once its blob is written).
    func check(_ loaded: LoadedSuite, against before: PrefDictionary, schema: LoadedSchema) throws {
        for (key, value) in loaded.entries {
            guard case .inline(let new) = value, before[key] != new else { continue }
            if let reason = schema.schema.violation(key: key, value: new) {
                throw PrefsError.schemaViolation(domain: loaded.suite.displayName, key: PrefKeyPath.escape(key), reason: reason, schema: schema.source)
            }
        }
    }

    /// The contents a loaded suite restores, a streamed value given by `streamed`.
    static func contents(of loaded: LoadedSuite, streamed: (PendingBlob?) -> PrefValue?) -> PrefDictionary {
        var contents = PrefDictionary()
        for entry in loaded.entries {
            switch entry.value {
            case .inline(let value): contents[entry.key] = value
            case .streamed(_, _, _, let pending): contents[entry.key] = streamed(pending) ?? .string("")
            }
        }
        return contents
    }

    /// How many top-level keys a restore adds, replaces (a different value) and removes. A value and
    /// an external reference are the same when the reference's blob holds exactly that value.
    static func counts(from stored: PrefDictionary, to loaded: LoadedSuite, place: BlobPlace?) -> (added: Int, replaced: Int, removed: Int) {
        var counts = (added: 0, replaced: 0, removed: 0)
        var kept = Set<[UInt8]>()
        for (key, value) in loaded.entries {
            kept.insert(Array(key.utf8))
            guard let old = stored[key] else { counts.added += 1; continue }
            if !same(old, value, place: place) { counts.replaced += 1 }
        }
        counts.removed = stored.keys.filter { !kept.contains(Array($0.utf8)) }.count
        return counts
    }

    static func same(_ stored: PrefValue, _ loaded: LoadedValue, place: BlobPlace?) -> Bool {
        let reference = place == nil ? nil : try? ExternalReference.parse(stored)
        switch loaded {
        case .inline(let value):
            if value == stored { return true }
            guard let reference, let (kind, bytes) = blobBytes(value) else { return false }
            return reference.holds(kind: kind, bytes: bytes)
        case .streamed(let kind, let size, let digests, let pending):
            if let reference, let pending, let place { return place.holdsSame(pending.reference, as: reference) }
            if let reference { return digests.contains { reference.holds(kind: kind, size: size, digest: $0) } }
            guard let (storedKind, bytes) = blobBytes(stored), storedKind == kind && bytes.count == size else { return false }
            return BlobDigest.of(bytes, by: digests[0].algorithm) == digests[0]
        }
    }

    /// The kind and bytes a value's blob would hold.
    static func blobBytes(_ value: PrefValue) -> (ExternalReference.Kind, [UInt8])? {
        switch value {
        case .string(let text): return (.string, Array(text.utf8))
        case .data(let bytes): return (.data, bytes)
        case .array: return (try? PropertyList.encode(value, as: .binary)).map { (.array, $0) }
        case .dictionary: return (try? PropertyList.encode(value, as: .binary)).map { (.dictionary, $0) }
        default: return nil
        }
    }
}
