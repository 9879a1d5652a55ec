import Foundation
import Testing
@testable import PrefsCore

/// ByHost suites are kept in files only, and `defaults` (prefs under that name) uses the store
/// prefs would use.
extension EtcdTests {
    static let byHostRefusal = "ByHost suites (-currentHost, -host) are kept in files only, not in this store: leave out --store and PREFS_STORE"

    /// A host option with the etcd store is a usage error (64) before etcd is asked anything — a
    /// dead endpoint answers it at once — and before this machine's host ID is looked for (a bad
    /// one is not what is reported).
    @Test func aHostOptionWithTheEtcdStoreIsRefusedAtOnce() async throws {
        let sandbox = try ProcessSandbox()
        sandbox.extraEnvironment["PREFS_HOST_ID"] = "bad id"
        var took = 0.0
        for arguments in [["--store", "etcd://127.0.0.1:9", "-currentHost", "write", "app", "k", "v"],
                          ["-host", "studio", "--store", "etcd://127.0.0.1:9", "read", "app", "k"]] {
            let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment.merging(["PREFS_ETCD_TIMEOUT": "3"]) { $1 })
            #expect(run.status == 64 && run.error == "prefs: \(EtcdTests.byHostRefusal)\n", "\(arguments): \(run.error)")
            took += run.elapsed
        }
        #expect(took < 3, "no endpoint was tried")
        #expect(!FileManager.default.fileExists(atPath: sandbox.config), "nothing was written")
    }

    /// Reads through the etcd store have no host layers (this machine's ByHost file is not seen);
    /// run as `defaults` with `PREFS_STORE`, prefs writes and reads etcd, and refuses the host
    /// options with `defaults`' exit status (1).
    @Test func defaultsUsesTheStoreAndTheStoreHasNoHostLayers() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        #expect(try await fleet.prefs("-currentHost", "write", "app", "k", "this host", environment: ["PREFS_STORE": ""]).status == 0)
        #expect(try fleet.sandbox.files() == ["ByHost"])
        #expect(try await fleet.prefs("write", "app", "k", "fleet").status == 0)
        #expect(try await fleet.prefs("read", "app", "k", "--origin").outputText == "stored\tfleet\n")
        #expect(try await fleet.prefs("read", "app", "k", "--origin", environment: ["PREFS_STORE": ""]).outputText == "byhost\tthis host\n")
        let defaults = fleet.sandbox.directory.file("defaults")
        try FileManager.default.createSymbolicLink(atPath: defaults, withDestinationPath: Paths.binary)
        #expect(try await runProcess(defaults, ["write", "app", "n", "-int", "7"], environment: fleet.environment).status == 0)
        #expect(try await fleet.prefs("read", "app", "n").outputText == "7\n")
        #expect(try await runProcess(defaults, ["read", "app"], environment: fleet.environment).outputText == "{\n    k = fleet;\n    n = 7;\n}\n")
        let host = try await runProcess(defaults, ["-currentHost", "read", "app", "k"], environment: fleet.environment)
        #expect(host.status == 1 && host.error.hasSuffix("] \(EtcdTests.byHostRefusal)\n"), "\(host.error)")
        #expect(try fleet.sandbox.files() == ["ByHost"], "defaults wrote no file")
    }
}
