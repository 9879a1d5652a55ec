import Testing
@testable import PrefsCore

/// Layers: what an application sees, and which layer `--origin` names.
extension BackendContractTests {
    static func plist(_ contents: PrefDictionary) throws -> [UInt8] { try PropertyList.encode(.dictionary(contents), as: .xml) }

    /// Stored over global over system defaults over `--defaults FILE` over the user's registered
    /// defaults over the packages'; `reset` shows the next layer again; `--stored` sees only the suite.
    @Test(arguments: Backend.allCases)
    func layersAnswerTopFirstAndResetShowsTheRegisteredDefault(backend: Backend) throws {
        try scenario(backend.knownIssue()) {
            let fixture = try ContractStore(backend)
            let store = fixture.store
            try fixture.put("pkg/prefs/defaults/app.plist", try BackendContractTests.plist(["k": "package", "p": "package"]))
            try fixture.put("flags.plist", try BackendContractTests.plist(["k": "command line", "c": "command line"]))
            _ = try store.register(.request(try WriteRequest.parse(["k", "registered", "r", "-int", "1"], domain: "app (registered)")),
                                   for: .suite("app"), replacing: false, dryRun: false)
            let registered = Origin.registered(store.describe(.registered("app")))
            let package = Origin.registered(fixture.root + "/pkg/prefs/defaults/app.plist")
            // Registered defaults alone make the suite exist (nothing is stored).
            #expect(try fixture.read(.suite("app"), "k") == ("registered", registered))
            #expect(try fixture.read(.suite("app"), "p") == ("package", package))
            #expect(try store.load(.suite("app")) == nil)
            let flags = ReadScope(defaults: [fixture.root + "/flags.plist"])
            #expect(try fixture.read(.suite("app"), "k", scope: flags) == ("command line", .commandLine(fixture.root + "/flags.plist")))
            try fixture.write(.global, "k", "global", "g", "-bool", "yes")
            #expect(try fixture.read(.suite("app"), "k") == ("global", .global))
            try fixture.write(.suite("app"), "k", "stored")
            #expect(try fixture.read(.suite("app"), "k", scope: flags) == ("stored", .stored))
            let resolved = try store.contents(of: .suite("app"), scope: ReadScope())
            #expect(resolved.values == ["g": true, "k": "stored", "p": "package", "r": 1])
            #expect(resolved.origins == [.global, .stored, package, registered])
            #expect(try store.contents(of: .suite("app"), scope: ReadScope(storedOnly: true)).values == ["k": "stored"])
            expectFailure(.keyNotFound(domain: "app", key: "r"), status: .notFound) { _ = try fixture.read(.suite("app"), "r", scope: ReadScope(storedOnly: true)) }

            #expect(try store.reset([PrefKeyPath(["k"])], in: .suite("app"), dryRun: false).changed)
            #expect(try fixture.read(.suite("app"), "k") == ("global", .global))
            #expect(try store.reset([], in: .global, dryRun: false).changed)
            #expect(try fixture.read(.suite("app"), "k") == ("registered", registered), "reset shows the registered default again")
            _ = try store.register(.deletion([PrefKeyPath(["k"])]), for: .suite("app"), replacing: false, dryRun: false)
            #expect(try fixture.read(.suite("app"), "k") == ("package", package))
            // The global suite answers for a suite that does not exist, as UserDefaults(suiteName:) does.
            try fixture.write(.global, "only", "global")
            #expect(try fixture.read(.suite("nosuch"), "only") == ("global", .global))
            expectFailure(.suiteNotFound(domain: "nosuch"), status: .notFound) { _ = try fixture.read(.suite("nosuch"), "k") }
        }
    }

    /// `reset` with no key drops every stored value: the suite goes, nothing of it is left in the
    /// store but its history, and the registered defaults show; resetting again changes nothing.
    @Test(arguments: Backend.allCases)
    func aSuiteResetToNothingLeavesNothingStored(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        _ = try fixture.store.register(.document(["k": "registered"]), for: .suite("app"), replacing: false, dryRun: false)
        let registrationOnly = try fixture.storedFilesOutsideHistory()
        try fixture.write(.suite("app"), "k", "stored", "n", "-int", "1")
        #expect(try fixture.store.reset([], in: .suite("app"), dryRun: false).changed)
        #expect(try fixture.store.load(.suite("app")) == nil)
        #expect(try fixture.storedFilesOutsideHistory() == registrationOnly)
        if try BackendContractTests.keepsHistoryOrRefuses(fixture, .suite("app")) {
            #expect(try fixture.store.versions(of: .suite("app")).map(\.verb) == ["swift", "swift"], "the write and the reset")
        }
        #expect(try fixture.read(.suite("app"), "k").value == "registered")
        #expect(try fixture.store.reset([], in: .suite("app"), dryRun: false).changed == false)
        _ = try fixture.store.register(.deletion([PrefKeyPath(["k"])]), for: .suite("app"), replacing: false, dryRun: false)
        #expect(try fixture.storedFilesOutsideHistory() == [], "an empty registration is removed")
        expectFailure(.suiteNotFound(domain: "app"), status: .notFound) { _ = try fixture.read(.suite("app"), "k") }
    }

    /// An administrator's managed values are the top layer and no change touches one (77, nothing
    /// written), system defaults show under the global suite, over registered defaults. This
    /// machine's files bind every store (a user of a fleet's store is still a user of the machine);
    /// a store that keeps managed values of its own (etcd: the fleet's) adds them under the
    /// machine's. The global suite's managed values bind every suite, under the suite's own.
    @Test(arguments: Backend.allCases)
    func administratorsLayersBindEveryStore(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        let managed = fixture.root + "/xdg/prefs/managed/app.plist", system = fixture.root + "/xdg/prefs/defaults/app.plist"
        let globalManaged = fixture.root + "/xdg/prefs/managed/.GlobalPreferences.plist"
        // What the user stored before the administrators came.
        try fixture.write(.suite("app"), "other", "stored", "m", "mine", "gm", "mine")
        try fixture.put("xdg/prefs/managed/app.plist", try BackendContractTests.plist(["m": "managed", "both": "machine"]))
        try fixture.put("xdg/prefs/managed/.GlobalPreferences.plist", try BackendContractTests.plist(["gm": "global managed", "m": "global"]))
        try fixture.put("xdg/prefs/defaults/app.plist", try BackendContractTests.plist(["s": "system", "g": "system"]))
        // The administrator's store is bound by no managed values, the machine's either.
        let fleet = try fixture.administrator()
        if let fleet {
            try fleet.update(.suite("app")) { $0["f"] = "fleet"; $0["both"] = "fleet" }
            try fleet.update(.global) { $0["gf"] = "fleet global"; $0["f"] = "fleet global" }
        }
        _ = try fixture.store.register(.document(["s": "registered", "r": "registered"]), for: .suite("app"), replacing: false, dryRun: false)
        try fixture.write(.global, "g", "global")
        let before = try fixture.footprint()
        let app = Domain.suite("app")
        #expect(try fixture.read(app, "m") == ("managed", .managed(managed)), "the suite's over the global suite's")
        #expect(try fixture.read(app, "both") == ("machine", .managed(managed)), "the machine's over the fleet's")
        #expect(try fixture.read(app, "gm") == ("global managed", .managed(globalManaged)), "the global suite's over what the user stored")
        #expect(try fixture.read(app, "s") == ("system", .system(system)))
        #expect(try fixture.read(app, "g") == ("global", .global))
        #expect(try fixture.read(app, "r").origin == .registered(fixture.store.describe(.registered("app"))))
        #expect(try fixture.read(app, "m", scope: ReadScope(storedOnly: true)).value == "mine", "--stored shows what the user stored")
        var expected: PrefDictionary = ["both": "machine", "g": "global", "gm": "global managed", "m": "managed", "other": "stored", "r": "registered", "s": "system"]
        if let fleet {
            let source = fleet.describe(.suite("app")), globalSource = fleet.describe(.global)
            #expect(source == fixture.store.describe(.managed("app")) && source.hasSuffix("/.managed/app"))
            #expect(try fixture.read(app, "f") == ("fleet", .managed(source)), "the suite's over the global suite's")
            #expect(try fixture.read(app, "gf") == ("fleet global", .managed(globalSource)))
            #expect(try fixture.read(.global, "gf") == ("fleet global", .managed(globalSource)))
            expectFailure(.managedKey(domain: "app", key: "f", source: source), status: .noPermission) { try fixture.write(app, "f", "mine") }
            expectFailure(.managedKey(domain: "other", key: "gf", source: globalSource), status: .noPermission) { try fixture.write(.suite("other"), "gf", "x") }
            expected["f"] = "fleet"
            expected["gf"] = "fleet global"
        }
        #expect(try fixture.store.contents(of: app, scope: ReadScope()).values == expected)
        // A global suite's managed key answers in any suite, but does not make one exist.
        #expect(try fixture.read(.suite("nosuch"), "gm") == ("global managed", .managed(globalManaged)))
        expectFailure(.suiteNotFound(domain: "nosuch"), status: .notFound) { _ = try fixture.read(.suite("nosuch"), "k") }
        // Every change of a managed key is refused, naming the file that manages it; nothing is written.
        expectFailure(.managedKey(domain: "app", key: "m", source: managed), status: .noPermission) { try fixture.write(app, "m", "x", "other", "1") }
        expectFailure(.managedKey(domain: "app", key: "m", source: managed), status: .noPermission) {
            _ = try fixture.store.rename(PrefKeyPath(["other"]), to: PrefKeyPath(["m"]), in: app, dryRun: false)
        }
        expectFailure(.managedKey(domain: "app", key: "gm", source: globalManaged), status: .noPermission) { try fixture.write(app, "gm", "x") }
        expectFailure(.managedKey(domain: "other", key: "gm", source: globalManaged), status: .noPermission) { try fixture.write(.suite("other"), "gm", "x") }
        expectFailure(.managedKey(domain: "NSGlobalDomain", key: "gm", source: globalManaged), status: .noPermission) { try fixture.write(.global, "gm", "x") }
        var dryRun = WriteOptions()
        dryRun.dryRun = true
        expectFailure(.managedKey(domain: "app", key: "gm", source: globalManaged), status: .noPermission) { try fixture.write(app, "gm", "x", options: dryRun) }
        expectFailure(status: .noPermission, { _ = try fixture.store.reset([], in: app, dryRun: false) }) { if case .managedKey = $0 { true } else { false } }
        #expect(try fixture.footprint() == before)
        #expect(try fixture.write(app, "other", "changed").changed, "the suite's other keys stay writable")
    }

    /// `-currentHost`/`-host`: the file store keeps the host's values in its ByHost suite, read over
    /// the suite itself; the etcd store keeps none and refuses a host (64) before touching anything.
    @Test(arguments: Backend.allCases)
    func byHostSuitesAreKeptOrRefusedAsTheBackendSays(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        try fixture.write(.suite("app"), "k", "everywhere")
        let before = try fixture.footprint()
        guard fixture.keepsByHostSuites else {
            expectFailure(.usage(SuiteStore.noByHostSuites), status: .usage) { _ = try fixture.store.onHost("H1") }
            #expect(try fixture.store.readingHost() == nil)
            #expect(try fixture.footprint() == before)
            return
        }
        let host = try fixture.store.onHost("H1")
        #expect(try host.write(try WriteRequest.parse(["k", "here"], domain: "app"), to: .suite("app"), options: WriteOptions()).changed)
        #expect(try host.value(at: PrefKeyPath(["k"]), in: .suite("app"), scope: ReadScope()) == ("here", .byHost))
        #expect(try fixture.read(.suite("app"), "k") == ("everywhere", .stored), "another host sees the suite")
        #expect(try host.suiteNames().names == ["app"])
        #expect(try fixture.store.suiteNames().names == ["app"])
    }
}
