import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// Administrators' layers with the etcd store, through the built `prefs` against a real etcd member:
/// the fleet's managed values (`PREFIX/.managed/NAME/`, written through the store at
/// `PREFIX/.managed`) and this machine's files under `$XDG_CONFIG_DIRS`, which bind every store. The
/// same rules as managed files: every verb that would change a managed key is refused whole (77),
/// nothing written.
@Suite(.runsProcesses) struct EtcdManagedValuesTests {
    /// The cluster the tests share, each under a prefix of its own (the one whose users enable auth
    /// starts its own).
    static let cluster = SharedCluster.oneMember

    /// A sandbox on the cluster whose suite `app` stores `mine = 1` and `locked = user`, and whose
    /// fleet's administrator manages `locked = policy`: the sandbox, and where the policy is.
    static func managedBox() async throws -> (FleetSandbox, String) {
        let fleet = try FleetSandbox(try await cluster.get())
        #expect(try await fleet.prefs("write", "app", "mine", "-int", "1", "locked", "user").status == 0)
        let admin = try await fleet.prefs("write", "app", "locked", "policy", environment: ["PREFS_STORE": fleet.url + "/.managed"])
        #expect(admin.status == 0, "\(admin.error)")
        return (fleet, fleet.url + "/.managed/app")
    }

    /// Every key under the fleet's prefix with its revision: equal footprints, nothing written.
    static func footprint(_ fleet: FleetSandbox) async throws -> [String] {
        let prefix = String(fleet.url.split(separator: "/").last!)
        let json = try await fleet.cluster.etcdctl("get", "--prefix", prefix + "/", "-w", "json")
        guard case .dictionary(let answer) = try JSONTextDecoder.decode(Array(json.utf8)) else { throw TestFailure("etcdctl get: \(json)") }
        guard case .array(let kvs)? = answer["kvs"] else { return [] }
        return kvs.map { kv in
            guard case .dictionary(let fields) = kv else { return "\(kv)" }
            return "\(fields["key"].map { "\($0)" } ?? "?") \(fields["mod_revision"].map { "\($0)" } ?? "?")"
        }
    }

    /// The table of every verb that would change a managed key, on etcd, the fleet's policy managing it.
    @Test(arguments: ManagedValuesTests.changesOfAManagedKey)
    func everyChangeOfAFleetsManagedKeyIsRefusedWhole(arguments: [String]) async throws {
        let (fleet, source) = try await EtcdManagedValuesTests.managedBox()
        let before = try await EtcdManagedValuesTests.footprint(fleet)
        let result = try await fleet.prefs(arguments)
        #expect(result.status == 77, "\(arguments): \(result.error)")
        #expect(result.error == "prefs: app: locked is managed by the administrator (\(source)) and cannot be changed; nothing changed\n")
        #expect(try await EtcdManagedValuesTests.footprint(fleet) == before)
        #expect(try await fleet.prefs("write", "app", "mine", "-int", "7").status == 0, "the suite's other keys stay writable")
    }

    /// `import`, `load` and `migrate` that would touch a fleet's managed key are refused whole too;
    /// `dump` leaves the managed values out and says where they are; `read --stored` shows the user's.
    @Test func importLoadMigrateAndDumpKeepToTheUsersValues() async throws {
        let (fleet, source) = try await EtcdManagedValuesTests.managedBox()
        #expect(try await fleet.prefs("read", "app", "locked", "--origin").outputText == "managed:\(source)\tpolicy\n")
        #expect(try await fleet.prefs("read", "--stored", "app", "locked").outputText == "user\n")
        let before = try await EtcdManagedValuesTests.footprint(fleet)
        #expect(try await fleet.prefs("import", "app", "-", input: Array(#"{"locked": "x", "mine": 5}"#.utf8)).status == 77)
        let old = try fleet.sandbox.directory.write("old.json", #"{"locked": "x", "fresh": 1}"#)
        #expect(try await fleet.prefs("migrate", "app", old).status == 77)
        #expect(try await EtcdManagedValuesTests.footprint(fleet) == before)
        let dump = try await fleet.prefs("dump")
        #expect(dump.status == 0 && !dump.outputText.contains("policy"))
        #expect(dump.error == "prefs: warning: app: the managed values (\(source)) are the administrator's and not in the dump\n")
        #expect(try await fleet.prefs("load", "-", input: dump.output).status == 0, "the dump holds the user's own value, as stored")
        #expect(try await fleet.prefs("import", "app", "-", input: Array(#"{"mine": 5}"#.utf8)).status == 0)
        #expect(try await fleet.prefs("load", "-", input: dump.output).status == 0)
        #expect(try await fleet.prefs("read", "app", "mine").outputText == "1\n")
        #expect(try await fleet.prefs("write", "app", "locked", "policy 2", environment: ["PREFS_STORE": fleet.url + "/.managed"]).status == 0)
        #expect(try await fleet.prefs("read", "app", "locked").outputText == "policy 2\n")
        #expect(try await fleet.prefs("domains").outputText == "app\n", "the managed values are no suite of the user's")
    }

    /// `describe` marks a key the fleet manages, after its origin.
    @Test func describeMarksAFleetsManagedKey() async throws {
        let (fleet, source) = try await EtcdManagedValuesTests.managedBox()
        let schema = try fleet.sandbox.directory.write("schema.json", #"{"keys": {"locked": {"type": "string"}, "mine": {"type": "integer"}}}"#)
        try #require(await fleet.prefs("register", "app", "--schema", schema).status == 0)
        let described = try await fleet.prefs("describe", "app", "locked")
        #expect(described.status == 0 && described.outputText.hasSuffix("  origin: managed:\(source)\n" + ManagedValuesTests.managedLine), "\(described.outputText)")
        #expect(!(try await fleet.prefs("describe", "app", "mine").outputText.contains("managed")))
    }

    /// This machine's managed file and system defaults bind a user of the fleet's store too (a
    /// user of a fleet's store is still a user of the machine), over the fleet's own; the global
    /// suite's managed values bind every suite.
    @Test func theMachinesFilesBindTheFleetsStore() async throws {
        let (fleet, fleetsPolicy) = try await EtcdManagedValuesTests.managedBox()
        let machine = try ManagedValuesTests.put(fleet.sandbox, "managed/app.plist", ["locked": "machine", "kiosk": true])
        let global = try ManagedValuesTests.put(fleet.sandbox, "managed/.GlobalPreferences.plist", ["forced": "everywhere"])
        let system = try ManagedValuesTests.put(fleet.sandbox, "defaults/app.plist", ["theme": "dark"])
        #expect(try await fleet.prefs("read", "app", "locked", "--origin").outputText == "managed:\(machine)\tmachine\n", "the machine's over the fleet's")
        #expect(try await fleet.prefs("read", "other", "forced", "--origin").outputText == "managed:\(global)\teverywhere\n")
        #expect(try await fleet.prefs("read", "app", "theme", "--origin").outputText == "system:\(system)\tdark\n")
        let refused = try await fleet.prefs("write", "app", "kiosk", "-bool", "false")
        #expect(refused.status == 77 && refused.error == "prefs: app: kiosk is managed by the administrator (\(machine)) and cannot be changed; nothing changed\n")
        let forced = try await fleet.prefs("write", "other", "forced", "x")
        #expect(forced.status == 77 && forced.error == "prefs: other: forced is managed by the administrator (\(global)) and cannot be changed; nothing changed\n")
        try FileManager.default.removeItem(atPath: machine)
        #expect(try await fleet.prefs("write", "app", "locked", "x").error.contains("(\(fleetsPolicy))"))
    }

    /// A hostile managed file fails every read and change of its suite on the fleet's store too;
    /// a managed value in etcd that is no binary property list fails a read of it and every change
    /// of the suite (65), never skipped.
    @Test(arguments: ["fifo", "device", "corrupt", "unreadable", "value"])
    func aHostileManagedFileOrValueIsAnErrorNeverSkipped(kind: String) async throws {
        let (fleet, _) = try await EtcdManagedValuesTests.managedBox()
        let directory = fleet.sandbox.administered + "/prefs/managed"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/app.plist"
        var expected: Int32 = 65
        var named = path
        switch kind {
        case "fifo": #expect(mkfifo(path, 0o644) == 0)
        case "device": #expect(symlink("/dev/zero", path) == 0)
        case "corrupt": try Data("<plist><dict><key>k".utf8).write(to: URL(fileURLWithPath: path))
        case "unreadable":
            try Data(try PropertyList.encode(["k": 1], as: .xml)).write(to: URL(fileURLWithPath: path))
            #expect(chmod(path, 0) == 0)
            guard access(path, R_OK) != 0 else { return }  // root reads it anyway
            expected = 74
        default:
            let prefix = String(fleet.url.split(separator: "/").last!)
            try await fleet.cluster.etcdctl("put", prefix + "/.managed/app/locked", "bplist00 cut short")
            named = fleet.url + "/.managed/app"
        }
        for arguments in [["read", "app", "locked"], ["read", "app"], ["write", "app", "mine", "2"], ["write", "app", "mine", "2", "--dry-run"]] {
            let result = try await fleet.prefs(arguments)
            #expect(result.status == expected, "\(arguments): \(result.error)")
            #expect(result.error.hasPrefix("prefs: \(named)"), "\(arguments): \(result.error)")
        }
        #expect(try await fleet.prefs("read", "--stored", "app", "mine").outputText == "1\n")
    }

    /// `watch` reports the fleet's managed value as it changes, appears and goes.
    @Test func watchReportsAChangeOfAFleetsManagedValue() async throws {
        let fleet = try FleetSandbox(try await EtcdManagedValuesTests.cluster.get())
        let admin = ["PREFS_STORE": fleet.url + "/.managed"]
        #expect(try await fleet.prefs("write", "app", "k", "mine").status == 0)
        let watch = try WatchProcess(fleet.sandbox, ["app", "--initial"], environment: ["PREFS_STORE": fleet.url])
        #expect(await watch.nextLine(timeout: 30) == "k (absent) -> mine")
        #expect(try await fleet.prefs("write", "app", "k", "policy", environment: admin).status == 0)
        #expect(await watch.nextLine() == "k mine -> policy")
        #expect(try await fleet.prefs("write", "-g", "g", "fleetwide", environment: admin).status == 0)
        #expect(await watch.nextLine() == "g (absent) -> fleetwide", "the global suite's managed values bind every suite")
        #expect(try await fleet.prefs("delete", "app", "k", environment: admin).status == 0)
        #expect(await watch.nextLine() == "k policy -> mine")
        watch.process.terminate()
    }

    /// A one-key read is one request to etcd, with the fleet's managed values, the global suite's,
    /// the user's suite, registered defaults and schema: one POST, under strace.
    @Test func aOneKeyReadIsOnePost() async throws {
        let (fleet, _) = try await EtcdManagedValuesTests.managedBox()
        #expect(try await fleet.prefs("write", "-g", "fleetwide", "policy", environment: ["PREFS_STORE": fleet.url + "/.managed"]).status == 0)
        #expect(try await fleet.prefs("register", "app", "r", "registered").status == 0)
        for key in ["locked", "mine", "fleetwide", "r", "absent"] {
            let trace = fleet.sandbox.directory.path + "/trace-" + key
            let run = try await runProcess("/usr/bin/strace", ["-f", "-qq", "-s", "64", "-e", "trace=write,sendto,sendmsg", "-o", trace, Paths.binary, "read", "app", key],
                                     environment: fleet.environment)
            #expect(run.status == (key == "absent" ? 1 : 0), "\(key): \(run.error)")
            let posts = try String(contentsOfFile: trace, encoding: .utf8).components(separatedBy: "POST /v3/").count - 1
            #expect(posts == 1, "\(key): \(posts) requests")
        }
    }

    /// The role the README and the man page give a fleet's users: they change everything under
    /// PREFIX but the managed values and their markers, which they may only read. They see the
    /// policy win and watch it change; they can change it neither through prefs (77, refused
    /// before anything is sent) nor around it (etcd refuses: 77, or etcdctl fails).
    @Test func usersOfTheDocumentedRoleReadManagedValuesAndCannotChangeThem() async throws {
        let cluster = try await EtcdCluster.start(members: 1)
        let fleet = try FleetSandbox(cluster)
        let prefix = String(fleet.url.split(separator: "/").last!)
        let admin = ["PREFS_STORE": fleet.url + "/.managed"]
        try #require(await fleet.prefs("write", "app", "mine", "-int", "1", "locked", "user").status == 0)
        try #require(await fleet.prefs("write", "app", "locked", "policy", environment: admin).status == 0)
        let P = prefix
        try await cluster.etcdctl("role", "add", "prefs-user")
        for grant in [["readwrite", "\(P)/", "\(P)/.managed/"], ["read", "--prefix=true", "\(P)/.managed/"],
                      ["readwrite", "\(P)/.managed0", "\(P)/.suites/.managed/"], ["read", "--prefix=true", "\(P)/.suites/.managed/"],
                      ["readwrite", "\(P)/.suites/.managed0", "\(P)0"]] {
            try await cluster.etcdctl(["role", "grant-permission", "prefs-user"] + grant)
        }
        try await cluster.etcdctl("user", "add", "ada:ada-password")
        try await cluster.etcdctl("user", "grant-role", "ada", "prefs-user")
        try await cluster.etcdctl("user", "add", "fleet-admin:admin-password")
        try await cluster.etcdctl("role", "add", "prefs-admin")
        try await cluster.etcdctl("role", "grant-permission", "prefs-admin", "readwrite", "--prefix=true", "\(P)/")
        try await cluster.etcdctl("user", "grant-role", "fleet-admin", "prefs-admin")
        try await cluster.enableAuth(rootPassword: "root-password")
        let ada = ["PREFS_ETCD_USER": "ada", "PREFS_ETCD_PASSWORD": "ada-password"]
        let fleetAdmin = admin.merging(["PREFS_ETCD_USER": "fleet-admin", "PREFS_ETCD_PASSWORD": "admin-password"]) { $1 }
        let source = fleet.url + "/.managed/app"
        let read = try await fleet.prefs("read", "app", "locked", "--origin", environment: ada)
        #expect(read.status == 0 && read.outputText == "managed:\(source)\tpolicy\n", "\(read.error)")
        #expect(try await fleet.prefs("read", "--stored", "app", "locked", environment: ada).outputText == "user\n")
        let refused = try await fleet.prefs("write", "app", "locked", "x", environment: ada)
        #expect(refused.status == 77 && refused.error == "prefs: app: locked is managed by the administrator (\(source)) and cannot be changed; nothing changed\n")
        #expect(try await fleet.prefs("delete", "app", "locked", environment: ada).status == 77)
        #expect(try await fleet.prefs("write", "app", "mine", "-int", "2", environment: ada).status == 0)
        #expect(try await fleet.prefs("write", "other", "k", "v", environment: ada).status == 0)
        #expect(try await fleet.prefs("register", "app", "r", "1", environment: ada).status == 0)
        let around = try await fleet.prefs("write", "app", "locked", "mine", environment: ada.merging(admin) { $1 })
        #expect(around.status == 77, "etcd refuses a user's write to the managed values: \(around.error)")
        let marker = try await runProcess(EtcdCluster.etcdctlPath, ["--endpoints=" + cluster.clientEndpoints.joined(separator: ","), "--user=ada:ada-password",
                                                            "put", "\(P)/.suites/.managed/app", "x/1"], timeout: 30)
        #expect(marker.status != 0 && marker.error.contains("permission denied"), "the managed values' markers are read-only: \(marker.error)")
        // A user's watch sees the administrator's change.
        let watch = try WatchProcess(fleet.sandbox, ["app", "locked", "--initial"], environment: ["PREFS_STORE": fleet.url].merging(ada) { $1 })
        #expect(await watch.nextLine(timeout: 30) == "locked (absent) -> policy")
        #expect(try await fleet.prefs("write", "app", "locked", "policy 2", environment: fleetAdmin).status == 0)
        #expect(await watch.nextLine() == "locked policy -> policy 2")
        watch.process.terminate()
        #expect(try await fleet.prefs("read", "app", "locked", environment: ada).outputText == "policy 2\n")
    }
}
