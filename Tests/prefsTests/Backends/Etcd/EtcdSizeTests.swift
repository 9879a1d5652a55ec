import Foundation
import Testing
@testable import PrefsCore

/// Issue 28 on a real 3-member cluster, through the built `prefs`: suites of any size go into etcd
/// whole while readers see the old suite or the new one, never half; a killed import leaves the old
/// suite and `gc` collects what it wrote; a change whose answer is lost while no endpoint answers
/// exits 76 (outcome unknown), never 69 (nothing applied), which a script would retry.
@Suite(.runsProcesses) struct EtcdSizeTests {
    static let cluster = SharedCluster.threeMembers

    /// A document of `count` string values `PREFIX0`, `PREFIX1`… under `k0`, `k1`….
    static func document(_ count: Int, _ value: String, in fleet: FleetSandbox) throws -> String {
        var contents = PrefDictionary()
        for i in 0..<count { contents["k\(i)"] = .string("\(value)\(i)") }
        return try fleet.sandbox.directory.write("\(value).plist", try PropertyList.encode(.dictionary(contents), as: .binary))
    }

    /// 10,000 keys replace a suite of 500 while a loop reads the whole suite and one key: every read
    /// is the old suite or the new one. The dry run counts every key first.
    @Test func tenThousandKeysGoInWholeWhileReadersSeeOldOrNew() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let old = try Self.document(500, "old", in: fleet), new = try Self.document(10_000, "new", in: fleet)
        #expect(try await fleet.prefs("import", "big", old).status == 0)
        let dry = try await fleet.prefs("import", "big", new, "--replace", "--dry-run", "--exit-code")
        #expect(dry.status == 3 && dry.outputText.split(separator: "\n").count == 10_000, "\(dry.status) \(dry.error)")
        let oldRead = try await fleet.prefs("read", "big", "--json").output
        let script = """
            set -u
            ( while [ ! -e stop ]; do prefs read big --json | cksum; prefs read big k5; touch read; done >> reads ) &
            while [ ! -e read ]; do :; done
            echo importing >> reads
            start=$(date +%s.%N); prefs import big '\(new)' --replace || echo "import failed $?"; end=$(date +%s.%N)
            echo imported >> reads
            echo "$start $end" > took
            touch stop; wait
            """
        let run = try await runProcess("/bin/bash", ["-c", "cd '\(fleet.sandbox.directory.path)' && " + script], environment: fleet.environment)
        #expect(run.status == 0 && run.outputText.isEmpty, "\(run.outputText) \(run.error)")
        let newRead = try await fleet.prefs("read", "big", "--json").output
        var sums = Set<String>()
        for read in [oldRead, newRead] { sums.insert(try await runProcess("/usr/bin/cksum", [], input: read).outputText) }
        let log = try String(contentsOfFile: fleet.sandbox.directory.file("reads"), encoding: .utf8).split(separator: "\n").map { String($0) + "\n" }
        let reads = log.filter { $0 != "importing\n" && $0 != "imported\n" }
        let during = (log.firstIndex(of: "imported\n") ?? 0) - (log.firstIndex(of: "importing\n") ?? 0) - 1
        #expect(during > 0, "reads during the import: \(during)")
        #expect(!reads.isEmpty && reads.allSatisfy { sums.contains($0) || $0 == "old5\n" || $0 == "new5\n" }, "\(Set(reads))")
        #expect(try await fleet.prefs("read", "big", "k9999").outputText == "new9999\n")
        #expect(try await fleet.prefs("read", "big", "k1").outputText == "new1\n")
        let took = try String(contentsOfFile: fleet.sandbox.directory.file("took"), encoding: .utf8).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        print("10,000-key import into a 3-member cluster, with a reader: \(took.count == 2 ? String(format: "%.2f s", took[1] - took[0]) : "?"); reads during it: \(during) (whole suite, one key)")
        // Small changes on the large suite stay exact under concurrent writers.
        let counters = try await fleet.shell("for w in 1 2 3 4; do ( for i in $(seq 1 10); do prefs write big n -int-add 1 >/dev/null || echo failed >&2; done ) & done; wait")
        #expect(counters.status == 0 && counters.error.isEmpty, "\(counters.error)")
        #expect(try await fleet.prefs("read", "big", "n").outputText == "40\n")
    }

    /// `kill -9` while the batches are written: the old suite reads as it was; once the writer's
    /// hold is gone (its lease revoked here, as its TTL would), `gc` removes what it wrote.
    @Test func aKilledImportLeavesTheOldSuiteAndGCCollectsItsBatches() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let prefix = String(fleet.url.split(separator: "/").last!)
        let old = try Self.document(200, "old", in: fleet), new = try Self.document(10_000, "new", in: fleet)
        #expect(try await fleet.prefs("import", "big", old).status == 0)
        let before = try await fleet.prefs("export", "big", "-", "--format", "json").output
        let script = """
            prefs import big '\(new)' --replace & pid=$!
            until [ -n "$(etcdctl --endpoints=\(fleet.cluster.clientEndpoints[0]) get --prefix --keys-only --limit=1 '\(prefix)/big/.2/')" ] || ! kill -0 $pid; do :; done
            kill -9 $pid; wait $pid; echo "status $?"
            """
        let run = try await fleet.shell(script)
        #expect(run.outputText == "status 137\n", "\(run.outputText) \(run.error)")
        #expect(try await fleet.prefs("export", "big", "-", "--format", "json").output == before, "the old suite, as it was")
        #expect(try await fleet.prefs("read", "big", "k199").outputText == "old199\n")
        #expect(try await fleet.prefs("read", "big", "k200").status == 1)
        let batches = try await fleet.cluster.etcdctl("get", "--prefix", "--keys-only", prefix + "/big/.2/")
        #expect(!batches.isEmpty, "batches were written")
        let staging = try await fleet.cluster.etcdctl("get", prefix + "/.staging/big", "-w", "fields")
        let lease = try #require(staging.split(separator: "\n").first { $0.hasPrefix("\"Lease\"") }?.split(separator: ":").last)
        try await fleet.cluster.etcdctl("lease", "revoke", String(Int64(lease.trimmingCharacters(in: .whitespaces))!, radix: 16))
        #expect(try await fleet.prefs("gc").status == 0)
        #expect(try await fleet.cluster.etcdctl("get", "--prefix", "--keys-only", prefix + "/big/.2/").isEmpty, "collected")
        #expect(try await fleet.prefs("import", "big", new, "--replace").status == 0)
        #expect(try await fleet.prefs("read", "big", "k9999").outputText == "new9999\n")
    }

    /// The commit goes through, its answer is lost, and no endpoint answers after: prefs cannot
    /// tell whether it was applied, and says so (76); it was, so a blind retry would count twice.
    @Test func aCommitWithNoAnswerFromAnyEndpointIsAnUnknownOutcomeNot69() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        let prefix = fleet.url.split(separator: "/").last!
        #expect(try await fleet.prefs("write", "c", "n", "-int", "0").status == 0)
        let proxy = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "commit-then-blackhole")
        let cut = ["PREFS_STORE": "etcd://\(proxy.endpoint)/\(prefix)", "PREFS_ETCD_TIMEOUT": "1"]
        let added = try await fleet.prefs("write", "c", "n", "-int-add", "1", environment: cut)
        #expect(added.status == 76 && added.error.contains("may or may not have been applied"), "\(added.status) \(added.error)")
        #expect(try await fleet.prefs("read", "c", "n").outputText == "1\n", "it was applied")
        // Nothing reaches the store: 69, and nothing was applied.
        let dead = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "blackhole")
        let none = try await fleet.prefs("write", "c", "n", "-int-add", "1", environment: ["PREFS_STORE": "etcd://\(dead.endpoint)/\(prefix)", "PREFS_ETCD_TIMEOUT": "1"])
        #expect(none.status == 69, "\(none.status) \(none.error)")
        #expect(try await fleet.prefs("read", "c", "n").outputText == "1\n")
    }

    /// A real quorum loss: the commit goes through member 0 (held by the proxy once answered), two
    /// members of three are killed, and the answer is lost: no endpoint can tell (member 0 has no
    /// leader), so 76; with the members back, the value shows the change was applied once.
    @Test func aCommitWhoseClusterLosesQuorumBeforeItsAnswerIsAnUnknownOutcome() async throws {
        let cluster = try await EtcdCluster.start(members: 3)
        let fleet = try FleetSandbox(cluster)
        let prefix = fleet.url.split(separator: "/").last!
        #expect(try await fleet.prefs("write", "c", "n", "-int", "0").status == 0)
        let hold = fleet.sandbox.directory.file("hold")
        let proxy = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "hold-commit:" + hold)
        let endpoints = ([proxy.endpoint] + cluster.clientEndpoints.dropFirst()).joined(separator: ",")
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: Paths.binary)
        writer.arguments = ["write", "c", "n", "-int-add", "1"]
        writer.environment = fleet.environment.merging(["PREFS_STORE": "etcd://\(endpoints)/\(prefix)", "PREFS_ETCD_TIMEOUT": "4"]) { $1 }
        let output = Pipe(), error = Pipe()
        (writer.standardOutput, writer.standardError) = (output, error)
        try writer.run()
        // The proxy holds the answer of the committed transaction: lose the quorum, then the answer.
        _ = await eventually(timeout: .infinity, interval: 0.001) { FileManager.default.fileExists(atPath: hold + ".held") || !writer.isRunning }
        await cluster.kill(member: 1)
        await cluster.kill(member: 2)
        try fleet.sandbox.directory.write("hold.release", [])
        let (printed, message) = try await onOwnThread { (output.fileHandleForReading.readDataToEndOfFile(), error.fileHandleForReading.readDataToEndOfFile()) }
        await writer.exited()
        let text = String(decoding: printed + message, as: UTF8.self)
        #expect(writer.terminationStatus == 76 && text.contains("may or may not have been applied"), "\(writer.terminationStatus) \(text)")
        try await cluster.restart(member: 1)
        try await cluster.restart(member: 2)
        #expect(try await fleet.prefs("read", "c", "n").outputText == "1\n", "it was applied, once")
    }
}
