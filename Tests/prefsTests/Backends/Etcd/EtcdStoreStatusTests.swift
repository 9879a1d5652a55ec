import Foundation
import Testing
@testable import PrefsCore

/// What the etcd store's own conditions exit with, on real members through the built `prefs`: a
/// full quota is 73 (and `check` still works), a writer stalled past its blob lease is 75 with the
/// old value intact, `check` writes nothing, `gc --grace` spares a young unfinished blob and says
/// how many bytes it freed.
@Suite(.serialized, .runsProcesses) struct EtcdStoreStatusTests {
    /// The suite's own, for the tests that neither enable auth nor fill it, one after the other:
    /// they end every lease, and `checkWritesNothing` compares the whole cluster's revision.
    static let cluster = SharedCluster { try EtcdCluster(members: 1, extraArguments: EtcdCluster.sharedTiming) }

    /// `prefs write s KEY -string-file -` reading its value from a pipe this test writes into, so
    /// the writer can be caught in the middle of a large value.
    final class StreamingWriter {
        let process = Process()
        let input = Pipe()
        let errors: String

        init(_ fleet: FleetSandbox, key: String) throws {
            errors = fleet.sandbox.directory.file("writer-\(key).err")
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            process.executableURL = URL(fileURLWithPath: Paths.binary)
            process.arguments = ["write", "s", key, "-string-file", "-"]
            process.environment = fleet.environment
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: errors)
            try process.run()
        }

        func send(_ count: Int) throws { try input.fileHandleForWriting.write(contentsOf: Data(repeating: 0x61, count: count)) }

        func finish() async throws -> (status: Int32, error: String) {
            try input.fileHandleForWriting.close()
            await process.exited()
            return (process.terminationStatus, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    /// The etcd keys under the fleet's prefix and `area` (`.chunks`…).
    func keys(_ fleet: FleetSandbox, _ area: String) async throws -> [Substring] {
        let prefix = String(fleet.url.split(separator: "/").last!)
        return try await fleet.cluster.etcdctl("get", "--prefix", "--keys-only", prefix + "/" + area + "/").split(separator: "\n")
    }

    /// Waits until the writer has stored at least `count` chunks (each a whole MiB it was sent; it
    /// reads ahead, so one more MiB must have been sent — and whatever was sent beyond may be stored
    /// before this looks: it runs on, unstopped, while this polls).
    func waitForChunks(_ fleet: FleetSandbox, _ count: Int) async throws {
        var found = try await keys(fleet, ".chunks")
        for _ in 0..<3000 where found.count < count {
            try await Task.sleep(nanoseconds: 10_000_000)
            found = try await keys(fleet, ".chunks")
        }
        try #require(found.count >= count, "\(found)")
    }

    /// Ends every lease, as their running out does (the writer's blob lease is 60 s).
    func expireLeases(_ cluster: EtcdCluster) async throws {
        for line in try await cluster.etcdctl("lease", "list").split(separator: "\n").dropFirst() {
            try await cluster.etcdctl("lease", "revoke", String(line))
        }
    }

    func revision(_ cluster: EtcdCluster) async throws -> String {
        let json = try await cluster.etcdctl("get", "any", "-w", "json")
        return String(json.split(separator: "\"revision\":").dropFirst().first?.prefix { $0.isNumber } ?? "")
    }

    @Test func aWriterStalledPastItsBlobLeaseIs75AndTheOldValueStays() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        try #require(await fleet.prefs("write", "s", "big", "old").status == 0)
        let writer = try StreamingWriter(fleet, key: "big")
        try writer.send(2 << 20 + 1000)
        try await waitForChunks(fleet, 1)
        try await stopProcess(writer.process.processIdentifier)
        try await expireLeases(cluster)
        kill(writer.process.processIdentifier, SIGCONT)
        try writer.send(1000)
        let (status, error) = try await writer.finish()
        #expect(status == 75 && error.hasPrefix("prefs: s: big: ") && error.contains("lease") && error.split(separator: "\n").count == 1, "\(status) \(error)")
        #expect(try await fleet.prefs("read", "s", "big").outputText == "old\n")
        let (chunks, external) = (try await keys(fleet, ".chunks"), try await keys(fleet, ".external"))
        #expect(chunks.isEmpty && external.isEmpty, "what it wrote is removed")
        #expect(try await fleet.prefs("check", "s").status == 0)
    }

    @Test func checkWritesNothing() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        let file = try fleet.sandbox.directory.write("big", Array(repeating: 7, count: 300_000))
        try #require(await fleet.prefs("write", "s", "big", "-data", "@" + file).status == 0)
        let before = try await revision(cluster)
        #expect(try await fleet.prefs("check", "s").outputText == "s: 1 external value OK\n")
        #expect(try await fleet.prefs("check").status == 0)
        #expect(try await revision(cluster) == before)
    }

    /// A user who may only read the prefix can check it.
    @Test func aReadOnlyUserCanCheck() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        let fleet = try FleetSandbox(cluster)
        let file = try fleet.sandbox.directory.write("big", Array(repeating: 7, count: 300_000))
        try #require(await fleet.prefs("write", "s", "big", "-data", "@" + file).status == 0)
        let prefix = String(fleet.url.split(separator: "/").last!)
        try await cluster.etcdctl("role", "add", "reader")
        try await cluster.etcdctl("role", "grant-permission", "reader", "read", "--prefix=true", prefix + "/")
        try await cluster.etcdctl("user", "add", "ro:ro-password")
        try await cluster.etcdctl("user", "grant-role", "ro", "reader")
        try await cluster.enableAuth(rootPassword: "root-password")
        let reader = ["PREFS_ETCD_USER": "ro", "PREFS_ETCD_PASSWORD": "ro-password"]
        #expect(try await fleet.prefs("write", "s", "k", "v", environment: reader).status == 77, "the user may not write")
        let check = try await fleet.prefs("check", "s", environment: reader)
        #expect(check.status == 0 && check.outputText == "s: 1 external value OK\n", "\(check.status) \(check.error)")
    }

    @Test func gcHonoursTheGraceOfAnUnfinishedBlobAndSaysWhatItFreed() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        try #require(await fleet.prefs("write", "s", "k", "v").status == 0)
        // A writer killed after two whole chunks, its lease run out: an unfinished orphan of 2 MiB.
        let writer = try StreamingWriter(fleet, key: "big")
        try writer.send(2 << 20 + 10)
        try await waitForChunks(fleet, 2)
        kill(writer.process.processIdentifier, SIGKILL)
        await writer.process.exited()
        try await expireLeases(cluster)
        let young = try await fleet.prefs("gc", "s", "--grace", "3600")
        #expect(young.status == 0 && young.outputText.isEmpty, "\(young.outputText) \(young.error)")
        #expect(try await keys(fleet, ".chunks").count == 2, "a young orphan is kept")
        let check = try await fleet.prefs("check", "s")
        #expect(check.status == 65 && check.outputText.contains("unfinished blob big/") && check.outputText.contains("(2097152 bytes)"), "\(check.outputText)")
        let old = try await fleet.prefs("gc", "s", "--grace", "0")
        #expect(old.status == 0 && old.outputText.hasPrefix("removed s: big/") && old.outputText.hasSuffix(" (2097152 bytes)\n"), "\(old.outputText) \(old.error)")
        let (chunks, started) = (try await keys(fleet, ".chunks"), try await keys(fleet, ".started"))
        #expect(chunks.isEmpty && started.isEmpty)
        #expect(try await fleet.prefs("check", "s").status == 0)
    }

    /// A full quota ("database space exceeded", RESOURCE_EXHAUSTED) is 73, as ENOSPC on files, and
    /// `check` still works during the NOSPACE alarm.
    @Test func aFullQuotaIs73AndCheckStillWorks() async throws {
        let cluster = try await EtcdCluster.start(members: 1, extraArguments: ["--quota-backend-bytes", "400000"])
        let fleet = try FleetSandbox(cluster)
        let file = try fleet.sandbox.directory.write("big", Array(repeating: 7, count: 150_000))
        try #require(await fleet.prefs("write", "s", "big", "-data", "@" + file).status == 0)
        // How many values fit before the quota depends on when etcd's backend commits (its size is
        // its pages', free ones included): under load the first already filled it.
        var written: [String] = []
        var last = try await fleet.prefs("write", "s", "k0", "-string", String(repeating: "x", count: 90_000))
        for i in 1..<40 where last.status == 0 {
            written.append("k\(i - 1)")
            last = try await fleet.prefs("write", "s", "k\(i)", "-string", String(repeating: "x", count: 90_000))
        }
        #expect(last.status == 73 && last.error.hasPrefix("prefs: ") && last.error.contains("database space exceeded")
                && last.error.contains(cluster.clientEndpoints[0]) && last.error.split(separator: "\n").count == 1, "\(last.status) \(last.error)")
        #expect(try await cluster.etcdctl("alarm", "list").contains("NOSPACE"))
        // Reads go on: of every value written before.
        let big = try await fleet.prefs("read", "s", "big", "--raw")
        #expect(big.status == 0 && big.output == Array(repeating: 7, count: 150_000), "reads go on: \(big.error)")
        for key in written.suffix(1) {
            let read = try await fleet.prefs("read", "s", key)
            #expect(read.outputText.count == 90_001, "reads go on: \(read.error)")
        }
        let check = try await fleet.prefs("check", "s")
        #expect(check.status == 0 && check.outputText == "s: 1 external value OK\n", "\(check.status) \(check.error)")
    }
}
