/// The JSON bodies of requests to etcd's gateway, field names as etcd's protobuf spells them (the
/// gateway reads the original names). Bytes go as `.data` values, which the JSON encoder writes as
/// base64; fields at their default are left out, as the gateway itself does.
enum EtcdRequestBody {
    typealias Fields = [(String, PrefValue?)]

    static func object(_ fields: Fields) -> PrefValue {
        .dictionary(PrefDictionary(fields.compactMap { name, value in value.map { (name, $0) } }))
    }

    static func encode(_ fields: Fields) throws -> [UInt8] {
        try JSONTextEncoder.encode(object(fields), pretty: false)
    }

    static func range(_ key: [UInt8], rangeEnd: [UInt8]?, limit: Int64 = 0, keysOnly: Bool = false, countOnly: Bool = false,
                      revision: Int64 = 0) -> Fields {
        [("key", .data(key)), ("range_end", rangeEnd.map { .data($0) }), ("limit", number(limit)),
         ("keys_only", flag(keysOnly)), ("count_only", flag(countOnly)), ("revision", number(revision))]
    }

    static func put(_ key: [UInt8], _ value: [UInt8], lease: Int64) -> Fields {
        [("key", .data(key)), ("value", .data(value)), ("lease", number(lease))]
    }

    static func delete(_ key: [UInt8], rangeEnd: [UInt8]?) -> Fields {
        [("key", .data(key)), ("range_end", rangeEnd.map { .data($0) })]
    }

    static func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]) -> Fields {
        [("compare", .array(compare.map(self.compare))), ("success", .array(success.map(operation))),
         ("failure", .array(failure.map(operation)))]
    }

    static func compare(_ compare: EtcdCompare) -> PrefValue {
        switch compare {
        case .modRevision(let key, let rangeEnd, let op, let revision):
            return object([("key", .data(key)), ("range_end", rangeEnd.map { .data($0) }), ("target", "MOD"),
                           ("result", .string(op.rawValue)), ("mod_revision", .integer(revision))])
        case .version(let key, let op, let version):
            return object([("key", .data(key)), ("target", "VERSION"), ("result", .string(op.rawValue)), ("version", .integer(version))])
        case .createRevision(let key, let op, let revision):
            return object([("key", .data(key)), ("target", "CREATE"), ("result", .string(op.rawValue)),
                           ("create_revision", .integer(revision))])
        }
    }

    static func operation(_ operation: EtcdOperation) -> PrefValue {
        switch operation {
        case .range(let key, let rangeEnd, let keysOnly, let revision):
            return object([("request_range", object(range(key, rangeEnd: rangeEnd, keysOnly: keysOnly, revision: revision)))])
        case .put(let key, let value, let lease):
            return object([("request_put", object(put(key, value, lease: lease)))])
        case .delete(let key, let rangeEnd):
            return object([("request_delete_range", object(delete(key, rangeEnd: rangeEnd)))])
        }
    }

    /// A watch's create request. `hasleader` is asked for in a header, not here.
    static func watch(_ key: [UInt8], rangeEnd: [UInt8]?, startRevision: Int64) -> Fields {
        [("create_request", object([("key", .data(key)), ("range_end", rangeEnd.map { .data($0) }),
                                    ("start_revision", number(startRevision)), ("progress_notify", .bool(true))]))]
    }

    private static func number(_ n: Int64) -> PrefValue? { n == 0 ? nil : .integer(n) }
    private static func flag(_ b: Bool) -> PrefValue? { b ? .bool(true) : nil }
}
