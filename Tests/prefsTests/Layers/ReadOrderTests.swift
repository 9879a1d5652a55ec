import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// The whole read order with the built `prefs`, as the man page's read order (Registered defaults) gives it, top first: managed
/// values (the suite's, then the global suite's; this machine's files, then on etcd the fleet's),
/// stored, global, system defaults, registered (the user's, then the packages'), schema — on files
/// and on etcd. Key `kNN` is set in layer NN and every layer under it, so `read --origin` names
/// layer NN for it, in a one-key read and in the whole suite.
@Suite(.runsProcesses) struct ReadOrderTests {
    @Test(arguments: ["files", "etcd"])
    func everyLayerAnswersUnderTheOnesAbove(store: String) async throws {
        let etcd = store == "etcd" ? try FleetSandbox(try await EtcdManagedValuesTests.cluster.get()) : nil
        let sandbox = try etcd?.sandbox ?? ProcessSandbox()
        func prefs(_ arguments: String...) async throws -> ProcessResult { try await prefs(arguments) }
        func prefs(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> ProcessResult {
            let result = if let etcd { try await etcd.prefs(arguments, environment: extra) } else {
                try await runProcess(Paths.binary, arguments, environment: sandbox.environment.merging(extra) { $1 })
            }
            #expect(result.status == 0, "\(arguments): \(result.error)")
            return result
        }
        let url = etcd?.url ?? ""
        let admin = ["PREFS_STORE": url + "/.managed"]
        // Each layer: its origin, and how it is given the keys it holds.
        var layers: [(origin: String, set: ([String], String) async throws -> Void)] = []
        func file(_ path: String) -> ([String], String) async throws -> Void {
            { keys, value in
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                let contents = PrefDictionary(keys.map { ($0, PrefValue.string(value)) })
                try Data(try PropertyList.encode(.dictionary(contents), as: .xml)).write(to: URL(fileURLWithPath: path))
            }
        }
        let managed = sandbox.administered + "/prefs/managed/"
        layers.append(("managed:\(managed)app.plist", file(managed + "app.plist")))
        if etcd != nil { layers.append(("managed:\(url)/.managed/app", { keys, value in _ = try await prefs(["write", "app"] + keys.flatMap { [$0, value] }, environment: admin) })) }
        layers.append(("managed:\(managed).GlobalPreferences.plist", file(managed + ".GlobalPreferences.plist")))
        if etcd != nil {
            layers.append(("managed:\(url)/.managed/.GlobalPreferences", { keys, value in _ = try await prefs(["write", "-g"] + keys.flatMap { [$0, value] }, environment: admin) }))
        }
        layers.append(("stored", { keys, value in _ = try await prefs(["write", "app"] + keys.flatMap { [$0, value] }) }))
        layers.append(("global", { keys, value in _ = try await prefs(["write", "-g"] + keys.flatMap { [$0, value] }) }))
        layers.append(("system:\(sandbox.administered)/prefs/defaults/app.plist", file(sandbox.administered + "/prefs/defaults/app.plist")))
        layers.append(("registered:" + (etcd == nil ? sandbox.data + "/prefs/defaults/app.plist" : url + "/.registered/app"),
                       { keys, value in _ = try await prefs(["register", "app"] + keys.flatMap { [$0, value] }) }))
        layers.append(("registered:\(sandbox.packages)/prefs/defaults/app.plist", file(sandbox.packages + "/prefs/defaults/app.plist")))
        layers.append(("schema:" + (etcd == nil ? sandbox.data + "/prefs/schemas/app.plist" : url + "/.schemas/app"), { keys, value in
            let declared = keys.map { #""\#($0)": {"type": "string", "default": "\#(value)"}"# }.joined(separator: ", ")
            _ = try await prefs("register", "app", "--schema", try sandbox.directory.write("schema.json", #"{"keys": {\#(declared)}}"#))
        }))
        let keys = layers.indices.map { String(format: "k%02d", $0 + 1) }
        // From the bottom up: the user's own layers before the managed values that would refuse them.
        for (index, layer) in layers.enumerated().reversed() {
            try await layer.set(Array(keys[...index]), "layer\(index + 1)")
        }
        var expected = ""
        for (index, layer) in layers.enumerated() {
            let line = "\(layer.origin)\tlayer\(index + 1)\n"
            #expect(try await prefs("read", "app", keys[index], "--origin").outputText == line, "\(keys[index])")
            expected += "\(layer.origin)\t\(keys[index])\tlayer\(index + 1)\n"
        }
        let whole = try await prefs("read", "app", "--origin").outputText
        #expect(whole == expected, "\(whole)")
        #expect(try await prefs("read", "app", "k01", "--stored").outputText == "layer\(layers.firstIndex { $0.origin == "stored" }! + 1)\n")
    }
}
