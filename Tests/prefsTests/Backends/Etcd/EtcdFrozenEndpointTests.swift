import Foundation
import Testing
@testable import PrefsCore

/// A member that is stopped (SIGSTOP: its kernel still takes connections, nothing answers) first in
/// the URL of a real 3-member cluster, plain and TLS. Whether a command tried it is read from the
/// kernel, not from a clock: the connections no process accepts wait in the member's listening
/// socket's queue (`/proc/net/tcp`), so its length counts the commands that connected to it.
///
/// With `XDG_RUNTIME_DIR`, the first command records the member's failure in
/// `$XDG_RUNTIME_DIR/prefs/` and the ones after it never connect to it while another answers; an
/// entry older than 30 s is forgotten. Without it, or with one that is not the user's alone (another
/// owner, a symlink, mode 0777), each command connects to the stopped member first, gets its answer
/// from the next one, and writes nothing there; a health file that is not prefs's is ignored.
@Suite(.runsProcesses) struct EtcdFrozenEndpointTests {
    static let certificates = Result { try TestCertificates() }

    /// A 3-member cluster with a follower stopped, the URL listing it first, and a sandbox whose
    /// `XDG_RUNTIME_DIR` is `runtime` (0700) unless a test sets it.
    struct Frozen {
        let cluster: EtcdCluster
        let fleet: ProcessSandbox
        let frozen: EtcdCluster.Member
        let url: String
        let runtime: String
        var tls: [String: String] = [:]

        init(tls: Bool) async throws {
            let certificates = tls ? try EtcdFrozenEndpointTests.certificates.get() : nil
            let cluster = try await EtcdCluster.start(members: 3, tls: certificates.map { EtcdCluster.TLS($0) })
            self.cluster = cluster
            let follower = (try await cluster.leaderIndex() + 1) % 3
            frozen = cluster.members[follower]
            let others = cluster.members.indices.filter { $0 != follower }.map { cluster.members[$0].clientEndpoint }
            url = (tls ? "etcds://" : "etcd://") + ([cluster.members[follower].clientEndpoint] + others).joined(separator: ",") + "/frozen"
            fleet = try ProcessSandbox()
            runtime = fleet.directory.path + "/run"
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            if let certificates {
                let client = certificates.client("root")
                self.tls = ["PREFS_ETCD_CACERT": certificates.ca, "PREFS_ETCD_CERT": client.certificate, "PREFS_ETCD_KEY": client.key]
            }
            #expect(try await prefs("write", "app", "k", "-int", "7").status == 0)
            try await cluster.pause(member: follower)
        }

        /// `prefs` with `runtimeDirectory` as `XDG_RUNTIME_DIR` (nil: unset).
        func prefs(_ arguments: String..., runtimeDirectory: String?? = .none) async throws -> ProcessResult {
            var environment = fleet.environment.merging(["PREFS_STORE": url, "PREFS_ETCD_TIMEOUT": "30"]) { $1 }.merging(tls) { $1 }
            environment["XDG_RUNTIME_DIR"] = runtimeDirectory ?? runtime
            return try await runProcess(Paths.binary, arguments, environment: environment)
        }

        /// Connections waiting in the stopped member's queue: one per command that connected to it.
        func waiting() throws -> Int {
            let port = String(format: "%04X", frozen.clientPort)
            // Read to its end: the kernel writes it a page at a time.
            let table = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/net/tcp")).readToEnd() ?? Data()
            for line in String(decoding: table, as: UTF8.self).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl, local address, remote address, state (0A: listening), tx_queue:rx_queue.
                guard fields.count > 4, fields[1] == "0100007F:" + port, fields[3] == "0A" else { continue }
                return Int(fields[4].split(separator: ":")[1], radix: 16) ?? -1
            }
            throw TestFailure("nothing listens on 127.0.0.1:\(frozen.clientPort)")
        }

        var healthFile: String? {
            let folder = runtime + "/prefs"
            return (try? FileManager.default.contentsOfDirectory(atPath: folder))?.first { $0.hasPrefix("etcd-") }.map { folder + "/" + $0 }
        }
    }

    /// Reads `k` (7) and says whether the command connected to the stopped member.
    func readConnectsToFrozen(_ frozen: Frozen, runtimeDirectory: String?? = .none) async throws -> Bool {
        let before = try frozen.waiting()
        let run = try await frozen.prefs("read", "app", "k", runtimeDirectory: runtimeDirectory)
        #expect(run.status == 0 && run.outputText == "7\n", "\(run.status) \(run.error)")
        let after = try frozen.waiting()
        if after != before && after != before + 1 { Issue.record("\(after - before) connections to the stopped member") }
        return after > before
    }

    @Test(arguments: [false, true]) func aStoppedMemberIsRememberedAndNotTriedAgain(tls: Bool) async throws {
        let frozen = try await Frozen(tls: tls)
        #expect(try await readConnectsToFrozen(frozen), "the first command tries the first endpoint")
        let file = try #require(frozen.healthFile)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("failed \(frozen.frozen.clientEndpoint) "), "\(text)")
        #expect(text.hasPrefix("prefs etcd endpoints 1\nanswered 127.0.0.1:"), "\(text)")
        let attributes = try FileManager.default.attributesOfItem(atPath: frozen.runtime + "/prefs")
        #expect(attributes[.posixPermissions] as? Int == 0o700)
        #expect(try await readConnectsToFrozen(frozen) == false)
        #expect(try await readConnectsToFrozen(frozen) == false)
        let before = try frozen.waiting()
        #expect(try await frozen.prefs("write", "app", "w", "-int", "1").status == 0)
        #expect(try frozen.waiting() == before, "a write goes to the member that answered")
    }

    @Test func aRememberedFailureIsForgottenAfterThirtySeconds() async throws {
        let frozen = try await Frozen(tls: false)
        #expect(try await readConnectsToFrozen(frozen))
        let file = try #require(frozen.healthFile)
        // The file as the first command wrote it, less the member that answered (which would be
        // tried first whatever else the file says), its failure dated 20 s, then 40 s ago.
        let now = Date().timeIntervalSince1970
        for (age, tried) in [(20.0, false), (40.0, true)] {
            try "prefs etcd endpoints 1\nfailed \(frozen.frozen.clientEndpoint) \(now - age) timeout\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try await readConnectsToFrozen(frozen) == tried, "a failure \(age) s old")
        }
    }

    @Test func withoutAPrivateRuntimeDirectoryEveryCommandTriesTheStoppedMemberAndNothingIsWritten() async throws {
        let frozen = try await Frozen(tls: false)
        let base = frozen.fleet.directory.path
        let open = base + "/open", link = base + "/link", foreign = base + "/foreign"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: frozen.runtime)
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        var unusable: [String?] = [nil, open, link]
        if geteuid() == 0 {
            // Root may write anywhere: only the owner's check keeps it out.
            #expect(chown(foreign, 65534, 65534) == 0)
            unusable.append(foreign)
        } else if FileManager.default.fileExists(atPath: "/root") {
            unusable.append("/root")
        }
        for directory in unusable {
            for _ in 0..<2 {
                #expect(try await readConnectsToFrozen(frozen, runtimeDirectory: .some(directory)), "\(directory ?? "unset")")
            }
        }
        for directory in [open, foreign, frozen.runtime] {
            let entries = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(entries.isEmpty, "\(directory): \(entries)")
        }
    }

    @Test func aHealthFileThatIsNotPrefssIsIgnored() async throws {
        let frozen = try await Frozen(tls: false)
        #expect(try await readConnectsToFrozen(frozen))
        let file = try #require(frozen.healthFile)
        let others = frozen.url.dropFirst("etcd://".count).split(separator: "/")[0].split(separator: ",").dropFirst()
        let now = Date().timeIntervalSince1970
        // Each would have the stopped member tried last if it were taken.
        let corrupt = [
            "prefs etcd endpoints 2\nanswered \(others.first!)\n",
            "prefs etcd endpoints 1\nanswered \(others.first!)\nfailed \(frozen.frozen.clientEndpoint) \(now) timeout extra\n",
            "prefs etcd endpoints 1\nanswered \(others.first!)\nfailed \(frozen.frozen.clientEndpoint) \(now) sleepy\n",
            "prefs etcd endpoints 1\nanswered 10.9.9.9:1\nanswered \(others.first!)\n",
            "prefs etcd endpoints 1\nanswered \(others.first!)",
            "prefs etcd endpoints 1\nanswered \(others.first!)\n" + String(repeating: "#", count: 9000) + "\n",
        ]
        for text in corrupt {
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try await readConnectsToFrozen(frozen), "\(text.prefix(120))")
            // Replaced by what the command learnt.
            #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("prefs etcd endpoints 1\nanswered "))
        }
        // Not a regular file: a FIFO is never opened for long (nothing writes to it).
        try FileManager.default.removeItem(atPath: file)
        #expect(mkfifo(file, 0o600) == 0)
        #expect(try await readConnectsToFrozen(frozen))
    }
}
