// TEMPORARY: the client API agreed with the etcd client's author, so the store compiles before the
// client lands. Removed when the client is merged.
public struct EtcdEndpoint: Hashable, Sendable { public let host: String; public let port: UInt16 }
public struct EtcdKeyValue: Sendable, Equatable {
    public let key: [UInt8]; public let value: [UInt8]; public let createRevision: Int64; public let modRevision: Int64
    public let version: Int64; public let lease: Int64
    public init(key: [UInt8], value: [UInt8], createRevision: Int64, modRevision: Int64, version: Int64, lease: Int64) {
        self.key = key; self.value = value; self.createRevision = createRevision; self.modRevision = modRevision; self.version = version; self.lease = lease
    }
}
public struct EtcdRange: Sendable {
    public let kvs: [EtcdKeyValue]; public let count: Int64; public let more: Bool; public let revision: Int64
    public init(kvs: [EtcdKeyValue], count: Int64, more: Bool, revision: Int64) { self.kvs = kvs; self.count = count; self.more = more; self.revision = revision }
}
public enum EtcdCompare: Sendable {
    case modRevision(key: [UInt8], rangeEnd: [UInt8]? = nil, op: Op, Int64)
    case version(key: [UInt8], op: Op, Int64)
    case createRevision(key: [UInt8], op: Op, Int64)
    public enum Op: String, Sendable { case equal = "EQUAL", greater = "GREATER", less = "LESS", notEqual = "NOT_EQUAL" }
}
public enum EtcdOperation: Sendable {
    case range(key: [UInt8], rangeEnd: [UInt8]? = nil, keysOnly: Bool = false)
    case put(key: [UInt8], value: [UInt8], lease: Int64 = 0)
    case delete(key: [UInt8], rangeEnd: [UInt8]? = nil)
}
public struct EtcdTxnResult: Sendable {
    public let succeeded: Bool; public let revision: Int64; public let ranges: [EtcdRange]
    public init(succeeded: Bool, revision: Int64, ranges: [EtcdRange]) { self.succeeded = succeeded; self.revision = revision; self.ranges = ranges }
}
public enum EtcdWatchEvent: Sendable { case put(EtcdKeyValue); case delete(EtcdKeyValue) }
