import Testing
@testable import PrefsCore

/// The verbs' semantics, in PrefsCore, on the in-memory file system: write requests (types,
/// containers, counters, conditions), dry runs, delete/rename/reset, import modes, registration,
/// export selection and find.
@Suite struct OperationsTests {
    let store = SuiteStore(fileSystem: InMemoryFileSystem(), environment: Environment([
        "XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "PREFS_LOCK_TIMEOUT": "0.2"]))

    func write(_ words: String..., options: WriteOptions = WriteOptions()) throws -> ChangeOutcome {
        try store.write(try WriteRequest.parse(words[...], domain: "s"), to: .suite("s"), options: options)
    }

    func stored() throws -> PrefDictionary { try store.load(.suite("s"))?.contents ?? PrefDictionary() }

    @Test(arguments: [
        (["k", "v"], PrefValue.string("v")), (["k", "-int", "-3"], .integer(-3)), (["k", "-float", "1.5"], .real(1.5)),
        (["k", "-bool", "YES"], .bool(true)), (["k", "-data", "0a0b"], .data([10, 11])), (["k", "-json", "[1,\"a\"]"], [1, "a"]),
        (["k", "(a, b)"], ["a", "b"]), (["k", "-array", "x", "-int", "2"], ["x", 2]), (["k", "-dict", "a", "-bool", "no"], ["a": false]),
        (["k", "-string", "-int"], "-int"),
    ] as [([String], PrefValue)])
    func writeTypesValuesAsDefaultsDoes(words: [String], value: PrefValue) throws {
        _ = try store.write(try WriteRequest.parse(words[...], domain: "s"), to: .suite("s"), options: WriteOptions())
        #expect(try stored()["k"] == value)
    }

    @Test func badWordsAreRefusedNamingTheDomainAndKey() throws {
        #expect(throws: PrefsError.invalidValue(domain: "s", key: "k", flag: "-int", given: "abc",
                                                reason: "not a decimal integer from -9223372036854775808 to 18446744073709551615")) {
            try WriteRequest.parse(["k", "-int", "abc"], domain: "s")
        }
        #expect(throws: PrefsError.badName(domain: "s", name: "", reason: "the key is empty")) { try WriteRequest.parse(["", "v"], domain: "s") }
        #expect(throws: PrefsError.usage("s: unknown type flag -itn (to store text that starts with '-', write -string -itn)")) {
            try WriteRequest.parse(["k", "-itn", "3"], domain: "s")
        }
        guard case .invalidDocument(let domain?, let key?, "-json", .malformed) = #expect(throws: PrefsError.self, performing: {
            try WriteRequest.parse(["k", "-json", "{"], domain: "s")
        }) else { Issue.record("not an invalid document"); return }
        #expect(domain == "s" && key == "k")
    }

    @Test func containersGrowCountersAddAndConditionsHold() throws {
        _ = try write("list", "-array-add", "a", "b")
        _ = try write("list", "-array-add", "c")
        _ = try write("map", "-dict-add", "x", "1")
        _ = try write("map", "-dict-add", "y", "2")
        #expect(try write("n", "-int-add", "5").sums == [5])
        #expect(try write("n", "-int-add", "-2").sums == [3])
        #expect(try stored() == ["list": ["a", "b", "c"], "map": ["x": "1", "y": "2"], "n": 3])
        #expect(throws: PrefsError.typeMismatch(domain: "s", key: "list", reason: "-dict-add needs a dictionary, and the value is an array")) {
            try write("list", "-dict-add", "z", "1")
        }
        var ifEquals = WriteOptions()
        ifEquals.ifEquals = "4"
        #expect(throws: PrefsError.conditionFailed(domain: "s", key: "n", found: 3, expected: 4)) { try write("n", "-int", "9", options: ifEquals) }
        ifEquals.ifEquals = "3"
        #expect(try write("n", "-int", "9", options: ifEquals).changed)
        var ifAbsent = WriteOptions()
        ifAbsent.conditions.ifAbsent = true
        #expect(try write("n", "-int", "1", "new", "v", options: ifAbsent).changed)
        #expect(try stored()["n"] == 9 && stored()["new"] == "v")
    }

    @Test func aDryRunReportsAndChangesNothing() throws {
        _ = try write("a", "1", "b", "2")
        let before = try stored()
        var dryRun = WriteOptions()
        dryRun.dryRun = true
        let outcome = try write("a", "one", "c", "3", options: dryRun)
        #expect(outcome.changed && outcome.report == [KeyChange(key: "a", old: "1", new: "one"), KeyChange(key: "c", old: nil, new: "3")])
        #expect(try stored() == before)
        #expect(try store.delete(PrefKeyPath(["b"]), in: .suite("s"), dryRun: true).report == [KeyChange(key: "b", old: "2", new: nil)])
        #expect(try store.delete(nil, in: .suite("s"), dryRun: true).report?.count == 2)
        #expect(try stored() == before)
    }

    @Test func deleteRenameAndResetEachChangeOnce() throws {
        _ = try write("a", "1", "b", "2", "c", "3")
        #expect(try store.rename(PrefKeyPath(["a"]), to: PrefKeyPath(["z"]), in: .suite("s"), dryRun: false).changed)
        #expect(throws: PrefsError.keyNotFound(domain: "s", key: "a")) { try store.rename(PrefKeyPath(["a"]), to: PrefKeyPath(["y"]), in: .suite("s"), dryRun: false) }
        #expect(try store.delete(PrefKeyPath(["b"]), in: .suite("s"), dryRun: false).changed)
        #expect(throws: PrefsError.keyNotFound(domain: "s", key: "b")) { try store.delete(PrefKeyPath(["b"]), in: .suite("s"), dryRun: false) }
        #expect(try store.reset([PrefKeyPath(["c"]), PrefKeyPath(["never"])], in: .suite("s"), dryRun: false).changed)
        #expect(try stored() == ["z": "1"])
        #expect(try store.reset([], in: .suite("s"), dryRun: false).changed)
        #expect(try store.load(.suite("s")) == nil, "a suite reset to nothing is removed")
        #expect(throws: PrefsError.suiteNotFound(domain: "s")) { try store.delete(nil, in: .suite("s"), dryRun: false) }
    }

    /// JSON null deletes a key when merging; `--if-absent` keeps what is stored (and deletes nothing);
    /// `--replace` makes the suite the document (a null member is no value).
    @Test(arguments: [SuiteStore.ImportMode.merge, .ifAbsent, .replace])
    func importMergesKeepsOrReplaces(mode: SuiteStore.ImportMode) throws {
        let fileSystem = try #require(store.fileSystem as? InMemoryFileSystem)
        try fileSystem.write("/in.json", Array(#"{"a": 10, "c": 30, "b": null}"#.utf8))
        _ = try write("a", "-int", "1", "b", "-int", "2")
        _ = try store.importDocument(from: "/in.json", format: nil, into: .suite("s"), mode: mode, dryRun: false)
        let expected: PrefDictionary = switch mode {
        case .merge, .replace: ["a": 10, "c": 30]
        case .ifAbsent: ["a": 1, "b": 2, "c": 30]
        }
        #expect(try stored() == expected)
    }

    @Test func registrationChangesOnlyTheRegisteredDefaults() throws {
        _ = try store.register(.request(try WriteRequest.parse(["k", "-int", "1"], domain: "s (registered)")), for: .suite("s"), replacing: false, dryRun: false)
        _ = try store.register(.document(["j": "x"]), for: .suite("s"), replacing: false, dryRun: false)
        #expect(try store.load(.suite("s")) == nil)
        #expect(try store.value(at: PrefKeyPath(["k"]), in: .suite("s"), scope: ReadScope()).origin == .registered("/d/prefs/defaults/s.plist"))
        _ = try store.register(.deletion([PrefKeyPath(["k"]), PrefKeyPath(["j"])]), for: .suite("s"), replacing: false, dryRun: false)
        #expect(try store.load(at: .registered("s")) == nil, "an empty registration is removed")
    }

    @Test func exportSelectsKeysAndFindSearchesEverySuite() throws {
        _ = try write("Window", "{ Frame = big; Title = Hello; }", "other", "hello world")
        #expect(try store.exportedValue(of: .suite("s"), effective: false, defaults: [], keys: [PrefKeyPath(["Window", "Title"])])
                == ["Window": ["Title": "Hello"]])
        #expect(throws: PrefsError.keyNotFound(domain: "s", key: ":Window:Nope")) {
            try store.exportedValue(of: .suite("s"), effective: false, defaults: [], keys: [PrefKeyPath(["Window", "Nope"])])
        }
        let matches = SuiteStore.find("HELLO", in: try store.everySuite().suites)
        #expect(matches.map { $0.key?.display } == [":Window:Title", "other"])
    }
}
