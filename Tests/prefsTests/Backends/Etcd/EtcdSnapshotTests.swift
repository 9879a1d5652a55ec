import Foundation
import Testing
@testable import PrefsCore

/// Reads and watches when the cluster is away, against real 3-member clusters of their own (they
/// are frozen with SIGSTOP for longer than PREFS_ETCD_TIMEOUT, which a shared cluster must not be):
/// `read`, `export` and `exec` answer from this host's snapshot with `--fallback-cache` and say so,
/// else 69; `--max-stale` answers without contacting the cluster; `watch` and `watch --exec` outlive
/// the freeze and report what changed meanwhile as one change.
@Suite(.runsProcesses) struct EtcdSnapshotTests {
    /// The line on standard error of an answer from the snapshot.
    static func isNotice(_ text: String) -> Bool {
        text.wholeMatch(of: /prefs: app: the store did not answer; answering from this host's snapshot of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(\d+s ago\)\n/) != nil
    }

    func snapshotFiles(_ fleet: FleetSandbox) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fleet.sandbox.directory.path + "/.cache/prefs/snapshots")) ?? []).sorted()
    }

    func freeze(_ cluster: EtcdCluster) async throws {
        for member in cluster.members.indices { try await cluster.pause(member: member) }
    }

    func thaw(_ cluster: EtcdCluster) {
        for member in cluster.members.indices { try? cluster.resume(member: member) }
    }

    @Test func readsAnswerFromTheSnapshotWhileTheClusterIsFrozen() async throws {
        let cluster = try await EtcdCluster.start(members: 3)
        let fleet = try FleetSandbox(cluster)
        try #require(await fleet.prefs("--store", fleet.url + "/.managed", "write", "app", "locked", "policy").status == 0)
        try #require(await fleet.prefs("write", "app", "a", "-int", "1", "b", "hello").status == 0)
        try #require(await fleet.prefs("read", "app").status == 0)
        try #require(await fleet.prefs("read", "app", "a").outputText == "1\n")
        // The cache: 0700 directories, one 0600 file for the suite.
        let cache = fleet.sandbox.directory.path + "/.cache/prefs"
        for directory in [cache, cache + "/snapshots"] {
            #expect((try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int) == 0o700)
        }
        let files = snapshotFiles(fleet)
        try #require(files.count == 1)
        #expect((try FileManager.default.attributesOfItem(atPath: cache + "/snapshots/" + files[0])[.posixPermissions] as? Int) == 0o600)

        try await freeze(cluster)
        defer { thaw(cluster) }
        let quick = ["PREFS_ETCD_TIMEOUT": "1"]
        let away = try await fleet.prefs("read", "app", "a", environment: quick)
        #expect(away.status == 69 && away.output.isEmpty, "\(away.status) \(away.error)")
        let fallback = try await fleet.prefs("read", "app", "a", "--fallback-cache", "--origin", environment: quick)
        #expect(fallback.status == 0 && fallback.outputText.wholeMatch(of: /snapshot:\d+s:stored\t1\n/) != nil, "\(fallback.outputText)")
        #expect(Self.isNotice(fallback.error), "\(fallback.error)")
        // The fleet's managed values apply from the snapshot; PREFS_FALLBACK_CACHE=1 asks the same.
        let managed = try await fleet.prefs("read", "app", "locked", "--origin", environment: quick.merging(["PREFS_FALLBACK_CACHE": "1"]) { $1 })
        #expect(managed.status == 0 && managed.outputText.hasSuffix(":managed:\(fleet.url)/.managed/app\tpolicy\n"), "\(managed.outputText) \(managed.error)")
        let exec = try await fleet.prefs("exec", "app", "--fallback-cache", "--", "sh", "-c", "echo \"$a $b $locked\"", environment: quick)
        #expect(exec.status == 0 && exec.outputText == "1 hello policy\n" && Self.isNotice(exec.error), "\(exec.error)")
        let export = try await fleet.prefs("export", "app", "-", "--format", "json", "--compact", "--fallback-cache", environment: quick)
        #expect(export.status == 0 && export.outputText == "{\"a\":1,\"b\":\"hello\"}" && Self.isNotice(export.error), "\(export.outputText) \(export.error)")
        // What the snapshot knows is not there is 1, as from the cluster; a suite never read is 69.
        #expect(try await fleet.prefs("read", "app", "nope", "--fallback-cache", environment: quick).status == 1)
        let never = try await fleet.prefs("read", "other", "k", "--fallback-cache", environment: quick)
        #expect(never.status == 69 && never.error.hasPrefix("prefs: no store endpoint answered"), "\(never.error)")
        #expect(try await fleet.prefs("exec", "app", "--", "true", environment: quick).status == 69, "without the option, 69")
        // --max-stale answers without contacting the cluster: with an hour's timeout, a request to
        // the frozen members would hold the read until the test gave up on it.
        let fresh = try await fleet.prefs("read", "app", "b", "--max-stale", "3600", environment: ["PREFS_ETCD_TIMEOUT": "3600"])
        #expect(fresh.status == 0 && fresh.outputText == "hello\n" && fresh.error.isEmpty, "\(fresh.error)")
        let stale = try await fleet.prefs("read", "app", "b", "--max-stale", "0", "--fallback-cache", environment: quick)
        #expect(stale.status == 0 && Self.isNotice(stale.error), "too old: the cluster is asked, then the snapshot answers")
    }

    @Test func aSuiteDeletedOnTheClusterLeavesTheCacheAtTheNextRead() async throws {
        let fleet = try FleetSandbox(try await SharedCluster.threeMembers.get())
        try #require(await fleet.prefs("write", "app", "a", "1").status == 0)
        try #require(await fleet.prefs("read", "app", "a").status == 0)
        #expect(snapshotFiles(fleet).count == 1)
        try #require(await fleet.prefs("delete", "app").status == 0)
        #expect(try await fleet.prefs("read", "app", "a").status == 1)
        #expect(snapshotFiles(fleet).isEmpty)
    }

    /// A watch's readings are kept too: with no read before, a snapshot answers after the watch saw
    /// the suite, and after each change it reported.
    @Test func aWatchLeavesTheSnapshot() async throws {
        let fleet = try FleetSandbox(try await SharedCluster.threeMembers.get())
        try #require(await fleet.prefs("write", "app", "a", "-int", "1").status == 0)
        #expect(snapshotFiles(fleet).isEmpty, "a write keeps no snapshot")
        let watch = try WatchProcess(fleet.sandbox, ["app", "a", "--initial"], environment: ["PREFS_STORE": fleet.url])
        #expect(await watch.nextLine(timeout: 60) == "a (absent) -> 1")
        let first = try await fleet.prefs("read", "app", "a", "--max-stale", "3600", "--origin")
        #expect(first.outputText.wholeMatch(of: /snapshot:\d+s:stored\t1\n/) != nil, "\(first.outputText) \(first.error)")
        try #require(await fleet.prefs("write", "app", "a", "-int", "2").status == 0)
        #expect(await watch.nextLine(timeout: 60) == "a 1 -> 2")
        let second = try await fleet.prefs("read", "app", "a", "--max-stale", "3600", "--origin")
        #expect(second.outputText.wholeMatch(of: /snapshot:\d+s:stored\t2\n/) != nil, "\(second.outputText) \(second.error)")
    }

    /// `~/.cache/prefs` planted as a symlink to a directory elsewhere: reads go on, and nothing is
    /// written there.
    @Test func aPlantedSymlinkInTheCacheIsNotFollowed() async throws {
        let fleet = try FleetSandbox(try await SharedCluster.threeMembers.get())
        let elsewhere = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: fleet.sandbox.directory.path + "/.cache", withIntermediateDirectories: true)
        #expect(symlink(elsewhere.path, fleet.sandbox.directory.path + "/.cache/prefs") == 0)
        try #require(await fleet.prefs("write", "app", "a", "1").status == 0)
        #expect(try await fleet.prefs("read", "app", "a").outputText == "1\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    /// The whole cluster frozen for longer than the timeout: `watch` and `watch --exec` say so once,
    /// wait, say when it answers again, and go on.
    @Test func watchAndWatchExecOutliveAFrozenCluster() async throws {
        let cluster = try await EtcdCluster.start(members: 3)
        let fleet = try FleetSandbox(cluster)
        try #require(await fleet.prefs("write", "app", "a", "-int", "1").status == 0)
        let quick = ["PREFS_STORE": fleet.url, "PREFS_ETCD_TIMEOUT": "1"]
        let watch = try WatchProcess(fleet.sandbox, ["app", "a", "--initial"], environment: quick, limit: 600)
        let exec = try WatchProcess(fleet.sandbox, ["app", "a", "--initial", "--exec", "echo \"$PREFS_KEY=$PREFS_NEW\""], environment: quick, limit: 600)
        #expect(await watch.nextLine(timeout: 60) == "a (absent) -> 1")
        #expect(await exec.nextLine(timeout: 60) == "a=1")
        try await freeze(cluster)
        for process in [watch, exec] {
            #expect(await process.waitForError(timeout: 60) { $0.contains("watching again once the store answers") }, "\(process.errorText)")
        }
        thaw(cluster)
        for process in [watch, exec] {
            #expect(await process.waitForError(timeout: 60) { $0.contains("the store answers again") }, "\(process.errorText)")
            #expect(process.process.isRunning)
            #expect(process.errorText.split(separator: "\n").count == 2, "one line each way: \(process.errorText)")
        }
        let write = try await fleet.prefs("write", "app", "a", "-int", "2")
        #expect(write.status == 0, "\(write.error)")
        #expect(await watch.nextLine(timeout: 60) == "a 1 -> 2")
        #expect(await exec.nextLine(timeout: 60) == "a=2")
    }

    /// The one member a watch knows is frozen while the others take changes: once it answers again,
    /// the watch reports the difference between what it last reported and what is there now, as
    /// one change (no intermediate value, nothing twice), as after a compaction.
    @Test func aWatchBackFromAnOutageReportsTheFinalState() async throws {
        let cluster = try await EtcdCluster.start(members: 3)
        let fleet = try FleetSandbox(cluster)
        try #require(await fleet.prefs("write", "app", "a", "-int", "1", "c", "x").status == 0)
        let prefix = fleet.url.split(separator: "/").last!
        let only = ["PREFS_STORE": "etcd://\(cluster.clientEndpoints[0])/\(prefix)", "PREFS_ETCD_TIMEOUT": "1"]
        let others = ["PREFS_STORE": "etcd://\(cluster.clientEndpoints.dropFirst().joined(separator: ","))/\(prefix)", "PREFS_ETCD_TIMEOUT": "30"]
        let watch = try WatchProcess(fleet.sandbox, ["app", "--initial"], environment: only, limit: 600)
        // One run per change: PREFS_KEYS names its keys, PREFS_KEY and PREFS_NEW are for one key.
        let exec = try WatchProcess(fleet.sandbox, ["app", "--initial", "--exec", "echo \"$(printf %s \"$PREFS_KEYS\" | paste -sd,)=${PREFS_NEW-}\""],
                                    environment: only, limit: 600)
        #expect(await watch.lines(2, timeout: 60) == ["a (absent) -> 1", "c (absent) -> x"])
        #expect(await exec.nextLine(timeout: 60) == "a,c=")
        try await cluster.pause(member: 0)
        defer { try? cluster.resume(member: 0) }
        for process in [watch, exec] {
            #expect(await process.waitForError(timeout: 60) { $0.contains("watching again once the store answers") }, "\(process.errorText)")
        }
        for words in [["write", "app", "a", "-int", "2"], ["write", "app", "a", "-int", "3", "b", "new"], ["delete", "app", "c"]] {
            let run = try await fleet.prefs(words, environment: others)
            #expect(run.status == 0, "\(words): \(run.error)")
        }
        try cluster.resume(member: 0)
        #expect(await watch.lines(3, timeout: 60) == ["a 1 -> 3", "b (absent) -> new", "c x -> (removed)"])
        #expect(await exec.nextLine(timeout: 60) == "a,b,c=")
        #expect(watch.errorText.hasSuffix("prefs: app: the store answers again; what changed meanwhile follows as one change\n"))
        try #require(await fleet.prefs("write", "app", "a", "-int", "4").status == 0)
        #expect(await watch.nextLine(timeout: 60) == "a 3 -> 4")
        #expect(await exec.nextLine(timeout: 60) == "a=4")
        #expect(watch.unread.isEmpty, "nothing twice")
    }

    /// `--retry-for` bounds the wait: then 69, as before; without it, only `--timeout` ends it.
    @Test func retryForBoundsTheWait() async throws {
        let sandbox = try ProcessSandbox()
        let dead = ["PREFS_STORE": "etcd://127.0.0.1:1/p", "PREFS_ETCD_TIMEOUT": "0.5"]
        let bounded = try WatchProcess(sandbox, ["app", "--retry-for", "1"], environment: dead)
        #expect(await bounded.wait(timeout: 60) == 69)
        #expect(bounded.errorText.hasPrefix("prefs: app: no store endpoint answered") && bounded.errorText.split(separator: "\n").count == 2,
                "the outage said once, then the error: \(bounded.errorText)")
        let patient = try WatchProcess(sandbox, ["app", "--timeout", "3"], environment: dead)
        #expect(await patient.wait(timeout: 60) == 0)
        #expect(patient.errorText.split(separator: "\n").count == 1, "\(patient.errorText)")
        let atOnce = try WatchProcess(sandbox, ["app", "--retry-for", "0"], environment: dead)
        #expect(await atOnce.wait(timeout: 60) == 69)
        #expect(atOnce.errorText.hasPrefix("prefs: no store endpoint answered") && atOnce.errorText.split(separator: "\n").count == 1)
    }
}
