extension TypedJSON {
    static func value(of node: PrefValue, path: String, depth: Int) throws -> PrefValue {
        guard depth < DecodingLimits.maxDepth else { throw failure(path, "nested deeper than \(DecodingLimits.maxDepth) levels") }
        guard case .dictionary(let object) = node, object.count == 1 else {
            throw failure(path, "expected an object with one key naming the type")
        }
        let (type, body) = (object[0].key, object[0].value)
        switch (type, body) {
        case ("string", .string): return body
        case ("integer", .integer), ("integer", .unsignedInteger): return body
        case ("float", .real): return body
        case ("float", .integer(let i)) where Int64(exactly: Double(i)) == i: return .real(Double(i))
        case ("float", .string(let name)):
            switch name {
            case "nan": return .real(.nan)
            case "inf": return .real(.infinity)
            case "-inf": return .real(-.infinity)
            default: throw failure(path, "\"\(name)\" is not a float (use a number, \"nan\", \"inf\" or \"-inf\")")
            }
        case ("boolean", .bool): return body
        case ("date", .string(let text)):
            guard let date = PrefDate(iso8601: text) else { throw failure(path, "\"\(text)\" is not an ISO 8601 date in 0001–9999") }
            return .date(date)
        case ("data", .string(let text)):
            guard let bytes = Base64.decode(text.utf8) else { throw failure(path, "data is not valid base64") }
            return .data(bytes)
        case ("uid", .integer(let i)) where i >= 0: return .uid(UInt64(i))
        case ("uid", .unsignedInteger(let u)): return .uid(u)
        case ("array", .array(let nodes)):
            var elements = [PrefValue]()
            elements.reserveCapacity(nodes.count)
            for (i, element) in nodes.enumerated() {
                elements.append(try value(of: element, path: path + ":" + String(i), depth: depth + 1))
            }
            return .array(elements)
        case ("dictionary", .dictionary(let members)):
            var entries = [PrefDictionary.Entry]()
            entries.reserveCapacity(members.count)
            for member in members {
                let childPath = path + ":" + PrefKeyPath.escape(member.key)
                entries.append(.init(key: member.key, value: try value(of: member.value, path: childPath, depth: depth + 1)))
            }
            return .dictionary(PrefDictionary(unsortedEntries: entries))
        case ("string", _), ("integer", _), ("float", _), ("boolean", _), ("date", _), ("data", _), ("uid", _),
            ("array", _), ("dictionary", _):
            throw failure(path, "the body of a \"\(type)\" node has the wrong JSON type")
        default:
            throw failure(path, "unknown type \"\(type)\"")
        }
    }
}
