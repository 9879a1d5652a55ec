import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// Values that expire on a real 3-member cluster: visibility is the reader's comparison of the
/// stored deadline with its clock, so a leader SIGKILLed just before the deadline changes nothing
/// (etcd resets leases on a leader change; nothing here depends on one).
@Suite(.serialized, .runsProcesses) struct EtcdExpiryTests {
    static let cluster = SharedCluster.threeMembers

    static var now: Double { Date().timeIntervalSinceReferenceDate }

    /// The deadline of `key` as the store holds it (seconds since 2001).
    static func deadline(_ fleet: FleetSandbox, suite: String, key: String) throws -> Double {
        let store = try SuiteStore(url: fleet.url, environment: Environment(fleet.environment))
        let storage = try #require(store.storage as? ExpiringStorage)
        return try #require(Expiry.deadline(of: key, in: try storage.deadlines(in: .suite(suite)))).secondsSinceReferenceDate
    }

    @Test func aKillSwitchRevertsToItsRegisteredDefault() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        try #require(await fleet.prefs("register", "flags", "kill", "-bool", "false").status == 0)
        let write = try await fleet.prefs("write", "flags", "kill", "-bool", "true", "--ttl", "1s")
        try #require(write.status == 0, "\(write.error)")
        let deadline = try Self.deadline(fleet, suite: "flags", key: "kill")
        while true {
            let issued = Self.now
            let run = try await fleet.prefs("read", "flags", "kill")
            try #require(run.status == 0, "\(run.error)")
            if run.outputText == "false\n" { break }
            #expect(run.outputText == "true\n")
            #expect(issued < deadline + 1, "an expired value was read \(issued - deadline) s after its deadline")
            if issued > deadline + 60 { Issue.record("not reverted a minute after the deadline"); return }
        }
        // Still stored as written, deadline beside it: a reader that knows no deadline sees it.
        let raw = try await fleet.prefs("read", "flags", "kill", "--stored")
        #expect(raw.status == 1, "prefs hides it from every layer: \(raw.outputText)")
        let keys = try await fleet.cluster.etcdctl("get", "--prefix", "--keys-only", String(fleet.url.split(separator: "/").last!) + "/")
        #expect(keys.contains("kill") && keys.contains(".prefs-expires"), "\(keys)")
        // watch: a new deadline is reported when it passes.
        try #require(await fleet.prefs("write", "flags", "kill", "-bool", "true", "--ttl", "2s").status == 0)
        let again = try Self.deadline(fleet, suite: "flags", key: "kill")
        let watch = try await fleet.prefs("watch", "flags", "kill", "--initial", "--once", "--timeout", "60")
        let reported = Self.now
        #expect(watch.status == 0 && watch.outputText.split(separator: "\n").count == 2 && watch.outputText.hasSuffix("false\n"), "\(watch.outputText)\(watch.error)")
        #expect(reported >= again)
    }

    /// 1000 keys with a 5 s TTL, the leader SIGKILLed 4 s after the write; a reader polls (one key
    /// at a time, and every key at once) and no read issued at deadline + 1 s or later, by the
    /// reader's own clock read before issuing it, returns a value.
    /// `gc --grace 0` removes an expired value's key and its deadline from the cluster, in one
    /// transaction; a value not yet expired stays.
    @Test func gcRemovesExpiredValuesFromTheCluster() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        try #require(await fleet.prefs("write", "g", "soon", "x", "--ttl", "1s").status == 0)
        try #require(await fleet.prefs("write", "g", "later", "y", "--ttl", "1h").status == 0)
        let deadline = try Self.deadline(fleet, suite: "g", key: "soon")
        while Self.now <= deadline + 0.1 { try await Task.sleep(for: .milliseconds(100)) }
        let gc = try await fleet.prefs("gc", "g", "--grace", "0", "--exit-code")
        #expect(gc.status == 3 && gc.outputText.hasPrefix("removed g: soon (expired "), "\(gc.outputText)\(gc.error)")
        let keys = try await fleet.cluster.etcdctl("get", "--prefix", "--keys-only", String(fleet.url.split(separator: "/").last!) + "/g/")
        #expect(!keys.contains("soon") && keys.contains("later") && keys.contains(".prefs-expires"), "\(keys)")
        #expect(try Self.deadline(fleet, suite: "g", key: "later") > Self.now)
    }

    @Test func noExpiredValueIsReadAcrossALeaderKill() async throws {
        let cluster = try await EtcdCluster.start(members: 3)
        let fleet = try FleetSandbox(cluster)
        let count = 1000
        var arguments = ["write", "pool"]
        for i in 0..<count { arguments += ["k\(i)", "-int", "\(i)"] }
        let written = Self.now
        let write = try await fleet.prefs(arguments + ["--ttl", "5s"])
        try #require(write.status == 0, "\(write.error)")
        let deadline = try Self.deadline(fleet, suite: "pool", key: "k0")
        #expect(try Self.deadline(fleet, suite: "pool", key: "k\(count - 1)") == deadline)
        #expect(deadline >= written + 5 && deadline <= Self.now + 5)

        let killer = Task {
            let wait = deadline - 1 - Self.now
            if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
            let leader = try await cluster.leaderIndex()
            await cluster.kill(member: leader)
            return (leader, Self.now - deadline)
        }
        var reads: [(issued: Double, status: Int32, value: Bool)] = []
        var round = 0
        while true {
            let issued = Self.now
            if issued > deadline + 4 && reads.contains(where: { $0.issued >= deadline + 1 && $0.status == 1 }) { break }
            if issued > deadline + 120 { break }
            round += 1
            if round % 4 == 0 {
                let run = try await fleet.prefs("read", "pool", "--keys")
                let listed = run.status == 0 && !run.outputText.isEmpty
                reads.append((issued, listed || run.status == 0 ? (listed ? 0 : 1) : run.status, listed))
            } else {
                let run = try await fleet.prefs("read", "pool", "k\(Int.random(in: 0..<count))")
                reads.append((issued, run.status, run.status == 0))
            }
        }
        let (leader, killedAt) = try await killer.value
        let late = reads.filter { $0.issued >= deadline + 1 && $0.value }
        #expect(late.isEmpty, "\(late.count) reads of an expired value after deadline + 1 s, the latest issued \(late.map { $0.issued - deadline }.max() ?? 0) s after it")
        let lastSeen = reads.filter(\.value).map { $0.issued - deadline }.max()
        let firstGone = reads.filter { $0.issued >= deadline && $0.status == 1 }.map { $0.issued - deadline }.min()
        #expect(reads.contains { $0.issued < deadline && $0.value } || reads.first.map { $0.issued >= deadline } == true, "no read saw the values before their deadline")
        #expect(firstGone != nil, "no read after the deadline was answered")
        print("EtcdExpiryTests: leader \(leader) killed at deadline \(String(format: "%+.2f", killedAt)) s; \(reads.count) reads;",
              "last value read issued at deadline \(lastSeen.map { String(format: "%+.3f", $0) } ?? "-") s,",
              "first absent after it at +\(firstGone.map { String(format: "%.3f", $0) } ?? "-") s;",
              "failed reads (69/76…): \(reads.filter { $0.status != 0 && $0.status != 1 }.count)")
    }
}
