import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// Freeing space on a real member: over its quota etcd takes only deletes, and a delete of a key
/// or of a suite, and `gc`, still work (before: every change also rewrote the suite's marker, and
/// `gc` took a lock on a lease, so all were 73); and what a large import killed midway leaves is
/// reported by `check` and `gc --dry-run` and removed by `gc`, which says what it freed.
@Suite(.runsProcesses) struct EtcdQuotaTests {
    /// Writes 90 KB values into suite `fill` until etcd refuses one: the last answer (73, unless
    /// the quota never filled).
    static func fill(_ fleet: FleetSandbox) async throws -> ProcessResult {
        var last = try await fleet.prefs("write", "fill", "k0", "-string", String(repeating: "x", count: 90_000))
        for i in 1..<200 where last.status == 0 {
            last = try await fleet.prefs("write", "fill", "k\(i)", "-string", String(repeating: "x", count: 90_000))
        }
        return last
    }

    /// A 1 MiB quota is filled through prefs (73). A key is deleted (0), as watchers see; a second
    /// key of that suite cannot be (73, saying why), the whole suite can, `gc` runs. Once space is
    /// freed and etcd's alarm disarmed (compact, defragment, disarm, as the man page says), writes
    /// work again.
    @Test func overTheQuotaADeleteFreesSpaceAndGCWorks() async throws {
        let cluster = try await EtcdCluster.start(members: 1, extraArguments: ["--quota-backend-bytes", String(1 << 20)])
        let fleet = try FleetSandbox(cluster)
        try #require(await fleet.prefs("write", "fill", "small", "-int", "1").status == 0)
        try #require(await fleet.prefs("write", "other", "big", "-string", String(repeating: "y", count: 90_000)).status == 0)
        let watch = try WatchProcess(fleet.sandbox, ["fill", "small", "--initial"], environment: fleet.environment)
        defer { watch.process.terminate() }
        try #require(await watch.nextLine(timeout: 30) == "small (absent) -> 1")
        let full = try await Self.fill(fleet)
        try #require(full.status == 73 && full.error.contains("database space exceeded"), "\(full.status) \(full.error)")
        #expect(try await fleet.prefs("write", "other", "n", "-int", "1").status == 73)

        let deleted = try await fleet.prefs("delete", "fill", "small")
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(await watch.nextLine(timeout: 30) == "small 1 -> (removed)")
        #expect(try await fleet.prefs("read", "fill", "small").status == 1)
        #expect(try await fleet.prefs("read", "fill", "k0").outputText.count == 90_001, "the suite's other values stay")
        let again = try await fleet.prefs("delete", "fill", "k0")
        #expect(again.status == 73 && again.error.contains("can only be deleted whole"), "\(again.status) \(again.error)")
        let gc = try await fleet.prefs("gc")
        #expect(gc.status == 0 && gc.error.isEmpty, "\(gc.status) \(gc.error)")
        let removed = try await fleet.prefs("delete", "fill")
        #expect(removed.status == 0, "\(removed.error)")
        #expect(try await fleet.prefs("delete", "other", "big").status == 0)

        let revision = try EtcdClient(endpoints: cluster.endpoints, timeout: 5).range(Array("/".utf8), countOnly: true).revision
        try await cluster.etcdctl("compaction", String(revision))
        try await cluster.etcdctl("defrag")
        try await cluster.etcdctl("alarm", "disarm")
        let written = try await fleet.prefs("write", "other", "n", "-int", "2")
        #expect(written.status == 0, "space was freed: \(written.error)")
        #expect(try await fleet.prefs("read", "other", "n").outputText == "2\n")
    }

    /// A document of 8,064 keys is imported into a suite and the import killed (SIGKILL) once it
    /// has written some batches of its new generation. Once its staging lease has run out, `check`
    /// reports what it left (65), `gc --dry-run` says what it would remove and removes nothing,
    /// `gc` removes it and says so; the suite is as it was all along.
    @Test func whatAKilledImportLeftIsReportedAndRemoved() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        let fleet = try FleetSandbox(cluster)
        try #require(await fleet.prefs("write", "s", "a", "1", "b", "-int", "2").status == 0)
        let before = try await fleet.prefs("export", "s", "-").output
        let document = "{" + (0..<8064).map { "\"key\($0)\": \"value \($0)\"" }.joined(separator: ", ") + "}"
        let file = try fleet.sandbox.directory.write("big.json", Array(document.utf8))
        let prefix = String(fleet.url.split(separator: "/").last!)
        let generation = Array("\(prefix)/s/.1/".utf8)
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 5)
        let start = try client.range(generation, countOnly: true).revision
        let importer = Process()
        importer.executableURL = URL(fileURLWithPath: Paths.binary)
        importer.arguments = ["import", "s", file]
        importer.environment = fleet.environment
        try importer.run()
        // Killed once two batches of its new generation are written: it is then writing the rest.
        let staged = Mutex(0)
        _ = try await onOwnThread {
            try client.watch(generation, rangeEnd: EtcdClient.prefixEnd(generation), fromRevision: start + 1, deadline: MonotonicClock.now() + 120) { events, _ in
                staged.withLock { $0 += events.count }
                guard staged.withLock({ $0 }) >= 200 else { return true }
                kill(importer.processIdentifier, SIGKILL)
                return false
            }
        }
        importer.waitUntilExit()
        try #require(importer.terminationReason == .uncaughtSignal, "the import was killed before it committed")
        #expect(try await fleet.prefs("export", "s", "-").output == before)

        // Its staging lease (10 s) runs out: then what it left is reported.
        var check = try await fleet.prefs("check", "s")
        for _ in 0..<120 where check.status == 0 {
            try await Task.sleep(for: .milliseconds(250))
            check = try await fleet.prefs("check", "s")
        }
        let written = try client.range(generation, rangeEnd: EtcdClient.prefixEnd(generation), countOnly: true).count
        try #require(written >= 2 * 127 && written < 8066, "\(written) keys staged")
        let change = "s: an unfinished change of \(written) keys ("
        #expect(check.status == 65 && check.outputText.hasPrefix(change) && check.outputText.contains(" bytes), begun "), "\(check.outputText)")
        let dry = try await fleet.prefs("gc", "--dry-run")
        #expect(dry.status == 0 && dry.outputText.hasPrefix("would remove " + change), "\(dry.outputText) \(dry.error)")
        #expect(try client.range(generation, rangeEnd: EtcdClient.prefixEnd(generation), countOnly: true).count == written, "a dry run removes nothing")
        let gc = try await fleet.prefs("gc", "s")
        #expect(gc.status == 0 && gc.outputText.hasPrefix("removed " + change), "\(gc.outputText) \(gc.error)")
        let left = try client.range(Array("\(prefix)/".utf8), rangeEnd: EtcdClient.prefixEnd(Array("\(prefix)/".utf8)), keysOnly: true)
        // The suite as it was, and the version of its one write (the killed import kept none).
        #expect(left.kvs.map { String(decoding: $0.key, as: UTF8.self) }.sorted() == ["\(prefix)/.history/s/00000000000000000001",
                                                                                      "\(prefix)/.suites/s", "\(prefix)/s/a", "\(prefix)/s/b"])
        #expect(try await fleet.prefs("check", "s").status == 0)
        #expect(try await fleet.prefs("export", "s", "-").output == before)
    }
}
