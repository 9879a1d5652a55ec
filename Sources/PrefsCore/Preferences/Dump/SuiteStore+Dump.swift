/// What a dump wrote: the suites, and the entries passed over finding them.
package struct DumpSummary: Sendable {
    package var suites: [DumpedSuite] = []
    package var skipped: [SkippedEntry] = []

    package init(suites: [DumpedSuite] = [], skipped: [SkippedEntry] = []) {
        self.suites = suites
        self.skipped = skipped
    }
}

extension SuiteStore {
    /// `dump`: every suite (`dumpedSuites`) as one lossless typed-JSON document, written to `sink`
    /// as it goes:
    ///
    ///     {"prefs-typed-json": 1, "value": {"dictionary": {
    ///         "prefs-dump": {"integer": 1},
    ///         "registered": {"dictionary": {"app": {"dictionary": {…}}}},     (with registered)
    ///         "suites": {"dictionary": {"NSGlobalDomain": {"dictionary": {…}}, "app": …}},
    ///         "suitesByHost": {"dictionary": {"HOSTID": {"dictionary": {"app": …}}}}}}}  (when there are some)
    ///
    /// Each suite is read while no change of it can commit (its lock is held), so it is dumped as one
    /// version, external values included: a string or data value streams from its blob (checked as
    /// it goes: a damaged blob fails the dump with 65, naming the suite and key); an external array or
    /// dictionary is read in. A suite that cannot be read fails the dump (a backup never silently
    /// misses one); a suite that does not exist (the global one) is left out.
    package func dump(registered: Bool, to sink: (UnsafeRawBufferPointer) throws -> Void) throws -> DumpSummary {
        try withoutActuallyEscaping(sink) { sink in try dump(registered: registered, into: DumpWriter(sink: sink)) }
    }

    func dump(registered: Bool, into writer: DumpWriter) throws -> DumpSummary {
        var out = writer
        let (suites, skipped) = try dumpedSuites(registered: registered)
        var summary = DumpSummary(skipped: skipped)
        out.openObject()
        out.key(TypedJSON.marker)
        try out.plain(.integer(TypedJSON.version))
        out.key("value")
        out.openNode("dictionary")
        out.openObject()
        out.key(SuiteStore.dumpMarker)
        try out.node(.integer(SuiteStore.dumpVersion))
        for section in DumpedSuite.Section.allCases where section != .registered || registered {
            let entries = suites.filter { $0.section == section }
            guard section != .suitesByHost || !entries.isEmpty else { continue }
            out.key(section.rawValue)
            guard section == .suitesByHost else {
                summary.suites += try dump(entries, into: &out)
                continue
            }
            var hosts: [String] = []
            for host in entries.compactMap(\.host) where !hosts.contains(host) { hosts.append(host) }
            out.openNode("dictionary")
            out.openObject()
            for host in hosts {
                out.key(host)
                summary.suites += try dump(entries.filter { $0.host == host }, into: &out)
            }
            out.closeObject()
            out.closeObject()
        }
        out.closeObject()
        out.closeObject()
        out.closeObject()
        try out.finish()
        return summary
    }

    /// `{"dictionary": {NAME: …}}` of the suites that exist among `suites`; those.
    func dump(_ suites: [DumpedSuite], into out: inout DumpWriter) throws -> [DumpedSuite] {
        var dumped: [DumpedSuite] = []
        out.openNode("dictionary")
        out.openObject()
        for suite in suites where try dump(suite, into: &out) { dumped.append(suite) }
        out.closeObject()
        out.closeObject()
        return dumped
    }

    /// One suite's entry; false when it does not exist.
    func dump(_ suite: DumpedSuite, into out: inout DumpWriter) throws -> Bool {
        let storage = storage(for: suite.location)
        return try storage.withChangesHeld(suite.location, creating: false) {
            guard let stored = try load(at: suite.location) else { return false }
            let place = try blobPlace(for: suite.location)
            out.key(suite.name)
            out.openNode("dictionary")
            out.openObject()
            for entry in stored.contents {
                out.key(entry.key)
                guard let reference = try reference(in: entry.value, place: place, domain: suite.displayName, key: entry.key), let place else {
                    try PrefKeyPath.locating(entry.key) { try out.node(entry.value) }
                    try out.flush()
                    continue
                }
                guard reference.kind == .string || reference.kind == .data else {
                    try out.node(try materialize(reference, place: place, domain: suite.displayName, key: entry.key))
                    try out.flush()
                    continue
                }
                let blob: Blob
                do throws(ExternalReference.Problem) {
                    blob = Blob(reader: try BlobReader(place: place, reference: reference), domain: suite.displayName, key: entry.key)
                } catch {
                    throw error.error(domain: suite.displayName, key: entry.key)
                }
                try out.streamedNode(reference.kind) { piece in try blob.forEachChunk(piece) }
            }
            out.closeObject()
            out.closeObject()
            try out.flush()
            return true
        }
    }
}
