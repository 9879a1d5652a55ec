import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// A rolling restart is routine: on a real 3-member cluster (plain and TLS), each member in turn is
/// stopped with SIGTERM (it answers what is in flight with HTTP 408 or 503, closes its connections,
/// cuts handshakes short) and started again, while writers add 1 to a counter in a loop and a
/// `prefs watch` prints every change. Every write exits 0, the counter ends at the number of
/// writes, and the watch, still running, printed every change once, in order. Over TLS the commands
/// resume kept sessions, which a restarted member refuses: the handshake is then a full one.
@Suite(.serialized, .runsProcesses) struct EtcdRollingRestartTests {
    /// The writers' loops: each runs `prefs write s n -int-add 1` until `stop`.
    final class Writers: Sendable {
        let stop = Mutex(false)
        /// Every write's status and message, in the order they ended.
        let results = Mutex<[(status: Int32, error: String)]>([])

        func run(_ environment: [String: String], count: Int) -> [Task<Void, Error>] {
            (0..<count).map { _ in
                Task {
                    while !stop.withLock({ $0 }) {
                        let run = try await runProcess(Paths.binary, ["write", "s", "n", "-int-add", "1"], environment: environment)
                        results.withLock { $0.append((run.status, run.error)) }
                    }
                }
            }
        }

        var done: Int { results.withLock { $0.count } }

        /// Waits until `more` writes have ended after the `done` of now (a generous bound: a loaded
        /// machine runs few processes a second).
        func waitFor(more: Int) async -> Bool {
            let target = done + more
            return await eventually(timeout: 300, interval: 0.01) { done >= target }
        }
    }

    @Test(arguments: [false, true])
    func aRollingRestartLosesNothingAndEndsNothing(tls: Bool) async throws {
        let certificates = tls ? try EtcdTLSTests.certificates.get() : nil
        let cluster = try await EtcdCluster.start(members: 3, tls: certificates.map { EtcdCluster.TLS($0) })
        let fleet = try FleetSandbox(cluster)
        var environment = fleet.environment
        // A runtime directory, as a logged-in user has: the commands share what they learn of the
        // members, and over TLS the sessions they resume, which a restarted member no longer knows.
        let runtime = fleet.sandbox.directory.path + "/run"
        try #require(mkdir(runtime, 0o700) == 0)
        environment["XDG_RUNTIME_DIR"] = runtime
        if let certificates {
            let client = certificates.client("root")
            environment.merge(["PREFS_ETCD_CACERT": certificates.ca, "PREFS_ETCD_CERT": client.certificate, "PREFS_ETCD_KEY": client.key]) { $1 }
        }
        try #require(await runProcess(Paths.binary, ["write", "s", "n", "-int", "0"], environment: environment).status == 0)
        let watch = try WatchProcess(fleet.sandbox, ["s", "n", "--initial"], environment: environment, limit: 1800)
        defer { watch.process.terminate() }
        try #require(await watch.nextLine(timeout: 120) == "n (absent) -> 0", "\(watch.errorText)")

        let writers = Writers()
        let loops = writers.run(environment, count: 3)
        #expect(await writers.waitFor(more: 10))
        for member in cluster.members.indices {
            try await cluster.restartGracefully(member: member)
            #expect(await writers.waitFor(more: 10), "writes go on after member \(member) restarted")
        }
        writers.stop.withLock { $0 = true }
        for loop in loops { try await loop.value }

        let results = writers.results.withLock { $0 }
        let failed = results.filter { $0.status != 0 }
        #expect(failed.isEmpty, "\(failed.count) of \(results.count) writes failed: \(failed.prefix(5))")
        let read = try await runProcess(Paths.binary, ["read", "s", "n"], environment: environment)
        let final = try #require(Int(read.outputText.dropLast()), "\(read.error)")
        #expect(final == results.count, "every write added 1, once")
        let (lines, found) = await watch.lines(until: { $0 == "n \(final - 1) -> \(final)" }, timeout: 120)
        #expect(found && lines == (0..<final).map { "n \($0) -> \($0 + 1)" }, "each change once, in order: \(lines.suffix(5)) \(watch.errorText)")
        #expect(watch.process.isRunning && watch.errorText.isEmpty, "the watch goes on: \(watch.errorText)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: runtime + "/prefs").filter { $0.hasPrefix("tls-") }
        #expect(kept.isEmpty != tls, "sessions kept over TLS only: \(kept)")
    }
}
