/// A transaction's answer read straight from the bytes of the gateway's JSON, without building it
/// as values first: the general parser and `EtcdMessage` spend about 0.3 M instructions on the
/// twenty ranges of a one-key read, in every command. It takes only JSON the way the gateway writes
/// it — compact, strings of ASCII without escapes, int64 fields as strings of digits, members in
/// any order, unknown members (without numbers or nulls) skipped — and only an answer that passes
/// every check `EtcdClient.txn` makes. Anything else is nil, and the general path reads the answer
/// again: it takes what this one leaves, and names what is wrong with the rest, so this reader
/// never decides an error.
struct EtcdTxnReader {
    private let bytes: [UInt8]
    private var at = 0

    /// A response of the transaction: a range's answer, or which other kind it was.
    private enum Response {
        case range(kvs: [EtcdKeyValue], count: Int64, more: Bool, revision: Int64)
        case put, delete, other
    }

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The result of a transaction of `operations` (the branch that ran) from `body`, or nil when
    /// the general path must read it.
    static func result(_ body: [UInt8], compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation],
                       resent: Bool) -> EtcdTxnResult? {
        var reader = EtcdTxnReader(body)
        guard let (revision, succeeded, responses) = reader.answer(), revision > 0, succeeded || !compare.isEmpty else { return nil }
        let operations = succeeded ? success : failure
        guard responses.count == operations.count else { return nil }
        let nobody = EtcdMessage(fields: [:], source: "")
        var ranges: [EtcdRange] = []
        for (operation, response) in zip(operations, responses) {
            switch (operation, response) {
            case (.range(let key, let rangeEnd, _, _), .range(let kvs, let count, let more, let own)):
                let range = EtcdRange(kvs: kvs, count: count, more: more, revision: own != 0 ? own : revision)
                guard let checked = try? range.checked(asked: key, rangeEnd: rangeEnd, by: nobody) else { return nil }
                ranges.append(checked)
            case (.put, .put), (.delete, .delete): break
            default: return nil
            }
        }
        return EtcdTxnResult(succeeded: succeeded, revision: revision, ranges: ranges, resent: resent)
    }

    /// `{"header":{…},"succeeded":…,"responses":[…]}`: the header's revision (0 without one).
    private mutating func answer() -> (revision: Int64, succeeded: Bool, responses: [Response])? {
        var revision: Int64 = 0, succeeded = false, responses: [Response] = []
        let read = members { reader, name in
            if reader.named(name, "header") {
                guard let header = reader.header() else { return false }
                revision = header
            } else if reader.named(name, "succeeded") {
                guard let flag = reader.bool() else { return false }
                succeeded = flag
            } else if reader.named(name, "responses") {
                responses = []
                return reader.elements { reader in
                    guard let response = reader.response() else { return false }
                    responses.append(response)
                    return true
                }
            } else {
                return reader.skip(depth: 0)
            }
            return true
        }
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 { at += 1 }
        guard read, at == bytes.count else { return nil }
        return (revision, succeeded, responses)
    }

    /// A header's revision (0 when it has none).
    private mutating func header() -> Int64? {
        var revision: Int64 = 0
        let read = members { reader, name in
            guard reader.named(name, "revision") else { return reader.skip(depth: 1) }
            guard let value = reader.int64() else { return false }
            revision = value
            return true
        }
        return read ? revision : nil
    }

    /// `{"response_range":{…}}`, `{"response_put":{…}}` or `{"response_delete_range":{…}}`.
    private mutating func response() -> Response? {
        var response = Response.other
        let read = members { reader, name in
            if reader.named(name, "response_range") {
                guard let range = reader.range() else { return false }
                response = range
            } else if reader.named(name, "response_put") || reader.named(name, "response_delete_range") {
                guard reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: "{"), reader.skip(depth: 1) else { return false }
                response = reader.named(name, "response_put") ? .put : .delete
            } else {
                return reader.skip(depth: 1)
            }
            return true
        }
        return read ? response : nil
    }

    /// A RangeResponse: `header`, `kvs`, `count`, `more`.
    private mutating func range() -> Response? {
        var kvs: [EtcdKeyValue] = [], count: Int64 = 0, more = false, revision: Int64 = 0
        let read = members { reader, name in
            if reader.named(name, "header") {
                guard let header = reader.header() else { return false }
                revision = header
            } else if reader.named(name, "kvs") {
                kvs = []
                return reader.elements { reader in
                    guard let kv = reader.keyValue() else { return false }
                    kvs.append(kv)
                    return true
                }
            } else if reader.named(name, "count") {
                guard let value = reader.int64() else { return false }
                count = value
            } else if reader.named(name, "more") {
                guard let flag = reader.bool() else { return false }
                more = flag
            } else {
                return reader.skip(depth: 2)
            }
            return true
        }
        return read ? .range(kvs: kvs, count: count, more: more, revision: revision) : nil
    }

    /// A KeyValue: `key` and `value` in base64, its revisions, version and lease.
    private mutating func keyValue() -> EtcdKeyValue? {
        var key: [UInt8] = [], value: [UInt8] = [], numbers: [Int64] = [0, 0, 0, 0]
        let fields: [StaticString] = ["create_revision", "mod_revision", "version", "lease"]
        let read = members { reader, name in
            if reader.named(name, "key") || reader.named(name, "value") {
                guard let text = reader.string(), let decoded = Base64.decode(reader.bytes[text]) else { return false }
                if reader.named(name, "key") { key = decoded } else { value = decoded }
            } else if let field = fields.firstIndex(where: { reader.named(name, $0) }) {
                guard let number = reader.int64() else { return false }
                numbers[field] = number
            } else {
                return reader.skip(depth: 3)
            }
            return true
        }
        guard read else { return nil }
        return EtcdKeyValue(key: key, value: value, createRevision: numbers[0], modRevision: numbers[1], version: numbers[2], lease: numbers[3])
    }

    // MARK: JSON, as the gateway writes it

    /// Whether the string at `name` (its bytes between the quotes) is `expected`.
    private func named(_ name: Range<Int>, _ expected: StaticString) -> Bool {
        guard name.count == expected.utf8CodeUnitCount else { return false }
        let start = expected.utf8Start
        for i in 0..<name.count where bytes[name.lowerBound + i] != start[i] { return false }
        return true
    }

    /// `{"name":value,…}`, each member's value read by `member` (false: not a member this reader takes).
    private mutating func members(_ member: (inout EtcdTxnReader, Range<Int>) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let name = string(), take(UInt8(ascii: ":")), member(&self, name) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// `[element,…]`, each read by `element`.
    private mutating func elements(_ element: (inout EtcdTxnReader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard element(&self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard at < bytes.count, bytes[at] == byte else { return false }
        at += 1
        return true
    }

    /// A string's bytes between its quotes: printable ASCII, no escape.
    private mutating func string() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = at
        while at < bytes.count, bytes[at] != UInt8(ascii: "\"") {
            guard bytes[at] >= 0x20, bytes[at] < 0x7F, bytes[at] != UInt8(ascii: "\\") else { return nil }
            at += 1
        }
        guard at < bytes.count else { return nil }
        at += 1
        return start..<at - 1
    }

    /// An int64 as the gateway writes it: a string of decimal digits, perhaps after `-`.
    private mutating func int64() -> Int64? {
        guard let text = string(), !text.isEmpty else { return nil }
        let negative = bytes[text.lowerBound] == UInt8(ascii: "-")
        let digits = text.dropFirst(negative ? 1 : 0)
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var n: Int64 = 0
        for i in digits {
            guard bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = n.multipliedReportingOverflow(by: 10)
            let (sum, overflowAgain) = times.addingReportingOverflow(Int64(bytes[i] - UInt8(ascii: "0")))
            guard !overflow, !overflowAgain else { return nil }
            n = sum
        }
        return negative ? -n : n
    }

    private mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count, named(at..<at + count, word) else { return false }
        at += count
        return true
    }

    /// Passes over a member this reader does not use: a string, `true`, `false`, or an object or
    /// array of those (no number, no null: they go to the general path), at most 8 levels deep.
    private mutating func skip(depth: Int) -> Bool {
        guard depth < 8, at < bytes.count else { return false }
        switch bytes[at] {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "{"): return members { reader, _ in reader.skip(depth: depth + 1) }
        case UInt8(ascii: "["): return elements { $0.skip(depth: depth + 1) }
        default: return bool() != nil
        }
    }
}
