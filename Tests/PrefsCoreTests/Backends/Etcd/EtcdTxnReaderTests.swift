import Testing
@testable import PrefsCore

/// `EtcdTxnReader`, the transaction's answer read from its bytes, against the general path
/// (`EtcdMessage` and `EtcdClient.txnResult`): where it reads an answer it reads the same, and it
/// leaves to the general path everything it does not take, every answer in error among them.
@Suite struct EtcdTxnReaderTests {
    static func b64(_ text: String) -> String { Base64.encode(Array(text.utf8)) }

    static let reads: [EtcdOperation] = [.range(key: Array("p/.suites/s".utf8)), .range(key: Array("p/s/k".utf8)),
                                         .range(key: Array("p/s/".utf8), rangeEnd: Array("p/s0".utf8))]
    static let header = #"{"cluster_id":"13094354242287368828","member_id":"17064124208447892753","revision":"7","raft_term":"2"}"#
    static let kv = #"{"key":"\#(b64("p/s/k"))","create_revision":"2","mod_revision":"5","version":"3","value":"\#(b64("bplist00"))","lease":"-4"}"#
    /// An answer to `reads` as etcd's gateway writes it.
    static let answer = #"{"header":\#(header),"succeeded":true,"responses":[{"response_range":{"header":{"revision":"7"}}},"#
        + #"{"response_range":{"header":{"revision":"7"},"kvs":[\#(kv)],"count":"1"}},"#
        + #"{"response_range":{"header":{"revision":"6"},"kvs":[\#(kv.replacingOccurrences(of: b64("p/s/k"), with: b64("p/s/a"))),\#(kv)],"count":"2"}}]}"#

    static func general(_ body: String, compare: [EtcdCompare] = [], success: [EtcdOperation] = reads,
                        failure: [EtcdOperation] = []) -> EtcdTxnResult? {
        try? EtcdClient.txnResult(EtcdMessage(json: Array(body.utf8), source: "test"), compare: compare, success: success, failure: failure, resent: false)
    }

    static func quick(_ body: String, compare: [EtcdCompare] = [], success: [EtcdOperation] = reads,
                      failure: [EtcdOperation] = []) -> EtcdTxnResult? {
        EtcdTxnReader.result(Array(body.utf8), compare: compare, success: success, failure: failure, resent: false)
    }

    @Test func readsTheGatewaysAnswerAsTheGeneralPathDoes() throws {
        let read = try #require(Self.quick(Self.answer))
        #expect(read == Self.general(Self.answer))
        #expect(read.revision == 7 && read.succeeded && read.ranges.map(\.revision) == [7, 7, 6])
        #expect(read.ranges[1].kvs == [EtcdKeyValue(key: Array("p/s/k".utf8), value: Array("bplist00".utf8), createRevision: 2,
                                                    modRevision: 5, version: 3, lease: -4)])
        #expect(read.ranges.map(\.count) == [0, 1, 2])
    }

    static let changes: [(String, [EtcdCompare], [EtcdOperation], [EtcdOperation])] = [
        (#"{"header":{"revision":"9"},"succeeded":true,"responses":[{"response_put":{"header":{"revision":"9"}}},{"response_delete_range":{"header":{}}}]}"#,
         [.version(key: [1], op: .equal, 0)], [.put(key: [1], value: [2]), .delete(key: [1])], []),
        (#"{"header":{"revision":"9"},"responses":[{"response_range":{"header":{"revision":"9"},"kvs":[{"key":"AQ==","value":"","mod_revision":"8"}],"count":"1"}}]}"#,
         [.version(key: [1], op: .equal, 0)], [.put(key: [1], value: [2])], [.range(key: [1])]),
    ]

    @Test(arguments: changes)
    func readsAChangesAnswerAsTheGeneralPathDoes(body: String, compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]) throws {
        let read = try #require(Self.quick(body, compare: compare, success: success, failure: failure))
        #expect(read == Self.general(body, compare: compare, success: success, failure: failure))
    }

    /// Answers of JSON the gateway does not write, which the general path reads.
    static let generalOnly = [
        Self.answer.replacingOccurrences(of: ",", with: ", "),
        Self.answer.replacingOccurrences(of: #""count":"1""#, with: #""count":1"#),
        Self.answer.replacingOccurrences(of: #""raft_term":"2""#, with: #""raft_term":null"#),
        Self.answer.replacingOccurrences(of: #""cluster_id":"1"#, with: #""cluster_id":"\u0031"#),
        Self.answer.replacingOccurrences(of: #""version":"3""#, with: #""version":"+3""#),
    ]

    /// Answers that are not etcd's, which the general path refuses.
    static let refused = [
        Self.answer.replacingOccurrences(of: #"{"header":{"cluster_id""#, with: #"{"heder":{"cluster_id""#),
        Self.answer.replacingOccurrences(of: #""count":"2""#, with: #""count":"1""#),
        Self.answer.replacingOccurrences(of: #""count":"2""#, with: #""count":"2","more":true"#),
        Self.answer.replacingOccurrences(of: b64("p/s/a"), with: b64("p/t")),
        Self.answer.replacingOccurrences(of: #"{"response_range":{"header":{"revision":"7"}}},"#, with: ""),
        Self.answer.replacingOccurrences(of: #""succeeded":true,"#, with: ""),
        Self.answer.replacingOccurrences(of: #""value":"YnBsaXN0MDA=""#, with: #""value":"Yn$s""#),
        Self.answer.replacingOccurrences(of: #""version":"3""#, with: #""version":"99999999999999999999""#),
        String(Self.answer.dropLast()),
        Self.answer + "x",
    ]

    @Test(arguments: generalOnly.indices)
    func leavesToTheGeneralPathJSONTheGatewayDoesNotWrite(index: Int) {
        #expect(Self.general(Self.generalOnly[index]) != nil)
        #expect(Self.quick(Self.generalOnly[index]) == nil)
    }

    @Test(arguments: refused.indices)
    func leavesToTheGeneralPathAnswersInError(index: Int) {
        #expect(Self.general(Self.refused[index]) == nil)
        #expect(Self.quick(Self.refused[index]) == nil)
    }

    /// Every answer the reader takes, the general path takes too, and reads the same: the answer
    /// with bytes changed, removed and repeated at random (a fixed seed).
    @Test func whatItTakesTheGeneralPathReadsTheSame() {
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        let alphabet = Array(#"{}[]",:0123456789-tfrue"#.utf8) + [0x20, 0x41, 0x5C]
        var taken = 0
        for _ in 0..<3000 {
            var bytes = Array(Self.answer.utf8)
            for _ in 0...next(3) {
                let at = next(bytes.count)
                switch next(3) {
                case 0: bytes[at] = alphabet[next(alphabet.count)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(bytes[at], at: at)
                }
            }
            let body = String(decoding: bytes, as: UTF8.self)
            guard let read = Self.quick(body) else { continue }
            taken += 1
            #expect(read == Self.general(body), "\(body)")
        }
        #expect(taken > 100)
    }
}
