import Foundation
import Testing
@testable import PrefsCore

/// The verbs against a real 3-member etcd cluster on loopback, through the built `prefs`: the data
/// model another tool reads, exact counters from concurrent processes on different members, limits
/// refused whole, large values in chunks, a killed leader, a dead cluster, a watch across a member
/// restart, and auth. No mock stands in for etcd here.
@Suite(.runsProcesses) struct EtcdTests {
    static let cluster = SharedCluster.threeMembers

    /// The data model another tool reads: one key per top-level key, a binary plist each, under
    /// the suite's escaped name; a path domain is a file, never a suite of the store (73 where it
    /// cannot be created). What the verbs mean and print on the store is the contract's
    /// (`BackendContractTests`) and `VerbOutputOnEveryStoreTests`'.
    @Test func eachValueIsABinaryPlistUnderItsEscapedKey() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        #expect(try await fleet.prefs("write", "a/b%c", "k/1", "-int", "5").status == 73, "a path domain: a file, not a suite")
        #expect(try await fleet.prefs("write", "a%b", "k/1", "-int", "5").status == 0)
        let prefix = String(fleet.url.split(separator: "/").last!)
        let json = try await fleet.cluster.etcdctl("get", "-w", "json", prefix + "/a%25b/k%2F1")
        guard case .dictionary(let answer) = try JSONTextDecoder.decode(Array(json.utf8)), case .array(let kvs)? = answer["kvs"],
              case .dictionary(let kv)? = kvs.first, case .string(let text)? = kv["value"], let value = Base64.decode(Array(text.utf8))
        else { throw TestFailure("etcdctl get: \(json)") }
        #expect(try PropertyList.decode(value, as: .binary) == .integer(5), "PREFIX/SUITE/KEY holds the value's binary plist")
        #expect(value.starts(with: Array("bplist00".utf8)))
    }

    @Test func exportFromOneStoreAndImportIntoTheOtherMovesASuite() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let source = try fleet.sandbox.directory.write("in.plist", try PropertyList.encode([
            "s": "text", "n": 42, "u": .unsignedInteger(.max), "d": .date(PrefDate(secondsSinceReferenceDate: 12.5)), "x": .data([0, 255]),
            "nested": ["a": [1, true, "z"]],
        ], as: .binary))
        #expect(try await fleet.prefs("import", "moved", source).status == 0)
        let out = fleet.sandbox.directory.file("out.plist")
        #expect(try await fleet.prefs("export", "moved", out, "--format", "binary").status == 0)
        #expect(try PropertyList.decode(Fixtures.bytes(out)).value == PropertyList.decode(Fixtures.bytes(source)).value)
        // Into the file store (PREFS_STORE empty: an XML file, which keeps dates to the second) and back.
        #expect(try await fleet.prefs("write", "moved", "d", "-date", "2001-01-01T00:00:12Z").status == 0)
        let run = try await fleet.shell("prefs export moved - --format binary | PREFS_STORE= prefs import local - && PREFS_STORE= prefs export local - --format binary | prefs import back -")
        #expect(run.status == 0, "\(run.error)")
        #expect(try await fleet.prefs("export", "back", "-", "--format", "typed-json").output == fleet.prefs("export", "moved", "-", "--format", "typed-json").output)
    }

    /// The completions complete suites and keys from the store `--store` names on the line.
    @Test(arguments: CompletionShell.allCases)
    func completionsOfferTheSuitesAndKeysOfTheStoreOnTheLine(shell: CompletionShell) async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        try #require(await fleet.prefs("write", "fleet.app", "flag", "1", "other", "2").status == 0)
        let work = fleet.sandbox.directory.file("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let results = try await shell.complete([("prefs --store \(fleet.url) read ", .single), ("prefs --store \(fleet.url) read fleet.app ", .single)],
                                         in: fleet.sandbox, directory: work)
        #expect(try await ShellCompletionTests.names(shell, results[0], in: fleet.sandbox).sorted() == ["-g", "NSGlobalDomain", "fleet.app"], "\(results[0].offers)")
        #expect(try await ShellCompletionTests.names(shell, results[1], in: fleet.sandbox).sorted() == ["flag", "other"], "\(results[1].offers)")
    }

    /// What another tool may leave under the prefix: a value that is not a binary plist is 65
    /// naming the key (other keys still read), a marker that is not a suite name is skipped with
    /// its bytes escaped.
    @Test func foreignKeysUnderThePrefixAreReportedNotTrusted() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let prefix = String(fleet.url.split(separator: "/").last!)
        #expect(try await fleet.prefs("write", "app", "ok", "1").status == 0)
        try await fleet.cluster.etcdctl("put", prefix + "/app/bad", "garbage")
        let bad = try await fleet.prefs("read", "app", "bad")
        #expect(bad.status == 65 && bad.error.contains("/app: bad: binary plist"), "\(bad.error)")
        #expect(try await fleet.prefs("read", "app").status == 65)
        #expect(try await fleet.prefs("read", "app", "ok").outputText == "1\n")
        #expect(try await fleet.prefs("check", "app").status == 65)
        try await fleet.cluster.etcdctl("put", prefix + "/.suites/\u{7F}x", "")
        let domains = try await fleet.prefs("domains")
        #expect(domains.status == 0 && domains.outputText == "app\n", "\(domains.error)")
        #expect(domains.error.contains("/.suites/\\x7fx: not a suite name prefs wrote"), "\(domains.error)")
    }

    /// 8 processes × 25 `-int-add 1`, each through a different member first: exactly 200.
    @Test func countersFromEightProcessesOnDifferentMembersSumExactly() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        let endpoints = cluster.clientEndpoints
        var script = ""
        for w in 0..<8 {
            let order = (0..<endpoints.count).map { endpoints[($0 + w) % endpoints.count] }.joined(separator: ",")
            let url = "etcd://" + order + "/" + fleet.url.split(separator: "/").last!
            script += "( for i in $(seq 1 25); do prefs --store '\(url)' write ci.stats builds -int-add 1 >/dev/null || echo failed >&2; done ) &\n"
        }
        script += "wait\n"
        let run = try await fleet.shell(script)
        #expect(run.status == 0 && run.error.isEmpty, "\(run.error)")
        #expect(try await fleet.prefs("read", "ci.stats", "builds").outputText == "200\n")
    }

    /// A change whose answer is lost after it committed (the proxy first in the list closes the
    /// connection) is sent again to the next member, where its compare fails: it finds its own
    /// earlier commit and reports that, never applies the change twice.
    @Test func aCommitWhoseAnswerWasLostIsNotAppliedTwice() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        let proxy = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "drop-commit", drops: 1000)
        let prefix = fleet.url.split(separator: "/").last!
        let lossy = ["PREFS_STORE": "etcd://\(proxy.endpoint),\(cluster.clientEndpoints.joined(separator: ","))/\(prefix)"]
        #expect(try await fleet.prefs("write", "c", "n", "-int", "0").status == 0)
        let added = try await fleet.prefs("write", "c", "n", "-int-add", "1", environment: lossy)
        #expect(added.status == 0 && added.outputText == "1\n", "\(added.outputText) \(added.error)")
        #expect(try await fleet.prefs("read", "c", "n").outputText == "1\n")
        let swapped = try await fleet.prefs("write", "c", "n", "-int", "5", "--if-equals", "1", environment: lossy)
        #expect(swapped.status == 0, "\(swapped.status) \(swapped.error)")
        #expect(try await fleet.prefs("write", "c", "n", "-int", "6", "--exit-code", environment: lossy).status == 3, "it changed")
        #expect(try await fleet.prefs("read", "c", "n").outputText == "6\n")
        let deleted = try await fleet.prefs("delete", "c", "n", environment: lossy)
        #expect(deleted.status == 0, "\(deleted.status) \(deleted.error)")
        #expect(try await fleet.prefs("write", "c", "m", "1").status == 0)
        let removed = try await fleet.prefs("delete", "c", environment: lossy)
        #expect(removed.status == 0, "\(removed.status) \(removed.error)")
        #expect(try await fleet.prefs("read", "c").status == 1)
        // Every one of those commits did go through the proxy and lose its answer.
        #expect(try await fleet.prefs("write", "c", "k", "1", environment: lossy).status == 0)
        #expect(try await fleet.prefs("read", "c", "k").outputText == "1\n")
    }

    /// 300 keys are more than one transaction takes: written whole all the same (EtcdSizeTests has
    /// more). A value kept inline that no request can carry (1.5 MiB) is refused whole, dry run too.
    @Test func aChangeBeyondEtcdsLimitsIsWrittenWholeOrRefusedWhole() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        var many = PrefDictionary()
        for i in 0..<300 { many["k\(i)"] = .integer(Int64(i)) }
        let document = try fleet.sandbox.directory.write("many.plist", try PropertyList.encode(.dictionary(many), as: .xml))
        let run = try await fleet.prefs("import", "big", document)
        #expect(run.status == 0, "\(run.error)")
        #expect(try await fleet.prefs("read", "big", "k299").outputText == "299\n")
        let file = try fleet.sandbox.directory.write("two", [UInt8](repeating: 7, count: 2_000_000))
        for dryRun in [["--dry-run"], []] {
            let refused = try await fleet.prefs(["register", "big", "v", "-data", "@" + file] + dryRun)
            #expect(refused.status == 65 && refused.error.contains("at most 1.5 MiB"), "\(dryRun) \(refused.error)")
        }
        #expect(try await fleet.prefs("read", "big", "v").status == 1, "nothing was written")
    }

    @Test func aThreeMegabyteValueRoundTripsThroughChunks() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        let file = try fleet.sandbox.directory.write("big", bytes)
        #expect(try await fleet.prefs("write", "s", "big", "-data", "@" + file).status == 0)
        #expect(try await fleet.prefs("read", "s", "big", "--raw").output == bytes)
        #expect(try await fleet.prefs("read-type", "s", "big").outputText == "data\n")
        #expect(try await fleet.prefs("check", "s").outputText == "s: 1 external value OK\n")
        #expect(try await fleet.prefs("write", "s", "big", "small").status == 0)
        #expect(try await fleet.prefs("check", "s").outputText == "s: 0 external values OK\n")
        #expect(try await fleet.prefs("gc", "--grace", "0").status == 0)
    }

    /// A value past the size where a second thread reads and hashes it (`TreeReader`, here reading
    /// etcd's chunks): read back whole, checked, and a chunk cut short is found.
    @Test func aNineMebibyteValueIsReadOnTwoThreadsAndChecked() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let bytes = (0..<(9 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 9) }
        let file = try fleet.sandbox.directory.write("big", bytes)
        #expect(try await fleet.prefs("write", "s", "big", "-data", "@" + file).status == 0)
        #expect(try await fleet.prefs("read", "s", "big", "--raw").output == bytes)
        #expect(try await fleet.prefs("check", "s").outputText == "s: 1 external value OK\n")
        let prefix = String(fleet.url.split(separator: "/").last!)
        let chunks = try await fleet.cluster.etcdctl("get", "--prefix", "--keys-only", prefix + "/.chunks/s/big/").split(separator: "\n")
        #expect(chunks.count == 10, "\(chunks)")
        try await fleet.cluster.etcdctl("put", String(try #require(chunks.dropFirst(4).first)), "short")
        let read = try await fleet.prefs("read", "s", "big", "--raw")
        #expect(read.status == 65 && read.error.contains("s: big: external value: blob big/") && read.error.contains("is damaged"), "\(read.error)")
        #expect(try await fleet.prefs("check", "s").status == 65)
    }

    /// A store that stops answering while a large value is read is unavailable (69, its one-line
    /// message), not a damaged value; a chunk that is gone is 65 with the blob's problem, no dump.
    @Test func aStoreOutageWhileReadingABlobIs69AndAMissingChunkIsItsProblem() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        let bytes = (0..<(2 << 20) + 100).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        let file = try fleet.sandbox.directory.write("big", bytes)
        #expect(try await fleet.prefs("write", "s", "big", "-data", "@" + file).status == 0)
        let proxy = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "norange")
        let prefix = String(fleet.url.split(separator: "/").last!)
        let cut = ["PREFS_STORE": "etcd://\(proxy.endpoint)/\(prefix)", "PREFS_ETCD_TIMEOUT": "1"]
        for arguments in [["read", "s", "big", "--raw"], ["read", "s", "big"], ["check", "s"]] {
            let run = try await fleet.prefs(arguments, environment: cut)
            #expect(run.status == 69 && !run.error.contains("unavailable(") && run.error.split(separator: "\n").count == 1,
                    "\(arguments): \(run.status) \(run.error)")
        }
        let chunks = try await fleet.cluster.etcdctl("get", "--prefix", "--keys-only", prefix + "/.chunks/s/big/").split(separator: "\n")
        try #require(chunks.count == 3, "\(chunks)")
        try await fleet.cluster.etcdctl("del", String(chunks[2]))
        let read = try await fleet.prefs("read", "s", "big", "--raw")
        #expect(read.status == 65 && read.error.hasPrefix("prefs: s: big: external value: blob big/") && read.error.hasSuffix(" is missing chunk 2\n")
                && !read.error.contains("Problem("), "\(read.error)")
    }

    /// gc --grace 0 in a loop while large values are written: every write that exited 0 reads back.
    @Test func aConcurrentGCLosesNoCommittedValue() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let script = """
        set -u
        head -c 300000 /dev/urandom > v
        ( while [ ! -e stop ]; do prefs gc --grace 0 >/dev/null 2>&1; done ) &
        for i in $(seq 1 12); do
          printf '%04d' $i | cat - v > v$i
          if prefs write s k$i -data @v$i; then echo $i >> ok; fi
        done
        touch stop; wait
        for i in $(cat ok); do prefs read s k$i --raw | cmp -s - v$i || echo "k$i differs"; done
        """
        let run = try await runProcess("/bin/bash", ["-c", "cd '\(fleet.sandbox.directory.path)' && " + script], environment: fleet.environment)
        #expect(run.status == 0 && run.outputText.isEmpty, "\(run.outputText) \(run.error)")
        #expect(try String(contentsOfFile: fleet.sandbox.directory.file("ok"), encoding: .utf8).split(separator: "\n").count == 12)
        #expect(try await fleet.prefs("check", "s").outputText == "s: 12 external values OK\n")
    }

    /// Writes go on while the leader is killed (and come back).
    @Test func killingTheLeaderStopsNothing() async throws {
        let cluster = try await EtcdCluster.start(members: 3)
        let fleet = try FleetSandbox(cluster)
        #expect(try await fleet.prefs("write", "s", "n", "-int", "0").status == 0)
        let leader = try await cluster.leaderIndex()
        await cluster.kill(member: leader)
        for _ in 0..<20 { #expect(try await fleet.prefs("write", "s", "n", "-int-add", "1").status == 0) }
        #expect(try await fleet.prefs("read", "s", "n").outputText == "20\n")
        try await cluster.restart(member: leader)
    }

    /// No endpoint answers: 69 within the timeout, naming the endpoints; never a hang.
    @Test func aDeadClusterIs69WithinTheTimeout() async throws {
        let sandbox = try ProcessSandbox()
        let run = try await runProcess(Paths.binary, ["read", "s", "k"], environment: sandbox.environment.merging([
            "PREFS_STORE": "etcd://127.0.0.1:9,127.0.0.1:1/prefs", "PREFS_ETCD_TIMEOUT": "1"]) { $1 })
        #expect(run.status == 69, "\(run.status) \(run.error)")
        #expect(run.error.contains("127.0.0.1:9") && run.error.contains("127.0.0.1:1"), "\(run.error)")
        #expect(run.elapsed < 5)
        let bad = try await runProcess(Paths.binary, ["read", "s", "k"], environment: sandbox.environment.merging(["PREFS_STORE": "etcd://"]) { $1 })
        #expect(bad.status == 64 && bad.error.hasPrefix("prefs: PREFS_STORE"), "\(bad.error)")
        let badOption = try await runProcess(Paths.binary, ["--store", "http://127.0.0.1:2379", "read", "s", "k"], environment: sandbox.environment)
        #expect(badOption.status == 64 && badOption.error.contains("bad etcd URL 'http://127.0.0.1:2379'"), "\(badOption.error)")
    }

    /// The watch prints the file watch's lines and loses nothing across a member restart.
    @Test func watchResumesAcrossAMemberRestart() async throws {
        let cluster = try await EtcdCluster.start(members: 3)
        let fleet = try FleetSandbox(cluster)
        #expect(try await fleet.prefs("write", "s", "n", "-int", "0").status == 0)
        // The watch talks to member 0 first; it is killed and restarted while writes go on elsewhere.
        let first = cluster.clientEndpoints[0]
        let rest = cluster.clientEndpoints.dropFirst().joined(separator: ",")
        let prefix = fleet.url.split(separator: "/").last!
        let watch = try WatchProcess(fleet.sandbox, ["s", "n", "--initial"], environment: ["PREFS_STORE": "etcd://\(first),\(rest)/\(prefix)"])
        // Its first read is done (and its watch starts from that revision) once it prints the value.
        try #require(await watch.nextLine(timeout: 30) == "n (absent) -> 0")
        try #require(await fleet.prefs("write", "s", "n", "-int", "1", environment: ["PREFS_STORE": "etcd://\(rest)/\(prefix)"]).status == 0)
        #expect(await watch.nextLine() == "n 0 -> 1")
        await cluster.kill(member: 0)
        for i in 2...5 { try #require(await fleet.prefs("write", "s", "n", "-int", "\(i)", environment: ["PREFS_STORE": "etcd://\(rest)/\(prefix)"]).status == 0) }
        try await cluster.restart(member: 0)
        var lines: [String] = []
        while lines.count < 4, let line = await watch.nextLine(timeout: 10) { lines.append(line) }
        watch.process.terminate()
        #expect(lines == ["n 1 -> 2", "n 2 -> 3", "n 3 -> 4", "n 4 -> 5"], "no change lost or printed twice")
    }

    @Test func credentialsAreUsedAndABadPasswordIs77() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        try await cluster.enableAuth(rootPassword: "secret")
        let fleet = try FleetSandbox(cluster)
        let good = ["PREFS_ETCD_USER": "root", "PREFS_ETCD_PASSWORD": "secret"]
        #expect(try await fleet.prefs("write", "s", "k", "v", environment: good).status == 0)
        #expect(try await fleet.prefs("read", "s", "k", environment: good).outputText == "v\n")
        let bad = try await fleet.prefs("read", "s", "k", environment: ["PREFS_ETCD_USER": "root", "PREFS_ETCD_PASSWORD": "wrong"])
        #expect(bad.status == 77, "\(bad.status) \(bad.error)")
        #expect(try await fleet.prefs("read", "s", "k").status == 77, "no credentials")
    }
}
