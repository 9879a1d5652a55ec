import Foundation
import Testing
@testable import PrefsCore

/// This host's snapshots against a cluster that is gone, and against what may be planted in their
/// place: a killed cluster still answers from the snapshot with the store's schema applied; a
/// snapshot file replaced by a symlink, a FIFO or garbage is no snapshot (never followed, never
/// waited on), and the next answer from the store puts a real one back without touching the
/// symlink's target.
@Suite(.serialized, .runsProcesses) struct EtcdSnapshotFaultTests {
    static let quick = ["PREFS_ETCD_TIMEOUT": "1"]

    static func snapshots(_ fleet: FleetSandbox) -> String { fleet.sandbox.directory.path + "/.cache/prefs/snapshots" }

    @Test func aKilledClusterAnswersFromTheSnapshotWithItsSchema() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        let fleet = try FleetSandbox(cluster)
        let schema = try fleet.sandbox.directory.write("schema.json", #"{"keys": {"n": {"type": "integer", "default": 5}}}"#)
        try #require(await fleet.prefs("register", "app", "--schema", schema).status == 0)
        try #require(await fleet.prefs("write", "app", "a", "-int", "1").status == 0)
        try #require(await fleet.prefs("read", "app").status == 0)
        await cluster.kill(member: 0)
        #expect(try await fleet.prefs("read", "app", "n", environment: Self.quick).status == 69)
        let answer = try await fleet.prefs("read", "app", "n", "--origin", "--fallback-cache", environment: Self.quick)
        #expect(answer.status == 0 && answer.outputText.hasSuffix(":schema:\(fleet.url)/.schemas/app\t5\n"), "\(answer.outputText) \(answer.error)")
        #expect(EtcdSnapshotTests.isNotice(answer.error), "\(answer.error)")
        let whole = try await fleet.prefs("export", "app", "-", "--format", "json", "--compact", "--effective", "--fallback-cache", environment: Self.quick)
        #expect(whole.status == 0 && whole.outputText == #"{"a":1,"n":5}"#, "\(whole.outputText) \(whole.error)")
    }

    @Test func aSnapshotReplacedByASymlinkAFIFOOrGarbageIsNoSnapshot() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        let fleet = try FleetSandbox(cluster)
        try #require(await fleet.prefs("write", "app", "a", "-int", "1").status == 0)
        try #require(await fleet.prefs("read", "app", "a").status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.snapshots(fleet))
        try #require(names.count == 1)
        let path = Self.snapshots(fleet) + "/" + names[0]
        let real = try Data(contentsOf: URL(fileURLWithPath: path))
        let elsewhere = try TemporaryDirectory()
        let target = elsewhere.path + "/planted.plist"
        try real.write(to: URL(fileURLWithPath: target))

        try await cluster.pause(member: 0)
        defer { try? cluster.resume(member: 0) }
        let ask = ["read", "app", "a", "--max-stale", "3600", "--fallback-cache"]
        let control = try await fleet.prefs(ask, environment: Self.quick)
        #expect(control.status == 0 && control.outputText == "1\n", "the real file answers: \(control.error)")
        let plants: [(String, () throws -> Void)] = [
            ("symlink", { #expect(symlink(target, path) == 0) }),
            ("FIFO", { #expect(mkfifo(path, 0o600) == 0) }),
            ("garbage", { try Data("bplist00\u{0}\u{1}garbage".utf8).write(to: URL(fileURLWithPath: path)) }),
        ]
        for (kind, plant) in plants {
            try FileManager.default.removeItem(atPath: path)
            try plant()
            let run = try await fleet.prefs(ask, environment: Self.quick)
            #expect(run.status == 69 && run.output.isEmpty && run.error.hasPrefix("prefs: no store endpoint answered"),
                    "\(kind): \(run.status) \(run.error)")
        }

        // The store answers again: a symlink in the snapshot's place is replaced, not written through.
        try FileManager.default.removeItem(atPath: path)
        #expect(symlink(target, path) == 0)
        try cluster.resume(member: 0)
        try #require(await fleet.prefs("write", "app", "a", "-int", "2").status == 0)
        #expect(try await fleet.prefs("read", "app", "a").outputText == "2\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == real, "the target is untouched")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular && attributes[.posixPermissions] as? Int == 0o600)
        let fresh = try await fleet.prefs(ask, environment: Self.quick)
        #expect(fresh.status == 0 && fresh.outputText == "2\n" && fresh.error.isEmpty, "\(fresh.error)")
    }
}
