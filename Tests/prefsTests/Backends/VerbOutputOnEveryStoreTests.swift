import Foundation
import Testing
@testable import PrefsCore

/// What only the built `prefs` shows, the same on every store: the bytes each verb prints, its
/// messages and exit statuses, and `--exit-code`'s 3. What the verbs mean (values, absence,
/// counters, conditions, dry runs, changes of several keys all or nothing, layers) is the
/// contract's, on every backend through the façade the verbs call (`BackendContractTests`).
@Suite(.serialized, .runsProcesses) struct VerbOutputOnEveryStoreTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case files, etcd
        var testDescription: String { rawValue }

        /// Both; in the edit loop's run without etcd (`PREFS_TEST_NO_ETCD=1`), files.
        static let allCases: [Store] = ProcessInfo.processInfo.environment["PREFS_TEST_NO_ETCD"] == "1" ? [.files] : [.files, .etcd]
    }

    /// A sandbox whose processes use `store`: files in the sandbox, or a prefix of its own on the
    /// cluster `EtcdTests` use.
    struct Sandbox {
        let sandbox: ProcessSandbox
        let variables: [String: String]

        init(_ store: Store) async throws {
            switch store {
            case .files:
                sandbox = try ProcessSandbox()
                variables = [:]
            case .etcd:
                let fleet = try FleetSandbox(try await EtcdTests.cluster.get())
                sandbox = fleet.sandbox
                variables = ["PREFS_STORE": fleet.url, "PREFS_ETCD_TIMEOUT": "5"]
            }
        }

        @discardableResult
        func prefs(_ arguments: String...) async throws -> ProcessResult {
            try await runProcess(Paths.binary, arguments, environment: sandbox.environment.merging(variables) { $1 })
        }
    }

    @Test(arguments: Store.allCases)
    func everyVerbPrintsTheSameOnEveryStore(store: Store) async throws {
        let sandbox = try await Sandbox(store)
        #expect(try await sandbox.prefs("write", "app", "s", "hello", "n", "-int", "1", "f", "-float", "1.5", "b", "-bool", "yes",
                                        "d", "-date", "2026-01-02T03:04:05Z", "x", "-data", "0a0b", "a", "-array", "p", "q").status == 0)
        #expect(try await sandbox.prefs("read", "app", "s").outputText == "hello\n")
        #expect(try await sandbox.prefs("read-type", "app", "d").outputText == "date\n")
        #expect(try await sandbox.prefs("read", "app", "a", "--json").outputText == "[\n  \"p\",\n  \"q\"\n]\n")
        #expect(try await sandbox.prefs("write", "app", "n", "-int-add", "41").outputText == "42\n")
        #expect(try await sandbox.prefs("write", "app", "f", "-float-add", "1").outputText == "2.5\n")
        #expect(try await sandbox.prefs("write", "app", "s", "hello", "--exit-code").status == 0, "the same value: nothing changed")
        let changed = try await sandbox.prefs("write", "app", "s", "bye", "--exit-code")
        #expect(changed.status == 3 && changed.output.isEmpty, "\(changed.status) \(changed.error)")
        let refused = try await sandbox.prefs("write", "app", "s", "x", "--if-equals", "nope")
        #expect(refused.status == 4 && refused.error.hasPrefix("prefs: "), "\(refused.error)")
        #expect(try await sandbox.prefs("write", "app", "z", "1", "--dry-run").outputText == "+ z = \"1\"\n")
        let missing = try await sandbox.prefs("read", "nosuch", "k")
        #expect(missing.status == 1 && missing.error == "prefs: nosuch: no such suite\n")
        // Layers, with their origins as `--origin` prints them.
        #expect(try await sandbox.prefs("write", "-g", "G", "global").status == 0)
        #expect(try await sandbox.prefs("register", "app", "R", "-int", "7").status == 0)
        #expect(try await sandbox.prefs("read", "app", "G", "--origin").outputText == "global\tglobal\n")
        let registered = try await sandbox.prefs("read", "app", "R", "--origin").outputText
        switch store {
        case .files: #expect(registered == "registered:\(sandbox.sandbox.data)/prefs/defaults/app.plist\t7\n")
        case .etcd: #expect(registered.hasPrefix("registered:etcd://") && registered.hasSuffix("/.registered/app\t7\n"), "\(registered)")
        }
        #expect(try await sandbox.prefs("domains").outputText == "NSGlobalDomain\napp\n", "the global suite too, as it holds values")
        #expect(try await sandbox.prefs("find", "glob").outputText == "NSGlobalDomain\nNSGlobalDomain\tG\n", "the suite name, then the key")
        // migrate: an INI file into the store, applied whole, its values text.
        let ini = try sandbox.sandbox.directory.write("app.ini", Array("[window]\nwidth = 800\n[net]\ntimeout = 30\n".utf8))
        let migrated = try await sandbox.prefs("migrate", "app", ini)
        #expect(migrated.status == 0, "\(migrated.error)")
        #expect(try await sandbox.prefs("read", "app", ":window:width").outputText == "800\n")
        #expect(try await sandbox.prefs("read-type", "app", ":net:timeout").outputText == "string\n", "INI values stay text")
        #expect(try await sandbox.prefs("check", "app").status == 0)
        #expect(try await sandbox.prefs("delete", "app").status == 0)
        #expect(try await sandbox.prefs("domains").outputText == "NSGlobalDomain\n")
    }
}
