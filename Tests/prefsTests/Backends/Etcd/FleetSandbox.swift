import Foundation
import Testing
@testable import PrefsCore

/// A fleet's store for one test: a `ProcessSandbox` whose processes use a prefix of its own on an
/// etcd cluster (`PREFS_STORE`), and the cluster, for etcdctl.
struct FleetSandbox {
    let cluster: EtcdCluster
    let sandbox: ProcessSandbox
    let url: String

    init(_ cluster: EtcdCluster, prefix: String = "t" + String(UInt32.random(in: 0...UInt32.max), radix: 36)) throws {
        self.cluster = cluster
        sandbox = try ProcessSandbox()
        url = cluster.url(prefix: prefix)
    }

    var environment: [String: String] { sandbox.environment.merging(["PREFS_STORE": url, "PREFS_ETCD_TIMEOUT": "5"]) { $1 } }

    @discardableResult
    func prefs(_ arguments: String..., input: [UInt8] = [], environment extra: [String: String] = [:]) async throws -> ProcessResult {
        try await prefs(arguments, input: input, environment: extra)
    }

    @discardableResult
    func prefs(_ arguments: [String], input: [UInt8] = [], environment extra: [String: String] = [:]) async throws -> ProcessResult {
        try await runProcess(Paths.binary, arguments, input: input, environment: environment.merging(extra) { $1 })
    }

    func shell(_ script: String) async throws -> ProcessResult {
        try await runProcess("/bin/bash", ["-c", script], environment: environment)
    }
}
