/// Typed JSON for a person to edit (`prefs edit`), its large values summarised so the others stay
/// editable: a string or data value over `limit` bytes, at any depth, and a container whose typed
/// JSON would still be larger, is written as a summary node — its type, size and SHA-256, as a dry
/// run reports it (`ReadableText.summary`) — not as its text:
///
///     "photo": {"summary": "<data: 1350000 bytes, sha256 9f86d0…>"},
///
/// Read back (`decode`), a summary left as it was stands for exactly the value it summarised; one
/// moved to another key (or copied) takes that value with it; a deleted one is a deleted value. A
/// summary that summarises no value of the document as written (edited text) is an error (65):
/// nothing in it can be edited but by replacing the whole node.
package struct SummarisedTypedJSON: Sendable {
    /// The largest string or data value written out whole, in bytes.
    package static let limit = 64 << 10

    /// The document.
    package private(set) var bytes: [UInt8] = []
    /// The values summarised, by their summary.
    private var values: [String: PrefValue] = [:]
    /// The summary written at each place (a key path, `:key:0`) and the value it stands for, which
    /// a summary left in its place stands for even when two values share a summary.
    private var places: [String: (summary: String, value: PrefValue)] = [:]

    /// How many values are summarised.
    package var count: Int { places.count }

    package init(_ contents: PrefDictionary, limit: Int = SummarisedTypedJSON.limit) throws {
        var entries = [PrefDictionary.Entry]()
        entries.reserveCapacity(contents.count)
        for entry in contents {
            let node = try PrefKeyPath.locating(entry.key) {
                try summarised(entry.value, path: ":" + PrefKeyPath.escape(entry.key), depth: 1, limit: limit).node
            }
            entries.append(.init(key: entry.key, value: node))
        }
        bytes = try TypedJSON.write(node: ["dictionary": .dictionary(PrefDictionary(unsortedEntries: entries))], pretty: true)
    }

    /// The typed node of `value` at `path`, or its summary node, and about how many bytes of the
    /// document it takes.
    private mutating func summarised(_ value: PrefValue, path: String, depth: Int, limit: Int) throws -> (node: PrefValue, size: Int) {
        let size: Int
        var node: PrefValue
        switch value {
        case .string(let text):
            size = text.utf8.count
            node = try TypedJSON.node(value, depth: depth)
        case .data(let bytes):
            size = bytes.count
            node = try TypedJSON.node(value, depth: depth)
        case .array(let elements):
            try EncodingChecks.depth(depth, format: .typedJSON)
            var nodes = [PrefValue]()
            var total = 2
            for (index, element) in elements.enumerated() {
                let (child, childSize) = try PrefKeyPath.locating(String(index)) {
                    try summarised(element, path: path + ":" + String(index), depth: depth + 1, limit: limit)
                }
                nodes.append(child)
                total += childSize + 2
            }
            (node, size) = (["array": .array(nodes)], total)
        case .dictionary(let dictionary):
            try EncodingChecks.depth(depth, format: .typedJSON)
            var entries = [PrefDictionary.Entry]()
            var total = 2
            for entry in dictionary {
                let (child, childSize) = try PrefKeyPath.locating(entry.key) {
                    try summarised(entry.value, path: path + ":" + PrefKeyPath.escape(entry.key), depth: depth + 1, limit: limit)
                }
                entries.append(.init(key: entry.key, value: child))
                total += entry.key.utf8.count + childSize + 4
            }
            (node, size) = (["dictionary": .dictionary(PrefDictionary(unsortedEntries: entries))], total)
        default:
            return (try TypedJSON.node(value, depth: depth), 16)
        }
        guard size > limit else { return (node, size) }
        // The container's own summary stands for it whole: those of values inside it are gone.
        if value.isContainer { places = places.filter { !$0.key.hasPrefix(path + ":") } }
        let summary = ReadableText.summary(value)
        values[summary] = value
        places[path] = (summary, value)
        return (["summary": .string(summary)], summary.utf8.count + 16)
    }

    /// The value of the document as edited (any format prefs reads), each summary node replaced by
    /// the value it summarised.
    package func decode(_ bytes: [UInt8]) throws -> PrefValue {
        let format = try PropertyList.detect(bytes)
        guard format == .json || format == .typedJSON, !places.isEmpty else { return try PropertyList.decode(bytes).value }
        let (parsed, deepest, _) = try JSONTextDecoder.parse(bytes, nulls: .refuse)
        guard let json = parsed else { throw PrefsError.internalError("null accepted") }
        guard TypedJSON.isTypedDocument(json), case .dictionary(var root) = json, let body = root["value"] else {
            try JSONTextDecoder.checkDepth(deepest)
            return json
        }
        root["value"] = try restored(body, path: "", depth: 0)
        return try TypedJSON.decode(.dictionary(root))
    }

    /// `node` with its summary nodes replaced by the typed nodes of their values.
    private func restored(_ node: PrefValue, path: String, depth: Int) throws -> PrefValue {
        guard depth < DecodingLimits.maxDepth, case .dictionary(let object) = node, object.count == 1 else { return node }
        switch (object[0].key, object[0].value) {
        case ("summary", let body):
            let value: PrefValue? = switch body {
            case .string(let text): places[path].flatMap { $0.summary == text ? $0.value : nil } ?? values[text]
            default: nil
            }
            guard let value else {
                throw TypedJSON.failure(path, "a summary of a large value was changed: it stands for the value as it was, and cannot be edited"
                                        + " (put it back as it was, delete the key to delete the value, or set a new value with prefs write)")
            }
            return try TypedJSON.node(value, depth: depth)
        case ("array", .array(let nodes)):
            var restoredNodes = [PrefValue]()
            restoredNodes.reserveCapacity(nodes.count)
            for (index, child) in nodes.enumerated() { restoredNodes.append(try restored(child, path: path + ":" + String(index), depth: depth + 1)) }
            return ["array": .array(restoredNodes)]
        case ("dictionary", .dictionary(let members)):
            var entries = [PrefDictionary.Entry]()
            entries.reserveCapacity(members.count)
            for member in members {
                entries.append(.init(key: member.key, value: try restored(member.value, path: path + ":" + PrefKeyPath.escape(member.key), depth: depth + 1)))
            }
            return ["dictionary": .dictionary(PrefDictionary(unsortedEntries: entries))]
        default:
            return node
        }
    }
}
