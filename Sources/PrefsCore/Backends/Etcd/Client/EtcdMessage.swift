/// One JSON object from etcd's gateway, read with the gateway's conventions: a field at its default
/// (0, false, empty) is left out; int64 fields are JSON strings (numbers are accepted too); keys
/// and values are base64. A field of the wrong type is a `.malformed` error naming the endpoint and
/// the request.
struct EtcdMessage {
    let fields: PrefDictionary
    /// "etcd 127.0.0.1:2379 /v3/kv/range": where the message came from, for errors.
    let source: String

    init(fields: PrefDictionary, source: String) {
        self.fields = fields
        self.source = source
    }

    /// Parses a JSON document that must be an object. `null` members are taken as absent.
    init(json: [UInt8], source: String) throws {
        let parsed: PrefValue?
        do {
            parsed = try JSONTextDecoder.parse(json, nulls: .skip).0
        } catch let error as PrefsError {
            throw error.attributed(to: source)
        }
        guard case .dictionary(let fields)? = parsed else {
            throw PrefsError.malformed(source: source, format: .json, reason: "the response is not a JSON object")
        }
        self.init(fields: fields, source: source)
    }

    func failure(_ name: String, _ expected: String) -> PrefsError {
        .malformed(source: source, format: .json, reason: "field \"\(name)\" is not \(expected)")
    }

    func has(_ name: String) -> Bool { fields[name] != nil }

    /// An answer whose shape etcd never gives: 65 naming the endpoint and the request.
    func unexpected(_ reason: String) -> PrefsError {
        .malformed(source: source, format: nil, reason: "not an answer etcd gives: \(reason)")
    }

    /// Every answer of etcd's KV service has a header with the store's revision.
    func requireHeader() throws {
        guard try object("header")?.int64("revision") ?? 0 > 0 else { throw unexpected("no header with the store's revision") }
    }

    func int64(_ name: String) throws -> Int64 {
        switch fields[name] {
        case nil: return 0
        case .integer(let n)?: return n
        case .string(let text)?:
            guard let n = Int64(text) else { throw failure(name, "an int64") }
            return n
        default: throw failure(name, "an int64")
        }
    }

    func bool(_ name: String) throws -> Bool {
        switch fields[name] {
        case nil: return false
        case .bool(let b)?: return b
        default: throw failure(name, "a boolean")
        }
    }

    func string(_ name: String) throws -> String {
        switch fields[name] {
        case nil: return ""
        case .string(let s)?: return s
        default: throw failure(name, "a string")
        }
    }

    /// A base64 field as bytes.
    func bytes(_ name: String) throws -> [UInt8] {
        guard let decoded = Base64.decode(try string(name).utf8) else { throw failure(name, "base64") }
        return decoded
    }

    func object(_ name: String) throws -> EtcdMessage? {
        switch fields[name] {
        case nil: return nil
        case .dictionary(let d)?: return EtcdMessage(fields: d, source: source)
        default: throw failure(name, "an object")
        }
    }

    func objects(_ name: String) throws -> [EtcdMessage] {
        switch fields[name] {
        case nil: return []
        case .array(let elements)?:
            return try elements.map {
                guard case .dictionary(let d) = $0 else { throw failure(name, "an array of objects") }
                return EtcdMessage(fields: d, source: source)
            }
        default: throw failure(name, "an array")
        }
    }

    /// `header.revision`: the store's revision when the answer was made.
    func headerRevision() throws -> Int64 {
        try object("header")?.int64("revision") ?? 0
    }

    // MARK: etcd's messages

    func keyValue() throws -> EtcdKeyValue {
        EtcdKeyValue(key: try bytes("key"), value: try bytes("value"), createRevision: try int64("create_revision"),
                     modRevision: try int64("mod_revision"), version: try int64("version"), lease: try int64("lease"))
    }

    /// A RangeResponse; `revision` is used when it has no header of its own.
    func range(revision fallback: Int64 = 0) throws -> EtcdRange {
        let revision = try headerRevision()
        return EtcdRange(kvs: try objects("kvs").map { try $0.keyValue() }, count: try int64("count"), more: try bool("more"),
                         revision: revision != 0 ? revision : fallback)
    }

    /// An error the gateway sent: a unary call's `{"error", "code", "message"}` or a stream's
    /// `{"error": {"grpc_code", "message", …}}`. Nil when the message is not one.
    func refusal() -> EtcdRefusal? {
        if let inner = try? object("error") {
            return EtcdRefusal(code: Int((try? inner.int64("grpc_code")) ?? 2), message: (try? inner.string("message")) ?? "")
        }
        guard has("code") || has("error") else { return nil }
        let message = (try? string("message")).flatMap { $0.isEmpty ? nil : $0 } ?? (try? string("error")) ?? ""
        return EtcdRefusal(code: Int((try? int64("code")) ?? 2), message: message)
    }
}
