import Glibc
import Testing
@testable import PrefsCore

/// External values: a value over `PREFS_EXTERNAL_THRESHOLD` (1K here) is kept outside its suite, which
/// holds a reference; it reads back whole and checked, and `check` and `gc` see the blobs.
extension BackendContractTests {
    static let big = PrefValue.data((0..<1_100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    /// A store without external storage keeps every value inline, whatever its size, and reads it
    /// back; `check` and `gc` have no blobs to look at and are refused (64), saying the store keeps
    /// no external values, changing nothing.
    static func valuesStayInline(_ fixture: ContractStore) throws {
        let app = Domain.suite("inline")
        let text = PrefValue.string(String(repeating: "é", count: 2_000))
        try fixture.store.update(app) { $0["big"] = BackendContractTests.big; $0["text"] = text; $0["../a/b"] = text }
        #expect(try fixture.stored(app) == ["big": BackendContractTests.big, "text": text, "../a/b": text])
        #expect(try fixture.read(app, "big").value == BackendContractTests.big)
        let before = try fixture.footprint()
        let refusal = PrefsError.usage("this store does not keep external values (every value stays inline): there are no blobs to check")
        expectFailure(refusal, status: .usage, comment: "check") { _ = try fixture.store.checkExternal(app) }
        expectFailure(refusal, status: .usage, comment: "gc") { _ = try fixture.store.collectGarbage(app, grace: 0) }
        expectFailure(refusal, status: .usage, comment: "check, the global suite") { _ = try fixture.store.checkExternal(.global) }
        #expect(try fixture.footprint() == before)
    }

    @Test(arguments: Backend.allCases)
    func largeValuesAreKeptOutsideAndReadBackChecked(backend: Backend) throws {
        // No history: a blob goes with the change that drops it (a version would keep it,
        // `externalValuesStayWhileAVersionNamesThem`).
        let fixture = try ContractStore(backend, variables: ["PREFS_HISTORY": "0"])
        guard try fixture.keepsBlobs else { return try Self.valuesStayInline(fixture) }
        let app = Domain.suite("app")
        let text = PrefValue.string(String(repeating: "é", count: 2_000))
        let list = PrefValue.array((0..<300).map { .string("item \($0)") })
        try fixture.store.update(app) { contents in
            contents["big"] = BackendContractTests.big
            contents["text"] = text
            contents["list"] = list
            contents["small"] = "inline"
        }
        let stored = try fixture.stored(app)
        #expect(stored["small"] == "inline")
        var references: [String: ExternalReference] = [:]
        for (key, kind) in [("big", ExternalReference.Kind.data), ("text", .string), ("list", .array)] {
            let value = try #require(stored[key])
            let reference = try #require(try ExternalReference.parse(value), "\(key) is kept outside")
            #expect(reference.kind == kind)
            #expect(try fixture.storedNames().contains { $0.contains(reference.uuid) }, "\(key)'s blob is in the store")
            references[key] = reference
        }
        #expect(try fixture.read(app, "big").value == BackendContractTests.big)
        #expect(try fixture.read(app, "text").value == text)
        #expect(try fixture.read(app, ":list:299").value == "item 299")
        #expect(try fixture.store.typeName(at: PrefKeyPath(["big"]), in: app, scope: ReadScope()).type == "data")
        #expect(try fixture.store.loadMaterialized(app)?.contents == ["big": BackendContractTests.big, "list": list, "small": "inline", "text": text])
        #expect(try fixture.store.everySuite().suites.first?.contents["text"] == text)
        let report = try fixture.store.checkExternal(app)
        #expect(report.references == 3 && report.problems.isEmpty, "\(report.problems)")

        // A dry run reads the value in and writes no blob.
        var dryRun = WriteOptions()
        dryRun.dryRun = true
        let before = try fixture.footprint()
        #expect(try fixture.write(app, "more", "-data", String(repeating: "ab", count: 4_000), options: dryRun).changed)
        #expect(try fixture.footprint() == before)

        // A damaged blob fails every read of it (65), and `check` names it.
        let uuid = try #require(references["big"]).uuid
        try fixture.damageBlob(uuid: uuid)
        expectFailure(status: .dataError, { _ = try fixture.read(app, "big") }) {
            if case .badExternalValue(_, "big", _, _) = $0 { true } else { false }
        }
        #expect(try fixture.store.checkExternal(app).problems.count == 1)
        // Overwritten inline (a plain set reads nothing), its blob goes.
        try fixture.store.update(app, keys: ["big"], external: ExternalOptions(reading: [])) { $0["big"] = "small now" }
        #expect(try !fixture.storedNames().contains { $0.contains(uuid) })
        #expect(try fixture.store.checkExternal(app).problems.isEmpty)
        // The suite removed, every blob of it goes.
        #expect(try fixture.store.remove(app))
        for reference in references.values { #expect(try !fixture.storedNames().contains { $0.contains(reference.uuid) }) }
    }

    /// Keys become directory names of external storage: one that holds `/` or `..` gets a safe name,
    /// inside the suite's storage, and its value reads back.
    @Test(arguments: Backend.allCases)
    func externalValuesOfAnyKeyStayInTheStore(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        guard try fixture.keepsBlobs else { return try Self.valuesStayInline(fixture) }
        let keys = ["../../escape", "a/b", "..", "."]
        let value = PrefValue.string(String(repeating: "x", count: 5_000))
        try fixture.store.update(.suite("app")) { contents in for key in keys { contents[key] = value } }
        let stored = try fixture.stored(.suite("app"))
        let names = try fixture.storedNames()
        for key in keys {
            let kept = try #require(stored[key])
            let reference = try #require(try ExternalReference.parse(kept))
            #expect(ExternalReference.isDirectoryName(reference.directory) && !reference.directory.contains("/")
                    && reference.directory != ".." && reference.directory != ".", "\(reference.directory)")
            #expect(names.contains { $0.contains(reference.directory + "/" + reference.uuid) }, "\(key)")
            #expect(try fixture.read(.suite("app"), key).value == value)
        }
        #expect(try fixture.store.checkExternal(.suite("app")).problems.isEmpty)
    }

    /// `gc` takes a blob no suite refers to, once no writer holds it, and never one a suite refers to;
    /// its dry run only says what it would take.
    @Test(arguments: Backend.allCases)
    func gcTakesOrphansAndLeavesHeldAndReferencedBlobs(backend: Backend) throws {
        let fixture = try ContractStore(backend)
        guard try fixture.keepsBlobs else { return try Self.valuesStayInline(fixture) }
        let app = Domain.suite("app")
        try fixture.store.update(app) { $0["kept"] = .string(String(repeating: "k", count: 5_000)) }
        let blobs = try #require(try fixture.store.storage.blobStore())
        let held = try blobs.write(suite: "app", key: "orphan", kind: .data) { sink in
            try [UInt8](repeating: 1, count: 10).withUnsafeBytes { try sink.write($0) }
        }
        let uuid = held.reference.uuid
        let later = Int64.max / 2
        #expect(try fixture.store.collectGarbage(app, grace: 0, dryRun: false, now: later).removed.isEmpty, "a held blob is kept")
        held.release()
        #expect(try fixture.store.checkExternal(app).problems.count == 1, "check reports the orphan")
        #expect(try fixture.store.collectGarbage(app, grace: 0, dryRun: true, now: later).removed.count == 1)
        #expect(try fixture.storedNames().contains { $0.contains(uuid) }, "a dry run removes nothing")
        #expect(try fixture.store.collectGarbage(app, grace: 3_600, dryRun: false, now: Int64(time(nil))).removed.isEmpty, "a young orphan is kept")
        #expect(try fixture.store.collectGarbage(app, grace: 0, dryRun: false, now: later).removed.count == 1)
        #expect(try !fixture.storedNames().contains { $0.contains(uuid) })
        #expect(try fixture.read(app, "kept").value == .string(String(repeating: "k", count: 5_000)))
        #expect(try fixture.store.checkExternal(app).problems.isEmpty)
    }
}
