import Testing
@testable import PrefsCore

/// The write rules: what no change may store, names that cannot escape, no-op writes and dry runs that
/// write nothing, counters, containers and key paths, and all-or-nothing changes.
extension BackendContractTests {
    /// An empty key, a key with NUL (at any depth) and the external-reference marker key (at any
    /// depth) are refused whole (65); nothing is written.
    @Test(arguments: Backend.allCases)
    func keysNoChangeMayStoreAreRefusedWhole(backend: Backend) throws {
        try scenario(backend.knownIssue()) {
            let fixture = try ContractStore(backend)
            try fixture.write(.suite("app"), "k", "v")
            let before = try fixture.footprint()
            let nul = "a\u{0}b"
            expectFailure(.invalidKey(domain: "app", key: "", reason: "an empty key cannot be stored"), status: .dataError) {
                try fixture.store.update(.suite("app")) { $0["fine"] = 1; $0[""] = 1 }
            }
            expectFailure(.invalidKey(domain: "app", key: PrefKeyPath([nul]).display, reason: "a key cannot contain NUL"), status: .dataError) {
                try fixture.store.update(.suite("app")) { $0[nul] = 1 }
            }
            expectFailure(.invalidKey(domain: "app", key: PrefKeyPath(["d", "x", nul]).display, reason: "a key cannot contain NUL"), status: .dataError) {
                try fixture.store.update(.suite("app")) { $0["d"] = ["x": .dictionary([nul: 1])] }
            }
            for value: PrefValue in [[ExternalReference.marker: 1], ["inside": [[ExternalReference.marker: 1]]]] {
                expectFailure(status: .dataError, { try fixture.store.update(.suite("app")) { $0["r"] = value } }) {
                    if case .reservedKey("app", _, ExternalReference.marker) = $0 { true } else { false }
                }
            }
            // As the command gives them: refused while parsing (64), before the store is asked.
            expectFailure(.badName(domain: "app", name: "", reason: "the key is empty"), status: .usage) { try fixture.write(.suite("app"), "", "v") }
            #expect(try fixture.footprint() == before)
        }
    }

    /// The external-reference marker key (at any depth) is refused (65) wherever a change could put
    /// it, not only in a suite whose large values go to external storage: a file domain (in the
    /// config home, as `.plist` or `.json`, or elsewhere), registered defaults, a ByHost suite
    /// (where the store keeps them), an import, a dry run; nothing is written. A value holding it
    /// that another program stored stays while changes leave it alone, and a schema (which
    /// describes values, holding none) may name it.
    @Test(arguments: Backend.allCases)
    func theMarkerKeyIsRefusedInEveryPlace(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        let store = fixture.store
        let forged: PrefValue = ["nested": [[ExternalReference.marker: 1]]]
        try fixture.put("elsewhere/f.plist", try BackendContractTests.plist(["k": 1]))
        try fixture.put("doc.plist", try BackendContractTests.plist(["r": forged]))
        try fixture.write(.suite("app"), "k", "v")
        let before = try fixture.footprint()
        func refused(_ comment: Comment, key: String = "r", _ body: () throws -> Void) {
            expectFailure(status: .dataError, comment: comment, body) {
                if case .reservedKey(_, key, ExternalReference.marker) = $0 { true } else { false }
            }
        }
        let domains: [Domain] = [.suite("app"), .global, .file(fixture.root + "/elsewhere/f.plist"), .file(fixture.root + "/elsewhere/new.plist"),
                                 .file(fixture.root + "/config/app.plist"), .file(fixture.root + "/config/other.json")]
        for domain in domains {
            let name = domain.displayName
            refused("update \(name)") { try store.update(domain) { $0["r"] = forged } }
            refused("dry run \(name)") { _ = try store.preview(try store.target(for: domain)) { $0["r"] = forged } }
            for dryRun in [false, true] {
                refused("import \(name), dry run \(dryRun)") {
                    _ = try store.importDocument(from: fixture.root + "/doc.plist", format: nil, into: domain, mode: .merge, dryRun: dryRun)
                }
            }
        }
        for dryRun in [false, true] {
            refused("register, dry run \(dryRun)") { _ = try store.register(.document(["r": forged]), for: .suite("app"), replacing: false, dryRun: dryRun) }
        }
        if fixture.keepsByHostSuites {
            let host = try store.onHost("H1")
            for domain in [Domain.suite("app"), .global] {
                refused("ByHost \(domain.displayName)") { try host.update(domain) { $0["r"] = forged } }
                refused("ByHost \(domain.displayName), dry run") { _ = try host.preview(try host.target(for: domain)) { $0["r"] = forged } }
            }
        }
        #expect(try fixture.footprint() == before)

        // Another program's file: changes of its other keys leave the value as it is.
        let file = Domain.file(fixture.root + "/elsewhere/g.plist")
        try fixture.put("elsewhere/g.plist", try BackendContractTests.plist(["r": forged, "k": 1]))
        #expect(try store.update(file) { $0["k"] = 2 })
        #expect(try fixture.stored(file) == ["r": forged, "k": 2])
        refused("a copy under another key", key: "r2") { try store.update(file) { $0["r2"] = $0["r"] } }
        #expect(try fixture.stored(file) == ["r": forged, "k": 2])
        // A schema may describe a key of that name.
        try fixture.put("schema.json", Array(#"{"keys": {"$prefs.external": {"type": "integer"}}}"#.utf8))
        #expect(try store.installSchema(from: fixture.root + "/schema.json", for: .suite("app"), dryRun: false).changed)
    }

    /// A suite name that could name a place outside the store is refused (64) before anything is
    /// touched, whoever builds the `Domain` (the command's `Domain(argument:)` or a Swift program)
    /// and whatever the entry (a change, a read, registered defaults, a schema, a typed suite);
    /// keys are only keys, whatever they hold (`/`, `..`, `%`, `:` in a literal key).
    @Test(arguments: Backend.allCases)
    func namesCannotEscapeTheStore(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        for name in ["..", ".hidden", "", "a\u{0}b", "tab\there"] {
            expectFailure(status: .usage, comment: "\(name)", { _ = try Domain(argument: name) }) {
                if case .badName = $0 { true } else { false }
            }
        }
        #expect(try Domain(argument: "a/b") == .file("a/b"), "a name with '/' is a path, never a suite")
        try fixture.put("schema.json", Array(#"{"keys": {"k": {"type": "integer"}}}"#.utf8))
        let empty = try fixture.footprint()
        let store = fixture.store
        for name in ["../escape", "a/b", ".hidden", "..", "", "a\u{0}b", "tab\there", "/abs"] {
            let domain = Domain.suite(name)
            let entries: [(Comment, () throws -> Void)] = [
                ("update", { try store.update(domain) { $0["k"] = 1 } }),
                ("write", { try fixture.write(domain, "k", "1") }),
                ("dry run", { try fixture.write(domain, "k", "1", options: { var dry = WriteOptions(); dry.dryRun = true; return dry }()) }),
                ("read", { _ = try fixture.read(domain, "k") }),
                ("read a suite", { _ = try store.contents(of: domain, scope: ReadScope()) }),
                ("stored value", { _ = try store.value(at: PrefKeyPath(["k"]), in: domain) }),
                ("delete", { _ = try store.remove(domain) }),
                ("register", { _ = try store.register(.document(["k": 1]), for: domain, replacing: false, dryRun: false) }),
                ("schema", { _ = try store.installSchema(from: fixture.root + "/schema.json", for: domain, dryRun: false) }),
                ("schema by name", { _ = try store.schema(named: name) }),
                ("describe", { _ = try store.describeSchema(of: domain, key: nil) }),
                ("typed read", { _ = try Prefs.Suite(name, store: store)[Prefs.Key<Int>("k", default: 0)] }),
                ("typed write", { try Prefs.Suite(name, store: store).set(Prefs.Key<Int>("k", default: 0), 1) }),
            ]
            for (entry, attempt) in entries {
                expectFailure(status: .usage, comment: "\(entry) \(name.debugDescription)", attempt) {
                    if case .badName(_, name, _) = $0 { true } else { false }
                }
            }
        }
        #expect(try fixture.footprint() == empty, "nothing touched, nothing outside the store either")
        #expect(try fixture.store.suiteNames().names.isEmpty)
        let keys = ["../../escape", "a/b", "..", "100%", "a.b c", "a:b", "é"]
        try fixture.store.update(.suite("keys")) { contents in for key in keys { contents[key] = .string(key) } }
        for key in keys {
            #expect(try fixture.store.value(at: PrefKeyPath([key]), in: .suite("keys")) == .string(key))
            #expect(try fixture.read(.suite("keys"), key) == (.string(key), .stored), "a KEY not starting with ':' is literal")
        }
        #expect(try fixture.stored(.suite("keys")).keys.sorted() == keys.sorted())
        #expect(try fixture.store.suiteNames().names.contains("keys"))
    }

    /// A write of what is already there writes nothing at all (no file replaced, no etcd revision),
    /// whatever verb says it.
    @Test(arguments: Backend.allCases)
    func aNoOpWriteWritesNothing(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        try fixture.write(.suite("app"), "k", "v", "n", "-int", "1", "map", "-dict", "x", "1")
        try fixture.put("same.json", Array(#"{"k": "v", "n": 1}"#.utf8))
        let before = try fixture.footprint()
        #expect(try !fixture.write(.suite("app"), "k", "v").changed)
        #expect(try !fixture.write(.suite("app"), "k", "v", "n", "-int", "1").changed)
        #expect(try !fixture.write(.suite("app"), "map", "-dict-add", "x", "1").changed)
        #expect(try !fixture.write(.suite("app"), ":map:x", "1").changed)
        #expect(try !fixture.store.update(.suite("app")) { $0["k"] = "v" })
        #expect(try !fixture.store.update(.suite("app"), keys: ["k"]) { $0["k"] = "v" })
        #expect(try !fixture.store.reset([PrefKeyPath(["never"])], in: .suite("app"), dryRun: false).changed)
        #expect(try !fixture.store.importDocument(from: fixture.root + "/same.json", format: nil, into: .suite("app"), mode: .merge, dryRun: false).changed)
        #expect(try !fixture.store.merge(["k": "v"], into: .suite("app")).changed)
        #expect(try fixture.footprint() == before)
    }

    /// `--dry-run` reports what each verb would change and writes nothing: no suite, file, directory,
    /// lock or key, even for a suite that does not exist yet.
    @Test(arguments: Backend.allCases)
    func dryRunsReportAndChangeNothing(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        var dryRun = WriteOptions()
        dryRun.dryRun = true
        let outcome = try fixture.write(.suite("new"), "a", "1", options: dryRun)
        #expect(outcome.changed && outcome.report == [KeyChange(key: "a", old: nil, new: "1")])
        #expect(try fixture.footprint() == [:])
        try fixture.write(.suite("app"), "a", "1", "b", "2")
        try fixture.put("in.json", Array(#"{"a": "10", "c": "30"}"#.utf8))
        let before = try fixture.footprint()
        let store = fixture.store
        #expect(try fixture.write(.suite("app"), "a", "one", "c", "3", options: dryRun).report
                == [KeyChange(key: "a", old: "1", new: "one"), KeyChange(key: "c", old: nil, new: "3")])
        #expect(try store.delete(PrefKeyPath(["b"]), in: .suite("app"), dryRun: true).report == [KeyChange(key: "b", old: "2", new: nil)])
        #expect(try store.delete(nil, in: .suite("app"), dryRun: true).report?.count == 2)
        #expect(try store.rename(PrefKeyPath(["a"]), to: PrefKeyPath(["z"]), in: .suite("app"), dryRun: true).report
                == [KeyChange(key: "a", old: "1", new: nil), KeyChange(key: "z", old: nil, new: "1")])
        #expect(try store.reset([], in: .suite("app"), dryRun: true).report?.count == 2)
        #expect(try store.importDocument(from: fixture.root + "/in.json", format: nil, into: .suite("app"), mode: .replace, dryRun: true).report
                == [KeyChange(key: "a", old: "1", new: "10"), KeyChange(key: "b", old: "2", new: nil), KeyChange(key: "c", old: nil, new: "30")])
        #expect(try store.register(.document(["r": 1]), for: .suite("app"), replacing: false, dryRun: true).changed)
        #expect(try fixture.footprint() == before)
        #expect(try store.load(at: .registered("app")) == nil)
    }

    /// `-int-add`, `-float-add`, `-array-add`, `-dict-add` and key paths (`:a:b:0`) change values in
    /// place, creating what is missing; a path through a value that is not a container, or an add to
    /// the wrong type, is a type mismatch (65).
    @Test(arguments: Backend.allCases)
    func countersContainersAndKeyPaths(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        let app = Domain.suite("app")
        #expect(try fixture.write(app, "n", "-int-add", "5").sums == [5])
        #expect(try fixture.write(app, "n", "-int-add", "-2", "f", "-float-add", "0.5").sums == [3, 0.5])
        try fixture.write(app, "list", "-array-add", "a", "b")
        try fixture.write(app, "list", "-array-add", "c")
        try fixture.write(app, "map", "-dict-add", "x", "1")
        try fixture.write(app, "map", "-dict-add", "y", "-int", "2")
        try fixture.write(app, ":window:frames", "-json", #"[{"x": 1}]"#)
        try fixture.write(app, ":window:frames:1:x", "-int", "2")
        try fixture.write(app, ":window:title", "Hello")
        #expect(try fixture.stored(app) == ["f": 0.5, "list": ["a", "b", "c"], "map": ["x": "1", "y": 2], "n": 3,
                                            "window": ["frames": [["x": 1], ["x": 2]], "title": "Hello"]])
        #expect(try fixture.read(app, ":window:frames:1:x").value == 2)
        #expect(try fixture.store.value(at: PrefKeyPath(argument: ":window:frames:9"), in: app) == nil)
        #expect(try fixture.store.delete(PrefKeyPath(argument: ":window:frames:0"), in: app, dryRun: false).changed)
        #expect(try fixture.read(app, ":window:frames").value == [["x": 2]])
        let before = try fixture.footprint()
        expectFailure(.typeMismatch(domain: "app", key: ":window:frames:x", reason: "\"x\" is not an index into an array of 1"), status: .dataError) {
            _ = try fixture.read(app, ":window:frames:x")
        }
        expectFailure(.typeMismatch(domain: "app", key: "list", reason: "-dict-add needs a dictionary, and the value is an array"), status: .dataError) {
            try fixture.write(app, "list", "-dict-add", "z", "1")
        }
        expectFailure(status: .dataError, { try fixture.write(app, ":window:title:x", "1") }) {
            if case .typeMismatch("app", ":window:title:x", _) = $0 { true } else { false }
        }
        expectFailure(status: .dataError, { try fixture.write(app, "map", "-int-add", "1") }) {
            if case .typeMismatch("app", "map", _) = $0 { true } else { false }
        }
        #expect(try fixture.footprint() == before)
    }

    /// A change of several keys that fails on one changes none: a multi-key write, a multi-key
    /// delete, an import with one bad key or a malformed document, and a change larger than one etcd
    /// transaction.
    @Test(arguments: Backend.allCases)
    func aChangeThatFailsOnOneKeyChangesNone(backend: Backend) throws {
        try scenario(backend.knownIssue()) {
            let fixture = try ContractStore(backend)
            let app = Domain.suite("app")
            try fixture.write(app, "s", "text", "n", "-int", "1")
            try fixture.put("bad.plist", try BackendContractTests.plist(["a": 1, "b": [ExternalReference.marker: 1]]))
            try fixture.put("bad.json", Array(#"{"a": 1, "b": "#.utf8))
            let before = try fixture.footprint()
            expectFailure(status: .dataError, { try fixture.write(app, "a", "1", "n", "-int-add", "1", "s", "-int-add", "1") }) {
                if case .typeMismatch("app", "s", _) = $0 { true } else { false }
            }
            expectFailure(.keyNotFound(domain: "app", key: "missing"), status: .notFound) {
                _ = try fixture.store.delete([PrefKeyPath(["s"]), PrefKeyPath(["missing"])], in: app, dryRun: false)
            }
            for mode in [SuiteStore.ImportMode.merge, .replace] {
                expectFailure(status: .dataError, {
                    _ = try fixture.store.importDocument(from: fixture.root + "/bad.plist", format: nil, into: app, mode: mode, dryRun: false)
                }) { if case .reservedKey = $0 { true } else { false } }
                expectFailure(status: .dataError, {
                    _ = try fixture.store.importDocument(from: fixture.root + "/bad.json", format: nil, into: app, mode: mode, dryRun: false)
                }) { if case .malformed = $0 { true } else { false } }
            }
            var many = PrefDictionary()
            for i in 0..<200 { many["k\(i)"] = .integer(Int64(i)) }
            expectFailure(.invalidKey(domain: "app", key: "", reason: "an empty key cannot be stored"), status: .dataError) {
                try fixture.store.update(app) { contents in
                    contents = many
                    contents[""] = 1
                }
            }
            #expect(try fixture.footprint() == before)
            #expect(try fixture.store.update(app) { $0 = many }, "the same change without the bad key")
            #expect(try fixture.stored(app) == many)
        }
    }
}
