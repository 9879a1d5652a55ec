import Testing
@testable import PrefsCore

/// One table of scenarios, run on every backend (`Backend`) through the `SuiteStore` façade the verbs
/// call: values, absence, deletes and renames, domains (this file); layers (`+Layers`); the write rules,
/// counters, key paths, dry runs and all-or-nothing changes (`+Writes`); conditional writes and errors
/// with their exit statuses (`+Errors`); external values (`+External`); watch (`+Watch`). Where a
/// backend differs by design the scenario checks the documented difference (`ContractStore.newSuiteFormat`,
/// `keepsByHostSuites`, `canBeWatched`); where it differs by a bug, the scenario marks it as a known
/// issue (`scenario`, with a row in `BackendContract.swift`), never skips it.
@Suite struct BackendContractTests {
    static let date = PrefDate(secondsSinceReferenceDate: 788_918_645.25)

    /// Every plist type, at its edges, written and read back: the whole suite, and one key at a time.
    static let values: PrefDictionary = [
        "string": "héllo ✓ \"quoted\" <tag> & more", "empty": "", "int": .integer(-3), "min": .integer(.min),
        "max": .unsignedInteger(.max), "real": .real(1.5e300), "negativeZero": .real(-0.0), "true": true, "false": false,
        "data": .data([0, 1, 0xFE, 0xFF]), "emptyData": .data([]), "array": [1, "two", [3.5], ["four": false]],
        "emptyArray": .array([]), "dict": ["nested": ["deep": ["deeper": 1]], "list": .array([.dictionary([:])])], "emptyDict": .dictionary([:]),
    ]

    @Test(arguments: Backend.allCases)
    func everyValueTypeIsReadBackAsWritten(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        #expect(try fixture.store.update(.suite("app")) { $0 = BackendContractTests.values })
        #expect(try fixture.stored(.suite("app")) == BackendContractTests.values)
        for entry in BackendContractTests.values {
            #expect(try fixture.store.value(at: PrefKeyPath([entry.key]), in: .suite("app")) == entry.value, "\(entry.key)")
            #expect(try fixture.store.value(at: PrefKeyPath([entry.key]), in: .suite("app"), scope: ReadScope()) == (entry.value, .stored))
        }
        // Typed as the command types them.
        try fixture.write(.suite("app"), "s", "-string", "-int", "n", "-int", "-9223372036854775808", "u", "-int", "18446744073709551615",
                          "f", "-float", "0.1", "b", "-bool", "YES", "d", "-data", "0a0b", "j", "-json", #"{"k": [1, "x"]}"#, "a", "-array", "x", "-int", "2")
        let typed: PrefDictionary = ["s": "-int", "n": .integer(.min), "u": .unsignedInteger(.max), "f": 0.1, "b": true, "d": .data([10, 11]),
                                     "a": ["x", 2]]
        for entry in typed { #expect(try fixture.read(.suite("app"), entry.key).value == entry.value, "\(entry.key)") }
        #expect(try fixture.read(.suite("app"), ":j:k:0").value == 1)
    }

    /// A date keeps its fraction of a second where the suite's format can (etcd's binary plists, a
    /// new file suite whose first change holds one, written binary); an XML suite keeps whole
    /// seconds, and refuses a fraction (65, nothing changed) rather than drop it. A UID is kept
    /// everywhere, and a dictionary shaped like XML's UID where the format can tell them apart
    /// (else it is refused whole, 65).
    @Test(arguments: Backend.allCases)
    func datesAndUIDsAreKeptAsTheFormatCan(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        try fixture.store.update(.suite("fresh")) { $0["when"] = .date(BackendContractTests.date) }
        #expect(try fixture.read(.suite("fresh"), "when").value == .date(BackendContractTests.date))
        if !fixture.keepsSubsecondDates {
            try fixture.store.update(.suite("app")) { $0["name"] = "x" }
            let before = try fixture.footprint()
            expectFailure(status: .dataError, { try fixture.store.update(.suite("app")) { $0["when"] = .date(BackendContractTests.date) } }) {
                if case .invalidValue("app", "when", nil, _, _) = $0 { true } else { false }
            }
            #expect(try fixture.footprint() == before)
        }
        let date = fixture.keepsSubsecondDates ? BackendContractTests.date : BackendContractTests.date.truncatedToSecond
        try fixture.store.update(.suite("app")) { $0["when"] = .date(date); $0["uid"] = .uid(7) }
        #expect(try fixture.read(.suite("app"), "when").value == .date(date))
        #expect(try fixture.read(.suite("app"), "uid").value == .uid(7))
        let before = try fixture.footprint()
        let shaped: PrefValue = ["CF$UID": 7]
        if fixture.storesUIDShapedDictionaries {
            #expect(try fixture.store.update(.suite("app")) { $0["shaped"] = shaped })
            #expect(try fixture.read(.suite("app"), "shaped").value == shaped)
        } else {
            expectFailure(status: .dataError, { try fixture.store.update(.suite("app")) { $0["shaped"] = shaped } }) {
                if case .unrepresentable(.xml, _, _) = $0 { true } else { false }
            }
            #expect(try fixture.footprint() == before)
        }
    }

    /// A missing suite or key is "not found" (1) for every verb that reads or removes one, and
    /// looking creates nothing: no file, directory, lock or key.
    @Test(arguments: Backend.allCases)
    func absenceIsNotFoundAndLookingCreatesNothing(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        let empty = try fixture.footprint()
        #expect(try fixture.store.load(.suite("app")) == nil)
        #expect(try fixture.store.suiteNames().names == [])
        #expect(try fixture.store.domainNames().names == [])
        expectFailure(.suiteNotFound(domain: "app"), status: .notFound) { _ = try fixture.store.value(at: PrefKeyPath(["k"]), in: .suite("app")) }
        expectFailure(.suiteNotFound(domain: "app"), status: .notFound) { _ = try fixture.read(.suite("app"), "k") }
        expectFailure(.suiteNotFound(domain: "app"), status: .notFound) { _ = try fixture.store.delete(nil, in: .suite("app"), dryRun: false) }
        expectFailure(.suiteNotFound(domain: "app"), status: .notFound) { _ = try fixture.store.typeName(at: PrefKeyPath(["k"]), in: .suite("app"), scope: ReadScope()) }
        #expect(try fixture.store.remove(.suite("app")) == false)
        #expect(try fixture.store.update(.suite("app")) { _ in } == false, "a change that changes nothing creates no suite")
        #expect(try fixture.footprint() == empty)

        try fixture.write(.suite("app"), "other", "1")
        expectFailure(.keyNotFound(domain: "app", key: "k"), status: .notFound) { _ = try fixture.read(.suite("app"), "k") }
        #expect(try fixture.store.value(at: PrefKeyPath(["k"]), in: .suite("app")) == nil)
        expectFailure(.keyNotFound(domain: "app", key: "k"), status: .notFound) { _ = try fixture.store.delete(PrefKeyPath(["k"]), in: .suite("app"), dryRun: false) }
        expectFailure(.keyNotFound(domain: "app", key: "k"), status: .notFound) {
            _ = try fixture.store.rename(PrefKeyPath(["k"]), to: PrefKeyPath(["z"]), in: .suite("app"), dryRun: false)
        }
        expectFailure(.keyNotFound(domain: "app", key: ":k:x"), status: .notFound) { _ = try fixture.read(.suite("app"), ":k:x") }
    }

    @Test(arguments: Backend.allCases)
    func deleteAndRenameChangeOnceAndALastKeyLeavesAnEmptySuite(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        try fixture.write(.suite("other"), "k", "v")
        let otherOnly = try fixture.storedFilesOutsideHistory()
        try fixture.write(.suite("app"), "a", "1", "b", "-int", "2", "c", "-array", "x", "y")
        #expect(try fixture.store.rename(PrefKeyPath(["a"]), to: PrefKeyPath(["z"]), in: .suite("app"), dryRun: false).changed)
        expectFailure(.keyNotFound(domain: "app", key: "a"), status: .notFound) {
            _ = try fixture.store.rename(PrefKeyPath(["a"]), to: PrefKeyPath(["y"]), in: .suite("app"), dryRun: false)
        }
        #expect(try fixture.store.rename(PrefKeyPath(["z"]), to: PrefKeyPath(["c", "0"]), in: .suite("app"), dryRun: false).changed, "into a key path")
        #expect(try fixture.store.delete(PrefKeyPath(["c", "1"]), in: .suite("app"), dryRun: false).changed)
        #expect(try fixture.stored(.suite("app")) == ["b": 2, "c": ["1"]])
        #expect(try fixture.store.delete([PrefKeyPath(["b"]), PrefKeyPath(["c"])], in: .suite("app"), dryRun: false).changed)
        #expect(try fixture.store.load(.suite("app"))?.contents == [:], "deleting every key leaves the suite, empty")
        #expect(try fixture.store.suiteNames().names == ["app", "other"])
        try fixture.write(.suite("app"), "k", "v")
        #expect(try fixture.store.delete(nil, in: .suite("app"), dryRun: false).changed)
        #expect(try fixture.store.load(.suite("app")) == nil)
        #expect(try fixture.store.suiteNames().names == ["other"])
        #expect(try fixture.storedFilesOutsideHistory() == otherOnly, "nothing of the suite is left but its history, and nothing else went")
        if try Self.keepsHistoryOrRefuses(fixture, .suite("app")) { #expect(try fixture.store.versions(of: .suite("app")).count == 7) }
        #expect(try fixture.store.remove(.suite("app")) == false)
    }

    /// `domains` lists the named suites in code-point order, names with `%`, spaces and non-ASCII
    /// kept, and the global suite as `NSGlobalDomain` while it holds values; registered defaults make
    /// no suite; a removed suite goes from the list.
    @Test(arguments: Backend.allCases)
    func domainsListsTheSuitesInCodePointOrder(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        for name in ["b", "a%b", "A b", "é", "a.b.c", "Z"] { try fixture.write(.suite(name), "k", "v") }
        _ = try fixture.store.register(.document(["r": 1]), for: .suite("registered.only"), replacing: false, dryRun: false)
        #expect(try fixture.store.suiteNames().names == ["A b", "Z", "a%b", "a.b.c", "b", "é"])
        #expect(try fixture.store.domainNames().names == ["A b", "Z", "a%b", "a.b.c", "b", "é"])
        try fixture.write(.global, "g", "1")
        #expect(try fixture.store.domainNames().names == ["A b", "NSGlobalDomain", "Z", "a%b", "a.b.c", "b", "é"])
        #expect(try fixture.store.remove(.suite("a%b")))
        #expect(try fixture.store.remove(.global))
        #expect(try fixture.store.domainNames().names == ["A b", "Z", "a.b.c", "b", "é"])
        #expect(try fixture.store.domainNames().skipped == [])
        let every = try fixture.store.everySuite()
        #expect(every.suites.map(\.domain) == ["A b", "Z", "a.b.c", "b", "é"].map { Domain.suite($0) })
        #expect(every.failures == [])
    }
}
