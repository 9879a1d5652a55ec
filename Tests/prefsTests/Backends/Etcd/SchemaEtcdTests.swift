import Foundation
import Testing
@testable import PrefsCore

/// Schemas on the etcd store, through the built `prefs` against a real etcd member on loopback:
/// the user's schema kept under the prefix and checked by the same code as on files, a package's
/// schema file still found, origins naming where each schema is.
@Suite(.runsProcesses) struct SchemaEtcdTests {
    @Test func theSchemaIsKeptUnderThePrefixAndChecked() async throws {
        let cluster = try await SharedCluster.oneMember.get()
        let sandbox = try ProcessSandbox()
        let url = cluster.url(prefix: "s")
        let environment = sandbox.environment.merging(["PREFS_STORE": url, "PREFS_ETCD_TIMEOUT": "5"]) { $1 }
        func prefs(_ arguments: String...) async throws -> ProcessResult { try await runProcess(Paths.binary, arguments, environment: environment) }

        // A package's schema, a file under $XDG_DATA_DIRS, applies to the etcd store's suites too.
        try FileManager.default.createDirectory(atPath: sandbox.packages + "/prefs/schemas", withIntermediateDirectories: true)
        let shipped = sandbox.packages + "/prefs/schemas/app.json"
        try Data(#"{"keys": {"n": {"type": "integer", "max": 100, "default": 50}}}"#.utf8).write(to: URL(fileURLWithPath: shipped))
        #expect(try await prefs("read", "app", "n", "--origin").outputText == "schema:\(shipped)\t50\n")
        #expect(try await prefs("write", "app", "n", "200").status == 65)

        let file = try sandbox.directory.write("schema.json", #"{"allowUndeclaredKeys": false, "keys": {"n": {"type": "integer", "min": 1, "max": 9, "default": 5}}}"#)
        let installed = try await prefs("register", "app", "--schema", file)
        #expect(installed.status == 0, "\(installed.error)")
        let keys = try await cluster.etcdctl("get", "--prefix", "--keys-only", "s/.schemas/").split(separator: "\n").map(String.init)
        #expect(keys == ["s/.schemas/app/allowUndeclaredKeys", "s/.schemas/app/keys"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.config) && !FileManager.default.fileExists(atPath: sandbox.data + "/prefs/schemas"), "nothing on disk")
        let source = url + "/.schemas/app"
        #expect(try await prefs("read", "app", "n", "--origin").outputText == "schema:\(source)\t5\n")
        #expect(try await prefs("write", "app", "n", "7").status == 0)
        #expect(try await prefs("read-type", "app", "n").outputText == "integer\n")
        let refused = try await prefs("write", "app", "n", "-int-add", "5")
        #expect(refused.status == 65 && refused.error == "prefs: app: n: expected an integer from 1 to 9, not 12 (schema \(source)); nothing changed (--no-schema stores it anyway)\n",
                "\(refused.error)")
        #expect(try await prefs("write", "app", "m", "1").status == 65)
        #expect(try await prefs("describe", "app").outputText.hasPrefix("schema: \(source)\nundeclared keys: refused\n"))
        #expect(try await prefs("domains").outputText == "app\n", "a schema is not a suite")
        #expect(try await prefs("write", "app", "m", "1", "--no-schema").status == 0)
        let check = try await prefs("check", "app")
        #expect(check.status == 65 && check.outputText.contains("app: m: not a key the schema declares"), "\(check.outputText)")
        #expect(try await prefs("read", "app", "n").outputText == "7\n")
    }
}
