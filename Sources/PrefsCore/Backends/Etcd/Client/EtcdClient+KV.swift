/// Keys, transactions and leases: one POST each to the gateway's `/v3/kv/…` and `/v3/lease/…`.
extension EtcdClient {
    /// The keys in [key, rangeEnd) (just `key` without `rangeEnd`), in key order. `limit` 0: all;
    /// `revision` 0: the latest.
    package func range(_ key: [UInt8], rangeEnd: [UInt8]? = nil, limit: Int64 = 0, keysOnly: Bool = false, countOnly: Bool = false,
                      revision: Int64 = 0) throws -> EtcdRange {
        let fields = EtcdRequestBody.range(key, rangeEnd: rangeEnd, limit: limit, keysOnly: keysOnly, countOnly: countOnly, revision: revision)
        return try call("/v3/kv/range", fields, idempotent: true) { message in
            try message.requireHeader()
            return try message.range().checked(asked: key, rangeEnd: rangeEnd, limit: limit, countOnly: countOnly, by: message)
        }
    }

    /// Stores `value` at `key`; returns the store's new revision.
    @discardableResult
    package func put(_ key: [UInt8], _ value: [UInt8], lease: Int64 = 0) throws -> Int64 {
        try call("/v3/kv/put", EtcdRequestBody.put(key, value, lease: lease)) { try $0.headerRevision() }
    }

    /// Deletes the keys in [key, rangeEnd) (just `key` without `rangeEnd`): how many, and the
    /// store's revision after.
    @discardableResult
    package func delete(_ key: [UInt8], rangeEnd: [UInt8]? = nil) throws -> (deleted: Int64, revision: Int64) {
        try call("/v3/kv/deleterange", EtcdRequestBody.delete(key, rangeEnd: rangeEnd)) {
            (try $0.int64("deleted"), try $0.headerRevision())
        }
    }

    /// Runs `success` when every comparison holds, else `failure`, atomically. The answer has the
    /// shape etcd gives, or the call throws `.malformed` naming the endpoint: one response per
    /// operation of the branch that ran, each of its operation's kind, every key a range returns
    /// inside the range asked for; a transaction without comparisons says it succeeded (etcd leaves
    /// `succeeded` out when false, so its absence is taken as false only where a comparison could fail).
    package func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation] = []) throws -> EtcdTxnResult {
        try txn(compare: compare, success: success, failure: failure, deadline: MonotonicClock.now() + timeout)
    }

    /// `txn`, given up at `deadline` (CLOCK_MONOTONIC seconds).
    package func txn(compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation], deadline: Double) throws -> EtcdTxnResult {
        // A transaction of ranges alone (a read of a suite and its layers) changes nothing.
        let reads = (success + failure).allSatisfy { if case .range = $0 { true } else { false } }
        return try call("/v3/kv/txn", body: EtcdRequestBody.encodeTxn(compare: compare, success: success, failure: failure),
                        idempotent: reads, deadline: deadline,
                        quick: { EtcdTxnReader.result($0, compare: compare, success: success, failure: failure, resent: $1) }) { message, resent in
            try EtcdClient.txnResult(message, compare: compare, success: success, failure: failure, resent: resent)
        }
    }

    /// A transaction's answer, checked as `txn` says (`EtcdTxnReader` takes the common case first).
    static func txnResult(_ message: EtcdMessage, compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation],
                          resent: Bool) throws -> EtcdTxnResult {
        try message.requireHeader()
        let revision = try message.headerRevision()
        let succeeded = try message.bool("succeeded")
        guard succeeded || !compare.isEmpty else {
            throw message.unexpected("a transaction without comparisons did not say it succeeded")
        }
        let operations = succeeded ? success : failure
        let responses = try message.objects("responses")
        guard responses.count == operations.count else {
            throw message.unexpected("\(responses.count) responses to the \(operations.count) operations of the \(succeeded ? "success" : "failure") branch")
        }
        var ranges: [EtcdRange] = []
        for (operation, response) in zip(operations, responses) {
            switch operation {
            case .range(let key, let rangeEnd, _, _):
                guard let answer = try response.object("response_range") else { throw message.unexpected("a range has no response_range") }
                ranges.append(try answer.range(revision: revision).checked(asked: key, rangeEnd: rangeEnd, by: message))
            case .put:
                guard try response.object("response_put") != nil else { throw message.unexpected("a put has no response_put") }
            case .delete:
                guard try response.object("response_delete_range") != nil else {
                    throw message.unexpected("a delete has no response_delete_range")
                }
            }
        }
        return EtcdTxnResult(succeeded: succeeded, revision: revision, ranges: ranges, resent: resent)
    }

    /// A new lease of `ttl` seconds; returns its ID.
    package func grantLease(ttl: Int64) throws -> Int64 {
        try call("/v3/lease/grant", [("TTL", .integer(ttl))]) { message in
            let error = try message.string("error")
            guard error.isEmpty else { throw EtcdRefusal(code: 2, message: error) }
            let id = try message.int64("ID")
            guard id != 0, try message.int64("TTL") > 0 else { throw message.unexpected("a granted lease has no ID or TTL") }
            return id
        }
    }

    /// Ends a lease: the keys attached to it are deleted.
    package func revokeLease(_ id: Int64) throws {
        try call("/v3/lease/revoke", [("ID", .integer(id))]) { _ in () }
    }

    /// Renews a lease for its whole TTL; returns the TTL. A lease that expired or was revoked is
    /// `storeRefused` with code 5 (NOT_FOUND), as etcd's own client reports it.
    @discardableResult
    package func keepAlive(_ id: Int64) throws -> Int64 {
        try call("/v3/lease/keepalive", [("ID", .integer(id))], streamed: true) { result in
            // etcd names the lease in every answer, a lease not found too (its TTL left out: 0).
            guard try result.int64("ID") == id else { throw result.unexpected("a keep-alive answer names another lease, or none") }
            let ttl = try result.int64("TTL")
            guard ttl > 0 else { throw EtcdRefusal(code: 5, message: "etcdserver: requested lease not found") }
            return ttl
        }
    }
}
