/// The values an `EtcdClient` sends and receives. Keys and values are bytes: etcd stores any bytes,
/// and the JSON gateway carries them as base64.

/// An etcd member's address (`NetworkEndpoint`).
package typealias EtcdEndpoint = NetworkEndpoint

/// A key as stored, with etcd's bookkeeping. A deletion seen by a watch carries only the key and
/// `modRevision` (the revision of the deletion); the other fields are empty or zero.
package struct EtcdKeyValue: Sendable, Equatable {
    package let key: [UInt8]
    package let value: [UInt8]
    /// The revision of the put that created the key (since its last deletion).
    package let createRevision: Int64
    /// The revision of the last change.
    package let modRevision: Int64
    /// How many puts since creation (1 after the first).
    package let version: Int64
    /// The lease the key is attached to; 0: none.
    package let lease: Int64

    package init(key: [UInt8], value: [UInt8], createRevision: Int64, modRevision: Int64, version: Int64, lease: Int64) {
        self.key = key
        self.value = value
        self.createRevision = createRevision
        self.modRevision = modRevision
        self.version = version
        self.lease = lease
    }
}

/// The answer to a range request.
package struct EtcdRange: Sendable, Equatable {
    /// The keys found, in key order (empty with `countOnly`; values empty with `keysOnly`).
    package let kvs: [EtcdKeyValue]
    /// How many keys are in the range (all of them, even past a `limit`).
    package let count: Int64
    /// More keys are in the range than `limit` let through.
    package let more: Bool
    /// The store's revision the answer was read at (the response header's).
    package let revision: Int64

    package init(kvs: [EtcdKeyValue], count: Int64, more: Bool, revision: Int64) {
        self.kvs = kvs
        self.count = count
        self.more = more
        self.revision = revision
    }
}

extension EtcdRange {
    /// This answer, after checking it could be etcd's to a range of [key, rangeEnd) (just `key`
    /// without `rangeEnd`): every key inside, in increasing order, no more than `limit` (0: any, and
    /// then as many as it counts), none with `countOnly`. Else `.malformed`, from `message`'s endpoint: a key outside would be
    /// cut as if it were inside (`zzzz/evil` shown as a key of the suite asked for).
    func checked(asked key: [UInt8], rangeEnd: [UInt8]?, limit: Int64 = 0, countOnly: Bool = false, by message: EtcdMessage) throws -> EtcdRange {
        if countOnly, !kvs.isEmpty { throw message.unexpected("a count-only range returned keys") }
        if limit > 0, kvs.count > limit { throw message.unexpected("a range limited to \(limit) keys returned \(kvs.count)") }
        var previous: [UInt8]?
        for kv in kvs {
            guard EtcdKeys.contains(kv.key, from: key, to: rangeEnd) else {
                throw message.unexpected("key \(ByteText.escaped(kv.key)) is outside the range asked for")
            }
            if let previous, !previous.lexicographicallyPrecedes(kv.key) {
                throw message.unexpected("key \(ByteText.escaped(kv.key)) is out of order or repeated")
            }
            previous = kv.key
        }
        // Without a limit, every key in the range comes: an answer that counts more, or says more
        // follow, left some out (a listing of suites that would be silently short).
        let whole = limit == 0 && !countOnly
        if Int64(kvs.count) > count || (whole && Int64(kvs.count) != count), !countOnly {
            throw message.unexpected("a range returned \(kvs.count) keys and counted \(count)")
        }
        if whole && more { throw message.unexpected("a range without a limit said more keys follow") }
        return self
    }
}

/// One condition of a transaction. A key that does not exist has version, create and mod revision 0.
package enum EtcdCompare: Sendable {
    /// The key's (with `rangeEnd`: every key in [key, rangeEnd)'s) last-modified revision.
    case modRevision(key: [UInt8], rangeEnd: [UInt8]? = nil, op: Op, Int64)
    case version(key: [UInt8], op: Op, Int64)
    case createRevision(key: [UInt8], op: Op, Int64)

    package enum Op: String, Sendable {
        case equal = "EQUAL", greater = "GREATER", less = "LESS", notEqual = "NOT_EQUAL"
    }
}

/// One operation of a transaction.
package enum EtcdOperation: Sendable {
    /// `revision` 0: the latest; else the keys as they were at that revision.
    case range(key: [UInt8], rangeEnd: [UInt8]? = nil, keysOnly: Bool = false, revision: Int64 = 0)
    case put(key: [UInt8], value: [UInt8], lease: Int64 = 0)
    case delete(key: [UInt8], rangeEnd: [UInt8]? = nil)
}

/// What a transaction did.
package struct EtcdTxnResult: Sendable, Equatable {
    /// Every comparison held, so the success branch ran (else the failure branch).
    package let succeeded: Bool
    /// The store's revision after the transaction (unchanged when the branch that ran only read).
    package let revision: Int64
    /// The answers of the branch's range operations, in order.
    package let ranges: [EtcdRange]
    /// The request was sent more than once (after a connection loss or a timeout): an earlier send
    /// may have committed, so a failed compare may be this transaction's own earlier effect.
    package let resent: Bool

    package init(succeeded: Bool, revision: Int64, ranges: [EtcdRange], resent: Bool = false) {
        self.succeeded = succeeded
        self.revision = revision
        self.ranges = ranges
        self.resent = resent
    }
}

/// One change a watch reports.
package enum EtcdWatchEvent: Sendable, Equatable {
    case put(EtcdKeyValue)
    /// The key and the deletion's revision (`modRevision`).
    case delete(EtcdKeyValue)

    package var keyValue: EtcdKeyValue {
        switch self {
        case .put(let kv), .delete(let kv): return kv
        }
    }
}
