/// What a suite holds in place of a value kept in external storage: a dictionary with the reserved
/// marker key, so an ordinary value — a string that looks like a UUID, say — is never taken for one:
///
///     { "$prefs.external" = 1; type = data; size = 5242880; "sha256-tree" = "9f86…"; key = "Avatar"; uuid = "…" }
///
/// The digest is the blob's `BlobDigest`: `sha256-tree` since blobs are checked piece by piece,
/// `sha256` (of the whole value) in references written before, which stay valid.
///
/// `key` is the directory the blob is under (the key's safe name when it was written: a renamed key
/// keeps its blob), `uuid` the blob's file name. Only top-level values of suites are ever external,
/// and no value a user gives may contain the marker key at any depth (`containsMarker`).
package struct ExternalReference: Equatable, Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        case string, data, array, dictionary
    }

    package static let marker = "$prefs.external"
    static let fields = Set([marker, "type", "size", "key", "uuid"] + BlobDigest.Algorithm.allCases.map(\.rawValue))

    package var kind: Kind
    package var size: Int
    package var digest: BlobDigest
    /// The directory under the suite's external directory (`directoryName(forKey:)`).
    package var directory: String
    package var uuid: String

    /// Whether a value claims to be a reference (a dictionary with the marker key): only such a
    /// value needs `parse`, and a blob place to be looked up.
    package static func isMarked(_ value: PrefValue) -> Bool {
        guard case .dictionary(let fields) = value else { return false }
        return fields[ExternalReference.marker] != nil
    }

    /// The reference a value is, nil when it is not one (no marker key). A dictionary with the marker
    /// that is not exactly a well-formed reference throws the reason: it is never read as a value.
    package static func parse(_ value: PrefValue) throws(Problem) -> ExternalReference? {
        guard case .dictionary(let fields) = value, let marker = fields[ExternalReference.marker] else { return nil }
        guard marker == .integer(1) else { throw Problem("unknown reference version \(marker)") }
        for key in fields.keys where !ExternalReference.fields.contains(key) { throw Problem("unknown reference field \"\(key)\"") }
        guard case .string(let type)? = fields["type"], let kind = Kind(rawValue: type) else { throw Problem("bad or missing type") }
        let size: Int
        switch fields["size"] {
        case .integer(let n)? where n >= 0: size = Int(n)
        default: throw Problem("bad or missing size")
        }
        let digests = BlobDigest.Algorithm.allCases.filter { fields[$0.rawValue] != nil }
        guard digests.count <= 1 else { throw Problem("more than one digest (\(digests.map(\.rawValue).joined(separator: ", ")))") }
        guard let algorithm = digests.first else { throw Problem("missing digest (sha256-tree)") }
        guard case .string(let hex)? = fields[algorithm.rawValue], let bytes = Hex.decode(hex), bytes.count == 32 else {
            throw Problem("bad \(algorithm.rawValue)")
        }
        guard case .string(let directory)? = fields["key"], isDirectoryName(directory) else { throw Problem("bad or missing key directory") }
        guard case .string(let uuid)? = fields["uuid"], isUUID(uuid) else { throw Problem("bad or missing uuid") }
        return ExternalReference(kind: kind, size: size, digest: BlobDigest(algorithm, bytes), directory: directory, uuid: uuid)
    }

    package struct Problem: Error, Equatable {
        package let reason: String
        /// The blob is not there at all.
        package let missing: Bool
        /// The store holding the blob could not be reached or refused the read (etcd unavailable:
        /// 69): that error, not a damaged value, is what the read reports.
        package let failure: PrefsError?
        init(_ reason: String, missing: Bool = false) {
            self.reason = reason
            self.missing = missing
            failure = nil
        }

        init(failure: PrefsError) {
            reason = "\(failure)"
            missing = false
            self.failure = failure
        }

        /// What a read of `key` in `domain` reports: the store's failure, else a bad external value (65).
        func error(domain: String, key: String) -> PrefsError {
            failure ?? .badExternalValue(domain: domain, key: key, reason: reason, missing: missing)
        }

        /// A blob store's failure to read: the store's own error when it could not be reached or
        /// refused, a problem already found as it is, else `reason` with the error's text.
        static func reading(_ error: any Error, _ reason: (String) -> String) -> Problem {
            switch error {
            case let problem as Problem: return problem
            case let failure as PrefsError where failure.isStoreFailure: return Problem(failure: failure)
            case let confined as ConfinedError: return Problem(reason(confined.reason))
            default: return Problem(reason("\(error)"))
            }
        }
    }

    /// The dictionary a suite stores.
    package var value: PrefValue {
        .dictionary([
            ExternalReference.marker: .integer(1), "type": .string(kind.rawValue), "size": .integer(Int64(size)),
            digest.algorithm.rawValue: .string(Hex.encode(digest.bytes)), "key": .string(directory), "uuid": .string(uuid),
        ])
    }

    /// Whether this reference's blob holds exactly such a value (false when the digest is by another
    /// algorithm: see `holds(kind:bytes:)`).
    func holds(kind: Kind, size: Int, digest: BlobDigest) -> Bool {
        self.kind == kind && self.size == size && self.digest == digest
    }

    /// Whether this reference's blob holds exactly `bytes` of `kind`, by its own digest's algorithm.
    func holds(kind: Kind, bytes: [UInt8]) -> Bool {
        self.kind == kind && size == bytes.count && digest == BlobDigest.of(bytes, by: digest.algorithm)
    }

    /// Whether the marker key appears anywhere in `value`.
    package static func containsMarker(_ value: PrefValue) -> Bool {
        switch value {
        case .dictionary(let dictionary): return dictionary[marker] != nil || dictionary.contains { containsMarker($0.value) }
        case .array(let elements): return elements.contains(where: containsMarker)
        default: return false
        }
    }

    /// A key as a directory name that cannot escape the store: ASCII letters, digits, `-`, `_` and
    /// `.` (but not first) stay, every other byte becomes `%XX`; the empty key is `%`. A name longer
    /// than 200 bytes keeps its first 160 and adds `~` and 16 hex digits of the key's SHA-256.
    package static func directoryName(forKey key: String) -> String {
        guard !key.isEmpty else { return "%" }
        var name = ""
        for (i, byte) in key.utf8.enumerated() {
            let plain = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D || byte == 0x5F
                || (byte == 0x2E && i > 0)
            if plain {
                name.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                name += "%" + Hex.encode([byte]).uppercased()
            }
        }
        guard name.utf8.count > 200 else { return name }
        var prefix = String(name.utf8.prefix(160))!
        if let percent = prefix.suffix(2).firstIndex(of: "%") { prefix = String(prefix[..<percent]) }
        return prefix + "~" + Hex.encode(Array(SHA256.hash(Array(key.utf8)).prefix(8)))
    }

    /// What `directoryName(forKey:)` can give: never empty, `.` or `..`, no `/`, at most 255 bytes.
    static func isDirectoryName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name.utf8.first != 0x2E && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "-_.%~".utf8.contains(byte)
        }
    }

    /// A lowercase 8-4-4-4-12 hex UUID.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (i, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                guard byte == 0x2D else { return false }
            } else if !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)) {
                return false
            }
        }
        return true
    }

    /// A new random (version 4) UUID.
    static func newUUID() -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let text = Hex.encode(bytes)
        let utf8 = Array(text.utf8)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(decoding: utf8[$0], as: UTF8.self) }.joined(separator: "-")
    }
}

extension ExternalReference {
    /// The blob it names, as `BlobEntry.id` names one: `KEYDIR/UUID`.
    package var blobID: String { directory + "/" + uuid }

    /// The blobs the top-level values of `contents` name (a value that is no reference names none).
    package static func blobIDs(in contents: PrefDictionary) -> Set<String> {
        Set(contents.compactMap { entry in (try? parse(entry.value))?.map(\.blobID) })
    }
}
