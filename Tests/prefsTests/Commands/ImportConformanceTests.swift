import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// The conformance corpora through `prefs import`, and random suites through export then import: every
/// document that is a valid dictionary lands whole; every other one is refused with 65 and the
/// target suite stays byte-identical.
@Suite struct ImportConformanceTests {
    static func name(_ path: String) -> String { String(path.split(separator: "/").last!) }

    /// Imports `file` into a suite that already holds a value; returns the run and whether the
    /// suite was left exactly as it was.
    static func importing(_ file: String) throws -> (status: PrefsCore.ExitStatus, error: String, untouched: Bool, suite: PrefValue?) {
        let home = InMemoryHome()
        home.run("write", "target", "existing", "-int", "1")
        try home.fileSystem.write("/corpus/doc", try Fixtures.bytes(file))
        let before = try home.fileSystem.contents(of: "/home/u/.config/target.plist")
        let run = home.run("import", "target", "/corpus/doc")
        let after = try home.fileSystem.contents(of: "/home/u/.config/target.plist")
        return (run.status, run.error, before == after, try home.suite("target"))
    }

    @Test func everyJSONTestSuiteYDocumentWithAnObjectRootImportsAndEveryOtherIsRefused() throws {
        var imported = 0, refusedKeys = 0, givenTwice = 0
        for file in try Fixtures.conformanceFiles("json/test_parsing").filter({ ImportConformanceTests.name($0).hasPrefix("y_") }) {
            let run = try ImportConformanceTests.importing(file)
            let text = try Fixtures.bytes(file)
            let isObject = (try? JSONSerialization.jsonObject(with: Data(text), options: [.fragmentsAllowed])) is [String: Any]
            // A document to import names each key once (y_object_duplicated_key…): valid JSON, refused.
            if isObject, run.error.contains("is given twice in one object") {
                givenTwice += 1
                #expect(run.status == .dataError && run.untouched, "\(file): \(run.status) \(run.error)")
                continue
            }
            if isObject {
                guard case .dictionary(let document) = try PropertyList.decodeForImport(text).value else { Issue.record("\(file)"); continue }
                // A suite never stores the empty key or a key with NUL (y_object_empty_key,
                // y_object_escaped_null_in_key): valid JSON, refused as a suite's keys.
                if ImportConformanceTests.hasUnstorableKey(document) {
                    refusedKeys += 1
                    #expect(run.status == .dataError && run.untouched && run.error.contains("nothing changed"), "\(file): \(run.status) \(run.error)")
                    continue
                }
                imported += 1
                #expect(run.status == .success, "\(file): \(run.error)")
                var expected: PrefDictionary = ["existing": 1]
                for entry in document { expected[entry.key] = entry.value }
                #expect(run.suite == .dictionary(expected), "\(file)")
            } else {
                #expect(run.status == .dataError && run.untouched, "\(file): \(run.status)")
            }
        }
        #expect(imported == 8 && refusedKeys == 2 && givenTwice == 2)
    }

    /// An empty top-level key, or NUL in a key at any depth: what no suite stores.
    static func hasUnstorableKey(_ document: PrefDictionary) -> Bool {
        func nul(_ value: PrefValue) -> Bool {
            switch value {
            case .dictionary(let d): return d.contains { $0.key.utf8.contains(0) || nul($0.value) }
            case .array(let a): return a.contains(where: nul)
            default: return false
            }
        }
        return document.keys.contains("") || nul(.dictionary(document))
    }

    @Test func everyJSONTestSuiteNDocumentIsRefusedAndTheSuiteUntouched() throws {
        let files = try Fixtures.conformanceFiles("json/test_parsing").filter { ImportConformanceTests.name($0).hasPrefix("n_") }
        #expect(files.count == 188)
        for file in files {
            let run = try ImportConformanceTests.importing(file)
            #expect(run.status == .dataError && run.untouched, "\(file): \(run.status) \(run.error)")
        }
    }

    @Test func invalidPlistsAreRefusedAndTheSuiteUntouched() throws {
        var files = try Fixtures.conformanceFiles("plist/cpython-plistlib/invalid-binary")
        for folder in ["bplist-crashes", "xplist-crashes", "oplist-crashes", "jplist-crashes"] {
            files += try Fixtures.conformanceFiles("plist/libplist/fuzz/\(folder)")
        }
        files += try Fixtures.conformanceFiles("plist/libplist/data")
        var refused = 0
        for file in files {
            let run = try ImportConformanceTests.importing(file)
            // The verdict is the decoder's (pinned by the codec conformance tests) plus "the root is a dictionary".
            let bytes = try Fixtures.bytes(file)
            guard let decoded = try? PropertyList.decodeForImport(bytes), case .dictionary(let document) = decoded.value,
                  !ImportConformanceTests.hasUnstorableKey(document) else {
                refused += 1
                #expect(run.status == .dataError && run.untouched, "\(file): \(run.status) \(run.error)")
                continue
            }
            #expect(run.status == .success, "\(file): \(run.error)")
        }
        #expect(refused >= 40 + 51)
    }

    @Test func realWorldMacOSFilesImportAndReExport() throws {
        let files = try Fixtures.conformanceFiles("plist/real-world/iterm2") + Fixtures.conformanceFiles("plist/real-world/terminal")
        #expect(files.count == 63)
        for file in files {
            let home = InMemoryHome()
            try home.fileSystem.write("/corpus/doc", try Fixtures.bytes(file))
            let run = home.run("import", "app", "/corpus/doc")
            #expect(run.status == .success, "\(file): \(run.error)")
            let original = try PropertyList.decode(try Fixtures.bytes(file)).value
            for format in ["binary", "typed-json"] {
                #expect(home.run("export", "app", "/corpus/out", "--format", format).status == .success)
                // The suite is XML, which keeps dates to the second; binary and typed JSON keep what it holds.
                #expect(try PropertyList.decode(try home.fileSystem.contents(of: "/corpus/out")).value == home.suite("app"), "\(file) \(format)")
            }
            #expect(try home.suite("app").map { RoundTrip.wholeSeconds($0) } == RoundTrip.wholeSeconds(original), "\(file)")
        }
    }
}

/// Random suites exported in each format and imported into an empty suite.
@Suite struct RoundTrip {
    /// Dates at whole seconds, as XML keeps them (the fraction is dropped, toward the past).
    static func wholeSeconds(_ value: PrefValue) -> PrefValue {
        switch value {
        case .date(let date): return .date(PrefDate(secondsSinceReferenceDate: date.secondsSinceReferenceDate.rounded(.down)))
        case .array(let elements): return .array(elements.map(wholeSeconds))
        case .dictionary(let dictionary): return .dictionary(dictionary.mapValues(wholeSeconds))
        default: return value
        }
    }

    /// Plain JSON's documented mapping: dates as ISO 8601 strings with their fraction, data as base64.
    static func jsonMapped(_ value: PrefValue) -> PrefValue {
        switch value {
        case .date(let date): return .string(date.iso8601())
        case .data(let bytes): return .string(Data(bytes).base64EncodedString())
        case .array(let elements): return .array(elements.map(jsonMapped))
        case .dictionary(let dictionary): return .dictionary(dictionary.mapValues(jsonMapped))
        default: return value
        }
    }

    /// What an OpenStep file can hold: strings and data (other scalars given as their text).
    static func openStepOnly(_ value: PrefValue) -> PrefValue {
        switch value {
        case .string, .data: return value
        case .array(let elements): return .array(elements.map(openStepOnly))
        case .dictionary(let dictionary): return .dictionary(dictionary.mapValues(openStepOnly))
        default: return .string("\(value)")
        }
    }

    /// Reals JSON can write (no NaN or infinity).
    static func finite(_ value: PrefValue) -> PrefValue {
        switch value {
        case .real(let r) where !r.isFinite: return .real(1.5)
        case .array(let elements): return .array(elements.map(finite))
        case .dictionary(let dictionary): return .dictionary(dictionary.mapValues(finite))
        default: return value
        }
    }

    @Test(arguments: ["binary", "xml", "openstep", "json", "typed-json"])
    func exportThenImportGivesTheSameValues(format: String) throws {
        for seed in UInt64(1)...40 {
            var random = RandomValues(seed: seed)
            random.includeUIDs = format == "binary" || format == "typed-json"
            var suite = try #require(random.dictionary().dictionary)
            suite[""] = nil  // no suite stores the empty key
            suite["edge"] = ["max": .unsignedInteger(.max), "min": .integer(.min), "fraction": .date(PrefDate(secondsSinceReferenceDate: -0.25)),
                             "unicode": "e\u{301} \u{E9} \u{1F600}", "empty": "", "nested": [[[:]]]]
            var value = PrefValue.dictionary(suite)
            if format == "openstep" { value = RoundTrip.openStepOnly(value) }
            if format == "json" { value = RoundTrip.finite(value) }
            let home = InMemoryHome()
            try home.fileSystem.createDirectory("/out", mode: 0o755)
            try home.fileSystem.write("/home/u/.config/source.plist", try PropertyList.encode(value, as: .binary))
            // JSON has no date or data: --lossy writes them as strings (without it, export refuses).
            let export = home.run(["export", "source", "/out/file", "--format", format] + (format == "json" ? ["--lossy"] : []))
            try #require(export.status == .success, "seed \(seed): \(export.error)")
            try home.fileSystem.write("/home/u/.config/target.plist", try PropertyList.encode([:], as: .binary))
            let run = home.run("import", "target", "/out/file")
            try #require(run.status == .success, "seed \(seed): \(run.error)")
            let expected: PrefValue
            switch format {
            case "xml": expected = RoundTrip.wholeSeconds(value)
            case "json": expected = RoundTrip.jsonMapped(value)
            default: expected = value
            }
            let imported = try #require(try home.suite("target"))
            #expect(imported == expected, "seed \(seed): \(firstDifference(imported, expected))")
        }
    }
}
