import Testing
@testable import PrefsCore

/// The verbs' semantics, in PrefsCore, on the in-memory file system, where the backend contract
/// (`BackendContractTests`) does not state them: write requests' types and bad words, import modes,
/// registration, export selection and find. (Containers, counters, conditions, dry runs and
/// delete/rename/reset are the contract's, on every backend.)
@Suite struct VerbSemanticsTests {
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
