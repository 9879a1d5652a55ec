import Foundation
import Testing
@testable import PrefsCore

/// `domains` when the global suite cannot be read: it is listed (so that it is looked at), and its
/// error follows the list with its status — never exit 0 as if all were well.
@Suite(.runsProcesses) struct DomainsFaultTests {
    /// A global suite file that does not parse: 65 naming it, after the list; a GLOB that leaves it
    /// out lists the others with 0. Nothing changes.
    @Test func aCorruptGlobalSuiteIs65AfterTheList() async throws {
        let sandbox = try ProcessSandbox()
        try #require(try await sandbox.prefs("write", "s", "k", "1").status == 0)
        let global = try sandbox.directory.write("config/.GlobalPreferences.plist", "<plist><dict><key>k</key>")
        let run = try await sandbox.prefs("domains")
        #expect(run.status == 65, "\(run.status) \(run.error)")
        #expect(run.outputText == "NSGlobalDomain\ns\n")
        #expect(run.error.hasPrefix("prefs: \(global): ") && run.error.split(separator: "\n").count == 1, "\(run.error)")
        let others = try await sandbox.prefs("domains", "s*")
        #expect(others.status == 0 && others.outputText == "s\n" && others.error.isEmpty, "\(others.status) \(others.error)")
        #expect(try Fixtures.bytes(global) == Array("<plist><dict><key>k</key>".utf8))
    }

    /// On etcd, an answer of the wrong shape to the global suite's read (every request answered
    /// `200 {"header":…}` by a proxy: the listing's range is a right answer with no suite, the
    /// global suite's transaction is not) is 65 naming the endpoint.
    @Test func aMalformedAnswerForTheGlobalSuiteIs65() async throws {
        let cluster = try await SharedCluster.oneMember.get()
        let fleet = try FleetSandbox(cluster)
        let proxy = try EtcdProxy(upstream: cluster.clientEndpoints[0], mode: "hollow")
        let prefix = String(fleet.url.split(separator: "/").last!)
        let run = try await fleet.prefs(["domains"], environment: ["PREFS_STORE": "etcd://\(proxy.endpoint)/\(prefix)"])
        #expect(run.status == 65, "\(run.status) \(run.error)")
        #expect(run.outputText == "NSGlobalDomain\n")
        #expect(run.error.hasPrefix("prefs: ") && run.error.contains(proxy.endpoint) && run.error.split(separator: "\n").count == 1, "\(run.error)")
    }
}
