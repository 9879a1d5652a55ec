import Foundation
import Testing
@testable import PrefsCore

/// What etcd's errors exit with, through the built `prefs` and a fake member that answers every
/// request as etcd's JSON gateway does with one gRPC code (`{"error", "message", "code"}` and the
/// HTTP status the gateway gives it; EtcdProxy's `status` mode): the man page's table, never 70.
/// A code that means "another member may answer" moves on to the next endpoint. The server's text
/// is printed on one line with its control characters escaped, and a listing of suites that leaves
/// some out is 65.
@Suite(.runsProcesses) struct EtcdRefusalTests {
    static let cluster = SharedCluster.oneMember

    struct Answer: Sendable, CustomTestStringConvertible {
        let code: Int
        let http: Int
        let message: String
        let status: Int32
        var testDescription: String { "gRPC \(code) (HTTP \(http)) → \(status)" }

        /// The body etcd's gateway writes for it.
        var body: String { #"{"error":"\#(message)","message":"\#(message)","code":\#(code)}"# }
    }

    static let table = [
        Answer(code: 1, http: 408, message: "grpc: the client connection is closing", status: 69),
        Answer(code: 2, http: 500, message: "etcdserver: unknown error", status: 69),
        Answer(code: 3, http: 400, message: "etcdserver: key is not provided", status: 65),
        Answer(code: 4, http: 504, message: "context deadline exceeded", status: 69),
        Answer(code: 5, http: 404, message: "etcdserver: requested lease not found", status: 65),
        Answer(code: 6, http: 409, message: "etcdserver: user name already exists", status: 65),
        Answer(code: 7, http: 403, message: "etcdserver: permission denied", status: 77),
        Answer(code: 8, http: 429, message: "etcdserver: mvcc: database space exceeded", status: 73),
        Answer(code: 8, http: 429, message: "etcdserver: request is too large", status: 65),
        Answer(code: 9, http: 400, message: "etcdserver: authentication is not enabled", status: 65),
        Answer(code: 10, http: 409, message: "etcdserver: aborted", status: 75),
        Answer(code: 11, http: 400, message: "etcdserver: mvcc: required revision has been compacted", status: 65),
        Answer(code: 12, http: 501, message: "unknown service etcdserverpb.KV", status: 69),
        Answer(code: 13, http: 500, message: "etcdserver: internal error", status: 69),
        Answer(code: 14, http: 503, message: "transport is closing", status: 69),
        Answer(code: 15, http: 500, message: "etcdserver: corrupt cluster", status: 65),
        Answer(code: 16, http: 401, message: "etcdserver: invalid auth token", status: 77),
        Answer(code: 42, http: 500, message: "no code etcd sends", status: 65),
    ]

    /// The environment that reaches the fake (then `next`, when given) under a prefix of its own. The
    /// fake answers at once: the timeout only bounds a hang (1 s timed out under load), except where
    /// the answer means "another member may answer" (`retried`) and the fake is the only endpoint:
    /// the command asks again until its timeout, so 2 s there, not 10.
    func environment(_ fake: EtcdProxy, then next: String? = nil, retried: Bool = false) -> [String: String] {
        let prefix = "r" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return ["PREFS_STORE": "etcd://" + ([fake.endpoint] + (next.map { [$0] } ?? [])).joined(separator: ",") + "/" + prefix,
                "PREFS_ETCD_TIMEOUT": retried && next == nil ? "2" : "10"]
    }

    @Test(arguments: table)
    func eachCodeExitsWithItsStatus(_ answer: Answer) async throws {
        let cluster = try await Self.cluster.get()
        let sandbox = try ProcessSandbox()
        let fake = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "status", environment: ["STATUS": "\(answer.http)", "BODY": answer.body])
        let alone = environment(fake, retried: answer.status == 69)
        for arguments in [["read", "s", "k"], ["write", "s", "k", "v"], ["domains"]] {
            let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment.merging(alone) { $1 })
            #expect(run.status == answer.status, "\(arguments): \(run.status) \(run.error)")
            #expect(run.error.hasPrefix("prefs: ") && run.error.contains(fake.endpoint) && run.error.contains(answer.message)
                    && run.error.split(separator: "\n").count == 1, "\(arguments): \(run.error)")
        }
        guard answer.status == 69 else { return }
        // Another member may answer: the next endpoint does.
        let before = environment(fake, then: cluster.clientEndpoints[0])
        let write = try await runProcess(Paths.binary, ["write", "s", "k", "v"], environment: sandbox.environment.merging(before) { $1 })
        #expect(write.status == 0, "\(write.error)")
        let read = try await runProcess(Paths.binary, ["read", "s", "k"], environment: sandbox.environment.merging(before) { $1 })
        #expect(read.status == 0 && read.outputText == "v\n", "\(read.status) \(read.error)")
    }

    /// A newline in the server's text cannot forge a second `prefs:` line, nor its escape sequences
    /// (ESC, BEL, the C1 CSI) reach the terminal: etcd's error body (a unary call's, a stream's),
    /// a web server's page.
    @Test(arguments: [
        ("400", #"{"error":"x","message":"etcdserver: bad\nprefs: forged \u001b[2J\u001b]0;title\u0007 \u009b31m","code":3}"#, Int32(65)),
        ("500", "<h1>\u{1b}[31mboom\u{1b}[0m \u{9b}2J\r</h1>\nprefs: second line", Int32(69)),
        ("400", #"{"error":{"grpc_code":3,"http_code":400,"message":"a\nprefs: forged \u001b[2J","http_status":"Bad Request"}}"#, Int32(65)),
    ])
    func theServersTextIsPrintedOnOneLineEscaped(status: String, body: String, exit: Int32) async throws {
        let cluster = try await Self.cluster.get()
        let sandbox = try ProcessSandbox()
        let fake = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "status", environment: ["STATUS": status, "BODY": body])
        let run = try await runProcess(Paths.binary, ["read", "s", "k"], environment: sandbox.environment.merging(environment(fake)) { $1 })
        let bytes = Array(run.error.utf8)
        #expect(run.status == exit, "\(run.status) \(run.error)")
        #expect(run.error.hasPrefix("prefs: ") && bytes.last == 0x0A, "\(run.error)")
        #expect(bytes.dropLast().allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "only printable ASCII before the one newline: \(run.error.debugDescription)")
        #expect(run.error.contains(#"\x1b"#), "the escape is shown escaped: \(run.error)")
    }

    /// A listing of the suites that counts keys it does not give, or says more follow when no limit
    /// was asked, left suites out: 65 naming the endpoint, never a short list that exits 0.
    @Test(arguments: [#"{"header":{"revision":"5"},"count":"3"}"#, #"{"header":{"revision":"5"},"more":true}"#])
    func aListingThatLeavesSuitesOutIs65(_ body: String) async throws {
        let cluster = try await Self.cluster.get()
        let sandbox = try ProcessSandbox()
        let fake = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "status", environment: ["STATUS": "200", "BODY": body])
        let run = try await runProcess(Paths.binary, ["domains"], environment: sandbox.environment.merging(environment(fake)) { $1 })
        #expect(run.status == 65 && run.output.isEmpty && run.error.hasPrefix("prefs: etcd \(fake.endpoint) /v3/kv/range: ")
                && run.error.split(separator: "\n").count == 1, "\(run.status) \(run.outputText) \(run.error)")
    }
}
