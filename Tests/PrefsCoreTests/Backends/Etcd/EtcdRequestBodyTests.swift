import Testing
@testable import PrefsCore

/// `EtcdRequestBody.encodeTxn`, the transaction's JSON written straight to bytes, against the JSON
/// the same request makes as values through the JSON encoder.
@Suite struct EtcdRequestBodyTests {
    static func viaValues(_ compare: [EtcdCompare], _ success: [EtcdOperation], _ failure: [EtcdOperation]) throws -> [UInt8] {
        try EtcdRequestBody.encode(EtcdRequestBody.txn(compare: compare, success: success, failure: failure))
    }

    /// Keys of every length modulo 3 (base64 with and without padding), and bytes JSON would escape
    /// were they text.
    static let keys: [[UInt8]] = [[], [0x61], [0x61, 0x62], [0x61, 0x62, 0x63], Array("p/.suites/s\"\\".utf8), Array(0...255)]

    static let cases: [(String, [EtcdCompare], [EtcdOperation], [EtcdOperation])] = [
        ("nothing", [], [], []),
        ("a one-key read", [], keys.map { .range(key: $0) }, []),
        ("ranges of every shape", [], [
            .range(key: keys[1], rangeEnd: keys[2]), .range(key: keys[3], keysOnly: true), .range(key: keys[4], revision: 42),
            .range(key: keys[5], rangeEnd: [0], keysOnly: true, revision: Int64.max),
        ], []),
        ("a change", [
            .modRevision(key: keys[4], op: .equal, 0), .modRevision(key: keys[1], rangeEnd: keys[2], op: .less, 17),
            .version(key: keys[3], op: .greater, 3), .createRevision(key: keys[5], op: .notEqual, -1),
        ], [
            .put(key: keys[4], value: keys[5]), .put(key: keys[1], value: [], lease: 7_587_000_123),
            .delete(key: keys[2]), .delete(key: keys[3], rangeEnd: keys[4]),
        ], [
            .range(key: keys[4]), .put(key: keys[0], value: keys[3]), .delete(key: keys[5], rangeEnd: [0xFF]),
        ]),
    ]

    @Test(arguments: cases)
    func writesWhatTheValuesWrite(name: String, compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]) throws {
        let direct = EtcdRequestBody.encodeTxn(compare: compare, success: success, failure: failure)
        #expect(String(decoding: direct, as: UTF8.self) == String(decoding: try Self.viaValues(compare, success, failure), as: UTF8.self), "\(name)")
    }

    @Test func theBytesAreJSONThatReadsBack() throws {
        let (_, compare, success, failure) = Self.cases[3]
        let message = try EtcdMessage(json: EtcdRequestBody.encodeTxn(compare: compare, success: success, failure: failure), source: "test")
        #expect(try message.objects("compare").count == 4)
        #expect(try message.objects("success").count == 4)
        let put = try #require(try message.objects("success")[1].object("request_put"))
        #expect(try put.int64("lease") == 7_587_000_123)
        #expect(try put.bytes("key") == Self.keys[1])
        let read = try #require(try message.objects("failure")[0].object("request_range"))
        #expect(try read.bytes("key") == Self.keys[4])
    }
}
