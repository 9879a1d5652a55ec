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

    /// The JSON of a transaction, written straight to bytes: the same bytes as
    /// `encode(txn(compare:success:failure:))` (members in code point order, fields at their default
    /// left out), without building the request as values first. A one-key read sends one of a few
    /// dozen ranges in every command, and the values cost about 0.3 M instructions more.
    static func encodeTxn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]) -> [UInt8] {
        var writer = TxnWriter()
        writer.out.reserveCapacity(64 + 80 * (compare.count + success.count + failure.count))
        writer.out.append(UInt8(ascii: "{"))
        writer.name("compare", first: true)
        writer.list(compare) { $0.comparison($1) }
        writer.name("failure")
        writer.list(failure) { $0.operation($1) }
        writer.name("success")
        writer.list(success) { $0.operation($1) }
        writer.out.append(UInt8(ascii: "}"))
        return writer.out
    }

    /// `encodeTxn`'s JSON, member by member (no value needs escaping: bytes go as base64, the
    /// texts are etcd's enum names).
    private struct TxnWriter {
        var out: [UInt8] = []

        mutating func name(_ text: StaticString, first: Bool = false) {
            if !first { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
            out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }

        mutating func bytes(_ value: [UInt8]) {
            out.append(UInt8(ascii: "\""))
            Base64.encode(value, into: &out)
            out.append(UInt8(ascii: "\""))
        }

        mutating func text(_ value: String) {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: value.utf8)
            out.append(UInt8(ascii: "\""))
        }

        mutating func integer(_ n: Int64) { out.append(contentsOf: String(n).utf8) }

        /// `[{…},…]`, each element's members written by `member`.
        mutating func list<T>(_ elements: [T], _ member: (inout TxnWriter, T) -> Void) {
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                out.append(contentsOf: i > 0 ? [UInt8(ascii: ","), UInt8(ascii: "{")] : [UInt8(ascii: "{")])
                member(&self, element)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        }

        /// `"key":…` and the optional `"range_end":…` that start each request.
        mutating func key(_ key: [UInt8], _ more: (inout TxnWriter) -> Void = { _ in }, rangeEnd: [UInt8]?) {
            name("key", first: true)
            bytes(key)
            more(&self)
            if let rangeEnd { name("range_end"); bytes(rangeEnd) }
        }

        mutating func operation(_ operation: EtcdOperation) {
            switch operation {
            case .range(let key, let rangeEnd, let keysOnly, let revision):
                name("request_range", first: true)
                out.append(UInt8(ascii: "{"))
                self.key(key, { if keysOnly { $0.name("keys_only"); $0.out.append(contentsOf: "true".utf8) } }, rangeEnd: rangeEnd)
                if revision != 0 { name("revision"); integer(revision) }
            case .put(let key, let value, let lease):
                name("request_put", first: true)
                out.append(UInt8(ascii: "{"))
                self.key(key, rangeEnd: nil)
                if lease != 0 { name("lease"); integer(lease) }
                name("value")
                bytes(value)
            case .delete(let key, let rangeEnd):
                name("request_delete_range", first: true)
                out.append(UInt8(ascii: "{"))
                self.key(key, rangeEnd: rangeEnd)
            }
            out.append(UInt8(ascii: "}"))
        }

        mutating func comparison(_ comparison: EtcdCompare) {
            switch comparison {
            case .modRevision(let key, let rangeEnd, let op, let revision):
                self.key(key, { $0.name("mod_revision"); $0.integer(revision) }, rangeEnd: rangeEnd)
                outcome(op, "MOD")
            case .version(let key, let op, let version):
                self.key(key, rangeEnd: nil)
                outcome(op, "VERSION")
                name("version")
                integer(version)
            case .createRevision(let key, let op, let revision):
                name("create_revision", first: true)
                integer(revision)
                out.append(UInt8(ascii: ","))
                self.key(key, rangeEnd: nil)
                outcome(op, "CREATE")
            }
        }

        /// `"result":OP,"target":TARGET`.
        mutating func outcome(_ op: EtcdCompare.Op, _ target: String) {
            name("result")
            text(op.rawValue)
            name("target")
            text(target)
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
