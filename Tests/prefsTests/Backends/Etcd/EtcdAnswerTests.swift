import Foundation
import Testing
@testable import PrefsCore

/// Answers etcd never gives, through the built `prefs` and a real member behind a proxy that
/// misbehaves on purpose (Tests/Tools/etcd-proxy.py): an answer of the wrong shape is 65 naming the
/// endpoint (never a trap, never "no such suite", never a retry loop); an HTTP status etcd's gateway
/// never sends means "not an etcd gateway": the next endpoint, or 69 naming what answered; a refused
/// connection moves on at once, and every endpoint refusing is 69 at once, not at the timeout.
@Suite(.serialized, .runsProcesses) struct EtcdAnswerTests {
    static let cluster = SharedCluster.oneMember

    /// A fleet whose suite `s` holds `k = v` and `n = 1`, and the environment to reach it through `proxy`.
    func seeded(_ fleet: FleetSandbox, through proxy: EtcdProxy, timeout: String = "5") async throws -> [String: String] {
        try #require(await fleet.prefs("write", "s", "k", "v", "n", "-int", "1").status == 0)
        let prefix = String(fleet.url.split(separator: "/").last!)
        return ["PREFS_STORE": "etcd://\(proxy.endpoint)/\(prefix)", "PREFS_ETCD_TIMEOUT": timeout]
    }

    /// One line, `prefs: …`, naming the endpoint (`lines`: one per suite, for `find`).
    func isOneLine(_ run: ProcessResult, naming endpoint: String, lines: Int = 1) -> Bool {
        let all = run.error.split(separator: "\n")
        return all.count == lines && all.allSatisfy { $0.hasPrefix("prefs: ") && $0.contains(endpoint) }
    }

    /// Every POST answered `200 {"header":{"revision":"10"}}`: no responses, no "succeeded".
    @Test func aHollowAnswerIs65NamingTheEndpointForEveryVerb() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        let proxy = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "hollow")
        // A long lock timeout: a write that took the answer for a conflict would retry until it.
        let cut = try await seeded(fleet, through: proxy).merging(["PREFS_LOCK_TIMEOUT": "60"]) { $1 }
        // (`domains` reads one range: `{"header"…}` is a right answer to it, with no suite.)
        for arguments in [["read", "s", "k"], ["read", "s"], ["read-type", "s", "k"], ["write", "s", "k", "w"], ["delete", "s", "k"], ["dump"]] {
            let run = try await fleet.prefs(arguments, environment: cut)
            #expect(run.status == 65 && isOneLine(run, naming: proxy.endpoint) && run.output.isEmpty, "\(arguments): \(run.status) \(run.error)")
            #expect(run.elapsed < 30, "\(arguments): no retry until the lock timeout")
        }
        #expect(try await fleet.prefs("read", "s", "k").outputText == "v\n", "nothing changed")
    }

    /// A key outside the range asked for (`zzzzzzzzzz/evil` in the answer for the suite's keys) is
    /// never cut into a key of the suite: 65, and nothing of it reaches the output.
    @Test func aKeyOutsideTheRangeAskedForIs65() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        let proxy = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "foreignkey", environment: ["FOREIGN": "zzzzzzzzzz%2Fevil"])
        let cut = try await seeded(fleet, through: proxy)
        // A one-key read reads the registered defaults whole in its transaction: a range too.
        for arguments in [["read", "s"], ["read", "s", "k"], ["dump"], ["export", "s", "-"], ["find", "evil"]] {
            let run = try await fleet.prefs(arguments, environment: cut)
            let lines = arguments[0] == "find" ? 2 : 1  // find reports each suite (s, the global one) and goes on
            #expect(run.status == 65 && isOneLine(run, naming: proxy.endpoint, lines: lines) && run.error.contains("outside the range"),
                    "\(arguments): \(run.status) \(run.error)")
            #expect(!run.outputText.contains("evil") && !run.outputText.contains("il ="), "\(arguments): \(run.outputText)")
        }
        #expect(try await fleet.prefs("read", "s").outputText.contains("k = v"), "nothing changed")
    }

    /// A redirect, a grpc-proxy's 404 and an HTML 500 are no etcd answers: the next endpoint is
    /// used; alone, 69 naming what answered.
    @Test(arguments: [
        ["STATUS": "307", "BODY": "", "LOCATION": "http://10.0.0.9:2379/v3/kv/txn"],
        ["STATUS": "404", "BODY": "404 page not found\n"],
        ["STATUS": "500", "BODY": "<html><body><h1>500 Internal Server Error</h1></body></html>"],
    ])
    func anHTTPStatusEtcdNeverSendsIsNoGateway(_ answer: [String: String]) async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        let proxy = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "status", environment: answer)
        var cut = try await seeded(fleet, through: proxy)
        let alone = try await fleet.prefs("read", "s", "k", environment: cut)
        #expect(alone.status == 69 && isOneLine(alone, naming: proxy.endpoint) && alone.error.contains("\(proxy.endpoint) answered HTTP \(answer["STATUS"]!)"),
                "\(alone.status) \(alone.error)")
        let write = try await fleet.prefs("write", "s", "k", "w", environment: cut)
        #expect(write.status == 69 && isOneLine(write, naming: proxy.endpoint), "\(write.status) \(write.error)")
        // Before a real member: it answers.
        let prefix = String(fleet.url.split(separator: "/").last!)
        cut["PREFS_STORE"] = "etcd://\(proxy.endpoint),\(cluster.clientEndpoints[0])/\(prefix)"
        let next = try await fleet.prefs("read", "s", "k", environment: cut)
        #expect(next.status == 0 && next.outputText == "v\n", "\(next.status) \(next.error)")
    }

    /// Nothing listening: the next endpoint at once; all of them refusing, 69 at once — well before
    /// a long PREFS_ETCD_TIMEOUT — naming them.
    @Test func refusedConnectionsFailFast() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        try #require(await fleet.prefs("write", "s", "k", "v").status == 0)
        let dead = try EtcdCluster.freePorts(2).map { "127.0.0.1:\($0)" }
        let prefix = String(fleet.url.split(separator: "/").last!)
        let refused = try await fleet.prefs("read", "s", "k", environment: ["PREFS_STORE": "etcd://\(dead.joined(separator: ","))/\(prefix)", "PREFS_ETCD_TIMEOUT": "60"])
        #expect(refused.status == 69 && refused.error.contains(dead[0]) && refused.error.contains(dead[1])
                && refused.error.hasSuffix("connection refused\n") && refused.error.split(separator: "\n").count == 1, "\(refused.status) \(refused.error)")
        #expect(refused.elapsed < 10, "not the 60 s timeout")
        let write = try await fleet.prefs("write", "s", "k", "w", environment: ["PREFS_STORE": "etcd://\(dead[0]),\(cluster.clientEndpoints[0])/\(prefix)",
                                                                         "PREFS_ETCD_TIMEOUT": "60"])
        #expect(write.status == 0, "\(write.error)")
        let read = try await fleet.prefs("read", "s", "k")
        #expect(read.outputText == "w\n")
        #expect(write.elapsed + read.elapsed < 10)
    }
}
