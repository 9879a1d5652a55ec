/// A top-level value of a suite as a dump gives it back.
enum LoadedValue {
    /// Decoded in memory.
    case inline(PrefValue)
    /// A large string or data value, streamed as it was read: into a new blob (`pending`, held until
    /// its suite is committed, its digest the reference's), or in a dry run only counted and hashed,
    /// by every algorithm a stored reference may record, so that it compares with an older one too.
    case streamed(kind: ExternalReference.Kind, size: Int, digests: [BlobDigest], pending: PendingBlob?)
}

/// One suite of a dump, read and checked, not yet restored.
struct LoadedSuite {
    let suite: DumpedSuite
    var entries: [(key: String, value: LoadedValue)] = []
    /// Where its streamed values' blobs are.
    let place: BlobPlace?

    /// Every blob written for it.
    var pending: [PendingBlob] {
        entries.compactMap { if case .streamed(_, _, _, let pending?) = $0.value { pending } else { nil } }
    }
}

/// Reads a whole dump — structure, names, versions and every value checked — before anything is
/// restored. A suite's top-level string or data value larger than the external-storage threshold is
/// streamed as it is read, into a new blob of that suite (only hashed in a dry run), so it is never
/// held in memory; every other value is decoded by the JSON and typed-JSON decoders.
struct DumpParser {
    let store: SuiteStore
    let dryRun: Bool
    let threshold: Int
    var reader: DumpReader
    /// The suites read so far, and every blob written (removed if the dump turns out bad).
    var suites: [LoadedSuite] = []
    var written: [(PendingBlob, BlobPlace)] = []

    /// The document: `{"prefs-typed-json": 1, "value": {"dictionary": {…}}}`, members in any order.
    mutating func parse() throws {
        var (typed, value, version) = (false, false, false)
        guard try reader.openObject() else { throw reader.failure("the document is empty, not a dump") }
        var seen = Set<[UInt8]>()
        repeat {
            switch try once(try reader.memberKey(), in: &seen) {
            case TypedJSON.marker:
                guard try decode(try reader.rawValue(), plain: true) == .integer(TypedJSON.version) else {
                    throw reader.failure("unsupported \(TypedJSON.marker) version")
                }
                typed = true
            case "value":
                guard try reader.openObject(), try reader.memberKey() == "dictionary" else { throw reader.failure("a dump's value is a dictionary") }
                version = try body()
                guard try !reader.nextMember() else { throw reader.failure("expected an object with one key naming the type") }
                value = true
            case let other:
                throw reader.failure("unknown member \"\(other)\" of a typed-JSON document")
            }
        } while try reader.nextMember()
        try reader.end()
        guard typed, value else { throw reader.failure("not a typed-JSON document: a dump is {\"\(TypedJSON.marker)\": 1, \"value\": …}") }
        guard version else { throw reader.failure("not a dump: no \(SuiteStore.dumpMarker) version") }
    }

    /// The dump's dictionary: its version and its sections; whether the version was there.
    mutating func body() throws -> Bool {
        var version = false
        guard try reader.openObject() else { return false }
        var seen = Set<[UInt8]>()
        repeat {
            let key = try once(try reader.memberKey(), in: &seen)
            if key == SuiteStore.dumpMarker {
                guard try decode(try reader.rawValue()) == .integer(SuiteStore.dumpVersion) else {
                    throw reader.failure("a dump of version \(SuiteStore.dumpVersion) is what this prefs reads")
                }
                version = true
            } else if key == DumpedSuite.Section.suitesByHost.rawValue {
                try dictionaryNode(within: key) { parser, host in
                    try parser.dictionaryNode(within: "\(key) of host \(host)") { parser, name in
                        try parser.suite(section: .suitesByHost, name: name, host: host)
                    }
                }
            } else if let section = DumpedSuite.Section(rawValue: key) {
                try dictionaryNode(within: key) { parser, name in try parser.suite(section: section, name: name) }
            } else {
                throw reader.failure("unknown part \"\(key)\" of a dump")
            }
        } while try reader.nextMember()
        return version
    }

    /// `key`, unless it was `seen` in its object (`within`) before: a dump names everything once.
    /// Names are told apart by their bytes, as a suite tells keys apart (NFC and NFD are two).
    func once(_ key: String, in seen: inout Set<[UInt8]>, within: String? = nil) throws -> String {
        guard seen.insert(Array(key.utf8)).inserted else { throw reader.failure("\(within.map { "in \($0), " } ?? "")\"\(key)\" is given twice") }
        return key
    }

    /// `{"dictionary": {NAME: …, …}}`, calling `member` with each name (none twice), its value next.
    mutating func dictionaryNode(within: String, _ member: (inout DumpParser, String) throws -> Void) throws {
        guard try reader.openObject(), try reader.memberKey() == "dictionary" else { throw reader.failure("expected {\"dictionary\": …}") }
        if try reader.openObject() {
            var seen = Set<[UInt8]>()
            repeat { try member(&self, try once(try reader.memberKey(), in: &seen, within: within)) } while try reader.nextMember()
        }
        guard try !reader.nextMember() else { throw reader.failure("expected an object with one key naming the type") }
    }

    /// One suite: its values, each checked (its name and its keys are each given once).
    mutating func suite(section: DumpedSuite.Section, name: String, host: String? = nil) throws {
        guard let location = DumpedSuite.location(section: section, name: name, host: host) else {
            throw reader.failure("\"\(name)\" does not name a suite (in \(section.rawValue)\(host.map { " for host \"\($0)\"" } ?? ""))")
        }
        let suite = DumpedSuite(section: section, name: name, location: location, host: host)
        // Only a suite's own values go to external storage (not registered defaults).
        let place = section == .suites ? try store.blobPlace(for: location) : nil
        var loaded = LoadedSuite(suite: suite, place: place)
        try dictionaryNode(within: suite.displayName) { parser, key in
            loaded.entries.append((key, try parser.value(key: key, suite: suite, place: place, streaming: section == .suites)))
        }
        suites.append(loaded)
    }

    /// A typed node `{"TYPE": …}`: a large string or data value streamed, anything else decoded.
    mutating func value(key: String, suite: DumpedSuite, place: BlobPlace?, streaming: Bool) throws -> LoadedValue {
        guard try reader.openObject() else { throw reader.failure("expected an object with one key naming the type") }
        let type = try reader.memberKey()
        let value: LoadedValue
        if streaming, let kind = ExternalReference.Kind(rawValue: type), kind == .string || kind == .data {
            try reader.skipSpace()
            guard try reader.peek() == UInt8(ascii: "\"") else { throw reader.failure("\(suite.displayName): \(key): a \(type) node holds a string") }
            value = try streamed(kind, key: key, suite: suite, place: place)
        } else {
            let body = try reader.rawValue()
            do {
                value = .inline(try TypedJSON.value(of: .dictionary([type: try DumpParser.json(body)]), path: "", depth: 0))
            } catch let error as PrefsError {
                throw reader.failure("\(suite.displayName): \(key): \(PrefsError.reason(of: error))")
            }
        }
        guard try !reader.nextMember() else { throw reader.failure("expected an object with one key naming the type") }
        return value
    }

    /// A string or data value: held while it is no larger than the threshold, then (when the suite
    /// has external storage) streamed into a new blob, or in a dry run hashed, as it is decoded.
    mutating func streamed(_ kind: ExternalReference.Kind, key: String, suite: DumpedSuite, place: BlobPlace?) throws -> LoadedValue {
        try reader.openString()
        var base64 = Base64.Decoder()
        func decoded(_ piece: [UInt8], _ reader: DumpReader) throws -> [UInt8] {
            guard kind == .data else { return piece }
            var bytes: [UInt8] = []
            guard base64.feed(piece, into: &bytes) else { throw reader.failure("\(suite.displayName): \(key): the data is not base64") }
            return bytes
        }
        var head: [UInt8] = []
        while head.count <= threshold || place == nil, let piece = try reader.nextStringPiece() {
            head += try decoded(piece, reader)
            try reader.checkHeld(head.count)
        }
        if !reader.inString {
            guard kind == .string || base64.finish() else { throw reader.failure("\(suite.displayName): \(key): the data is not base64") }
            return .inline(kind == .data ? .data(head) : .string(String(decoding: head, as: UTF8.self)))
        }
        func rest(_ sink: inout BlobSink) throws {
            try head.withUnsafeBytes { try sink.write($0) }
            while let piece = try reader.nextStringPiece() { try decoded(piece, reader).withUnsafeBytes { try sink.write($0) } }
            guard kind == .string || base64.finish() else { throw reader.failure("\(suite.displayName): \(key): the data is not base64") }
        }
        guard !dryRun, let place else {
            var whole = BlobHasher(.sha256)
            var sink = BlobSink { whole.update($0) }
            try rest(&sink)
            return .streamed(kind: kind, size: sink.size, digests: [sink.finish(), whole.finish()], pending: nil)
        }
        let pending = try place.store.write(suite: place.suite, key: key, kind: kind) { try rest(&$0) }
        written.append((pending, place))
        return .streamed(kind: kind, size: pending.reference.size, digests: [pending.reference.digest], pending: pending)
    }

    /// Plain JSON in which no object names a key twice.
    static func json(_ text: [UInt8]) throws -> PrefValue {
        let (json, deepest, _) = try JSONTextDecoder.parse(text, nulls: .refuse, duplicates: .refuse)
        try JSONTextDecoder.checkDepth(deepest)
        return json ?? .dictionary([:])
    }

    /// JSON text decoded as plain JSON (`plain`), or as a typed node.
    func decode(_ text: [UInt8], plain: Bool = false) throws -> PrefValue {
        do {
            let json = try DumpParser.json(text)
            return plain ? json : try TypedJSON.value(of: json, path: "", depth: 0)
        } catch let error as PrefsError {
            throw reader.failure(PrefsError.reason(of: error))
        }
    }
}

extension PrefsError {
    /// What a decoder said was wrong, without the file it does not know.
    static func reason(of error: PrefsError) -> String {
        if case .malformed(_, _, let reason) = error { return reason }
        return "\(error)"
    }
}
