import Foundation
import Glibc
import Testing
@testable import PrefsCore

/// `load` is all or nothing for its document: a fault anywhere in it — a key no suite stores, a
/// value a suite's schema refuses, a name given twice — is 65 naming it, and no suite, file or
/// directory is changed or made. `import` refuses a JSON key given twice the same way.
@Suite(.runsProcesses) struct LoadAllOrNothingTests {
    static func dump(_ suites: String, registered: String? = nil) -> [UInt8] {
        let registeredPart = registered.map { #", "registered": {"dictionary": {\#($0)}}"# } ?? ""
        return Array(#"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {\#(suites)}}\#(registeredPart)}}}"#.utf8)
    }

    /// Every file under the sandbox's configuration and data directories, with its bytes.
    static func tree(_ sandbox: ProcessSandbox) throws -> [String: [UInt8]] {
        var tree: [String: [UInt8]] = [:]
        for root in [sandbox.config, sandbox.data] {
            for path in (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? [] {
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
                tree[root + "/" + path] = isDirectory.boolValue ? [] : try Fixtures.bytes(root + "/" + path)
            }
        }
        return tree
    }

    /// A suite holding an empty key, a key with NUL or a value its schema refuses: the suites before
    /// and after it in the document are not restored either, with or without `--dry-run`.
    @Test(arguments: [
        (#""": {"integer": 1}"#, "an empty key cannot be stored"),
        (#""k\u0000": {"integer": 1}"#, "a key cannot contain NUL"),
        (#""d": {"dictionary": {"x\u0000y": {"integer": 1}}}"#, "a key cannot contain NUL"),
        (#""port": {"string": "eighty"}"#, "expected an integer"),
    ])
    func aBadSuiteAnywhereRestoresNoSuite(entry: String, message: String) async throws {
        let sandbox = try ProcessSandbox()
        try #require(try await sandbox.prefs("write", "a", "old", "1").status == 0)
        try #require(try await sandbox.prefs("write", "c", "old", "1").status == 0)
        let schema = try sandbox.directory.write("b.json", #"{"keys": {"port": {"type": "integer"}}}"#)
        try #require(try await sandbox.prefs("register", "b", "--schema", schema).status == 0)
        let document = try sandbox.directory.write("dump.json", LoadAllOrNothingTests.dump(
            #""a": {"dictionary": {"new": {"integer": 2}}}, "b": {"dictionary": {\#(entry)}}, "c": {"dictionary": {"new": {"integer": 3}}}"#))
        let before = try LoadAllOrNothingTests.tree(sandbox)
        for dryRun in [[], ["--dry-run"]] {
            let run = try await runProcess(Paths.binary, ["load", document] + dryRun, environment: sandbox.environment)
            #expect(run.status == 65 && run.outputText == "", "\(dryRun): \(run.status) \(run.outputText) \(run.error)")
            #expect(run.error.hasPrefix("prefs: ") && run.error.contains(message) && run.error.split(separator: "\n").count == 1, "\(run.error)")
            #expect(try LoadAllOrNothingTests.tree(sandbox) == before)
        }
    }

    /// A dump names each part, host, suite and key once, and a dictionary in a value each key once:
    /// one named twice is 65 naming it, and nothing is restored (it was taken, the last one winning).
    @Test(arguments: [
        (#""a": {"dictionary": {"k": {"integer": 1}}}, "a": {"dictionary": {"k": {"integer": 2}}}"#, #"in suites, "a" is given twice"#),
        (#""a": {"dictionary": {"k": {"integer": 1}, "k": {"integer": 2}}}"#, #"in a, "k" is given twice"#),
        (#""a": {"dictionary": {"k": {"dictionary": {"x": {"integer": 1}, "x": {"integer": 2}}}}}"#, #"the key "x" is given twice"#),
        (#""a": {"dictionary": {"k": {"integer": 1}}}}}, "suites": {"dictionary": {"b": {"dictionary": {}}"#, #""suites" is given twice"#),
    ])
    func aNameGivenTwiceRestoresNothing(suites: String, message: String) async throws {
        let sandbox = try ProcessSandbox()
        try #require(try await sandbox.prefs("write", "kept", "old", "1").status == 0)
        let document = try sandbox.directory.write("dump.json", LoadAllOrNothingTests.dump(#""kept": {"dictionary": {"new": {"integer": 2}}}, "# + suites))
        let before = try LoadAllOrNothingTests.tree(sandbox)
        let run = try await sandbox.prefs("load", document)
        #expect(run.status == 65 && run.outputText == "", "\(run.status) \(run.outputText) \(run.error)")
        #expect(run.error.hasPrefix("prefs: \(document): typed JSON: byte ") && run.error.contains(message), "\(run.error)")
        #expect(try LoadAllOrNothingTests.tree(sandbox) == before)
    }

    /// NFC and NFD spellings of a key are two keys (a suite tells keys apart by their bytes), in a
    /// dump as in a suite.
    @Test func keysThatDifferOnlyInNormalizationAreNotTwice() async throws {
        let sandbox = try ProcessSandbox()
        let document = try sandbox.directory.write("dump.json", LoadAllOrNothingTests.dump(#""a": {"dictionary": {"\u00e9": {"integer": 1}, "e\u0301": {"integer": 2}}}"#))
        let run = try await sandbox.prefs("load", document)
        #expect(run.status == 0, "\(run.error)")
        #expect(try sandbox.suite("a") == .dictionary(PrefDictionary([("\u{E9}", .integer(1)), ("e\u{301}", .integer(2))])))
    }

    /// `import` of JSON (plain or typed) refuses a key given twice in any object, naming it and its
    /// place; the suite is left as it was.
    @Test(arguments: [
        (#"{"a": 1, "b": 2, "a": 3}"#, #"line 1, column 18: the key "a" is given twice"#),
        (#"{"d": {"x": 1, "y": 2, "x": 3}}"#, #"the key "x" is given twice"#),
        (#"{"a": null, "a": 1}"#, #"the key "a" is given twice"#),
        (#"{"a\u0062": 1, "ab": 2}"#, #"the key "ab" is given twice"#),
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"a": {"integer": 1}, "a": {"integer": 2}}}}"#, #"the key "a" is given twice"#),
    ])
    func importRefusesAJSONKeyGivenTwice(document: String, message: String) async throws {
        let sandbox = try ProcessSandbox()
        try #require(try await sandbox.prefs("write", "s", "a", "-int", "0").status == 0)
        let before = try LoadAllOrNothingTests.tree(sandbox)
        let file = try sandbox.directory.write("doc.json", document)
        let run = try await sandbox.prefs("import", "s", file)
        #expect(run.status == 65, "\(run.error)")
        #expect(run.error.hasPrefix("prefs: \(file): ") && run.error.contains(message) && run.error.split(separator: "\n").count == 1, "\(run.error)")
        #expect(try LoadAllOrNothingTests.tree(sandbox) == before)
    }
}
