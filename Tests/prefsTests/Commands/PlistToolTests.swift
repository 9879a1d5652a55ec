import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// What `plutil` and PlistBuddy users reach for: an empty file made with `'{}'`, JSON documents from
/// files, inserting into an array, several keys deleted at once.
@Suite(.runsProcesses) struct PlistToolTests {
    @Test(arguments: [("/home/u/x.plist", PlistFormat.xml), ("/home/u/x.json", .json)])
    func writingAnEmptyDictionaryCreatesTheFile(path: String, format: PlistFormat) throws {
        let home = InMemoryHome()
        try home.fileSystem.createDirectory("/home/u", mode: 0o700)
        #expect(home.run("write", path, "{}", "--dry-run", "--exit-code") == (.success, "", ""))
        #expect(try home.fileSystem.status(of: path) == nil)
        #expect(home.run("write", path, "{}", "--exit-code") == (.changed, "", ""))
        #expect(try PropertyList.decode(try home.fileSystem.contents(of: path)) == ([:], format))
        // Already there: nothing changes (the file is not rewritten).
        let before = try home.fileSystem.status(of: path)
        #expect(home.run("write", path, "{}", "--exit-code") == (.success, "", ""))
        #expect(try home.fileSystem.status(of: path) == before)
        // A missing directory is not made for a file named by its path.
        #expect(home.run("write", "/home/u/no/such/x.plist", "{}").status == .cannotWrite)
    }

    @Test func writingAnEmptyDictionaryCreatesASuite() throws {
        let home = InMemoryHome()
        #expect(home.run("write", "fresh", "{}") == (.success, "", ""))
        #expect(try home.suite("fresh") == [:])
        #expect(home.run("domains").output == "fresh\n")
    }

    @Test func jsonValuesComeFromFilesAndStandardInput() throws {
        let home = InMemoryHome()
        try home.fileSystem.createDirectory("/home/u/in", mode: 0o700)
        try home.fileSystem.replace("/home/u/in/doc.json", with: Array(#"{"w": 640, "tags": ["a", "b"]}"#.utf8), newFileMode: 0o600)
        try home.fileSystem.replace("/home/u/in/typed.json", with: Array(#"{"prefs-typed-json": 1, "value": {"data": "AAE="}}"#.utf8), newFileMode: 0o600)
        #expect(home.run("write", "app", "window", "-json", "@/home/u/in/doc.json", "blob", "-json", "@/home/u/in/typed.json").status == .success)
        #expect(try home.suite("app") == ["window": ["w": 640, "tags": ["a", "b"]], "blob": .data([0, 1])])
        #expect(home.run("write", "app", "k", "-json", "@/home/u/in/missing.json") == (.noInput, "", "prefs: /home/u/in/missing.json: no such file\n"))
        #expect(home.run("write", "app", "k", "-json", "@").status == .usage)
        #expect(home.run("write", "app", "k", "-array", "-json", "@/home/u/in/doc.json").status == .usage)
        #expect(home.run("write", "app", "a", "-json", "@-", "b", "-data", "@-") ==
            (.usage, "", "prefs: write: standard input can give only one value\n"))
        #expect(home.run("register", "app", "r", "-json", "@/home/u/in/doc.json").status == .success)
        #expect(home.run("read", "app", ":r:w").output == "640\n")
    }

    @Test func jsonFromStandardInputAndAMalformedFileAsProcesses() async throws {
        let sandbox = try ProcessSandbox()
        #expect(try await sandbox.prefs("write", "app", "k", "-json", "@-", input: Array("[true, 2]".utf8)).status == 0)
        #expect(try sandbox.suite("app") == ["k": [true, 2]])
        let bad = try sandbox.directory.write("bad.json", "{bad")
        let run = try await sandbox.prefs("write", "app", "k", "-json", "@" + bad)
        #expect(run.status == 65)
        #expect(run.error == "prefs: app: k: -json @\(bad): \(bad): JSON: line 1, column 2: expected a string key\n")
        #expect(try sandbox.suite("app") == ["k": [true, 2]])
        // register reads values from files too (it was an internal error).
        let data = try sandbox.directory.write("v.bin", [1, 2, 3])
        #expect(try await sandbox.prefs("register", "app", "d", "-data", "@" + data).status == 0)
        #expect(try await sandbox.prefs("read", "app", "d").outputText == "010203\n")
    }

    @Test func arrayInsertPutsItemsBeforeAnIndex() throws {
        let home = InMemoryHome()
        #expect(home.run("write", "app", "list", "-array-insert", "0", "b").status == .success)
        #expect(home.run("write", "app", "list", "-array-insert", "0", "a").status == .success)
        #expect(home.run("write", "app", "list", "-array-insert", "2", "d", "-int", "5").status == .success)
        #expect(home.run("write", "app", "list", "-array-insert", "2", "c", "--dry-run") ==
            (.success, "~ list = (a, b, d, 5) -> (a, b, c, d, 5)\n", ""))
        #expect(home.run("write", "app", "list", "-array-insert", "2", "c").status == .success)
        #expect(try home.suite("app") == ["list": ["a", "b", "c", "d", 5]])
        home.run("write", "app", "w", "-dict", "tags", "(x, z)")
        #expect(home.run("write", "app", ":w:tags", "-array-insert", "1", "y").status == .success)
        #expect(home.run("read", "app", ":w:tags", "--format", "json", "--compact").output == #"["x","y","z"]"#)
    }

    @Test(arguments: [
        (["list", "-array-insert", "9", "x"], PrefsCore.ExitStatus.dataError, "prefs: app: list: -array-insert 9 is beyond the end of an array of 2\n"),
        (["new", "-array-insert", "1", "x"], .dataError, "prefs: app: new: -array-insert 1: there is no array yet (insert at 0 to start one)\n"),
        (["s", "-array-insert", "0", "x"], .dataError, "prefs: app: s: -array-insert needs an array, and the value is a string\n"),
        (["list", "-array-insert", "x"], .usage, "prefs: app: -array-insert needs an INDEX (0, 1, ...) before its items\n"),
        (["list", "-array-insert", "-1", "x"], .usage, "prefs: app: -array-insert needs an INDEX (0, 1, ...) before its items\n"),
        (["list", "-array-insert", "01", "x"], .usage, "prefs: app: -array-insert needs an INDEX (0, 1, ...) before its items\n"),
    ] as [([String], PrefsCore.ExitStatus, String)])
    func arrayInsertRefusesWhatItCannotDo(words: [String], status: PrefsCore.ExitStatus, error: String) throws {
        let home = InMemoryHome()
        home.run("write", "app", "list", "(a, b)", "s", "text")
        let before = try home.files()
        #expect(home.run(["write", "app"] + words) == (status, "", error))
        #expect(try home.files() == before)
    }

    @Test func deleteRemovesSeveralKeysAllOrNothing() throws {
        let home = InMemoryHome()
        home.run("write", "app", "a", "-int", "1", "b", "-int", "2", "c", "-int", "3", "w", "-json", #"{"x": 1, "y": 2}"#)
        let before = try home.files()
        #expect(home.run("delete", "app", "a", "nope", "b") == (.notFound, "", "prefs: app: no key nope\n"))
        #expect(try home.files() == before)
        #expect(home.run("delete", "app", "a", ":w:x", "--dry-run") == (.success, "- a = 1\n~ w = { x = 1; y = 2; } -> { y = 2; }\n", ""))
        #expect(home.run("delete", "app", "a", "b", ":w:x", "--exit-code") == (.changed, "", ""))
        #expect(try home.suite("app") == ["c": 3, "w": ["y": 2]])
    }
}
