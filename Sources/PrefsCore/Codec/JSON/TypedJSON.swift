/// prefs' lossless JSON form: every value is an object with one key naming its type (the names
/// `read-type` prints), inside a marked root:
///
///     {"prefs-typed-json": 1, "value": {"dictionary": {
///         "name":   {"string": "Ada"},
///         "count":  {"integer": 18446744073709551615},
///         "ratio":  {"float": 0.5},          (also "nan", "inf", "-inf")
///         "on":     {"boolean": true},
///         "when":   {"date": "2026-01-02T03:04:05.25Z"},   (exact fraction)
///         "blob":   {"data": "AAEC"},        (base64)
///         "ref":    {"uid": 7},
///         "list":   {"array": [{"string": "a"}]}}}}
///
/// Every value survives a round trip exactly, including −0.0, NaN, date fractions and UIDs.
package enum TypedJSON {
    package static let marker = "prefs-typed-json"
    package static let version: Int64 = 1

    package static func encode(_ value: PrefValue, pretty: Bool = true) throws -> [UInt8] {
        try write(node: try node(value, depth: 0), pretty: pretty)
    }

    /// The document whose root value is `node`, already a typed node.
    static func write(node: PrefValue, pretty: Bool) throws -> [UInt8] {
        let document: PrefValue = .dictionary([marker: .integer(version), "value": node])
        var writer = JSONWriter(pretty: pretty, format: .typedJSON)
        writer.inlineScalarNodes = true
        writer.maxDepth = JSONParser.maxDepth
        try writer.write(document, depth: 0)
        if pretty { writer.out.append(0x0A) }
        return writer.out
    }

    /// True when a decoded JSON document carries the typed-JSON marker.
    package static func isTypedDocument(_ json: PrefValue) -> Bool {
        guard case .dictionary(let root) = json else { return false }
        return root[marker] != nil
    }

    /// Reads a typed-JSON document that has been decoded as plain JSON.
    package static func decode(_ json: PrefValue) throws -> PrefValue {
        guard case .dictionary(let root) = json, root.count == 2, let versionValue = root[marker],
            let body = root["value"]
        else { throw failure("", "the root must be {\"\(marker)\": 1, \"value\": …}") }
        guard versionValue == .integer(version) else {
            throw failure("", "unsupported \(marker) version (this prefs reads version \(version))")
        }
        return try value(of: body, path: "", depth: 0)
    }

    static func failure(_ path: String, _ reason: String) -> PrefsError {
        .malformed(source: nil, format: .typedJSON, reason: (path.isEmpty ? "" : "at \(path): ") + reason)
    }

    static func node(_ value: PrefValue, depth: Int) throws -> PrefValue {
        if value.isContainer { try EncodingChecks.depth(depth, format: .typedJSON) }
        switch value {
        case .string: return ["string": value]
        case .integer, .unsignedInteger: return ["integer": value]
        case .real(let r):
            if r.isNaN { return ["float": "nan"] }
            if r.isInfinite { return ["float": .string(r > 0 ? "inf" : "-inf")] }
            return ["float": value]
        case .bool: return ["boolean": value]
        case .date(let d):
            try EncodingChecks.date(value, format: .typedJSON)
            return ["date": .string(d.iso8601())]
        case .data(let bytes): return ["data": .string(Base64.encode(bytes))]
        case .uid(let u): return ["uid": .unsigned(u)]
        case .array(let elements):
            var nodes = [PrefValue]()
            nodes.reserveCapacity(elements.count)
            for (i, element) in elements.enumerated() {
                nodes.append(try PrefKeyPath.locating(String(i)) { try node(element, depth: depth + 1) })
            }
            return ["array": .array(nodes)]
        case .dictionary(let dictionary):
            var entries = [PrefDictionary.Entry]()
            entries.reserveCapacity(dictionary.count)
            for entry in dictionary {
                entries.append(.init(key: entry.key, value: try PrefKeyPath.locating(entry.key) { try node(entry.value, depth: depth + 1) }))
            }
            return ["dictionary": .dictionary(PrefDictionary(unsortedEntries: entries))]
        }
    }
}
