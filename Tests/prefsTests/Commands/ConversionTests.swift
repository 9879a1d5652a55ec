import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `export` and `read --format` write documents honestly: the format a file's name asks for, and
/// JSON that refuses what it cannot hold unless told to lose it.
@Suite struct ConversionTests {
    static func home() -> InMemoryHome {
        let home = InMemoryHome()
        home.run("write", "app", "window", "-dict", "w", "-int", "640", "h", "-int", "480")
        home.run("write", "app", "when", "-date", "2026-01-02T03:04:05Z", "name", "x")
        return home
    }

    func file(_ home: InMemoryHome, _ path: String) throws -> (PrefValue, PlistFormat) {
        try PropertyList.decode(try home.fileSystem.contents(of: path))
    }

    @Test(arguments: [("/home/u/out.json", PlistFormat.json), ("/home/u/out.plist", .xml), ("/home/u/out.txt", .xml), ("/home/u/OUT.JSON", .json), ("/home/u/out.xml", .xml)])
    func exportPicksTheFormatFromTheExtension(path: String, format: PlistFormat) throws {
        let home = ConversionTests.home()
        #expect(home.run("export", "app", path, "--keys", "window").status == .success)
        #expect(try file(home, path) == (["window": ["h": 480, "w": 640]], format))
        // --format wins over the name.
        #expect(home.run("export", "app", path, "--keys", "window", "--format", "binary").status == .success)
        #expect(try file(home, path).1 == .binary)
    }

    @Test func jsonRefusesDatesAndDataNamingTheKeyUnlessLossy() throws {
        let home = ConversionTests.home()
        let refused = home.run("export", "app", "/home/u/out.json")
        #expect(refused == (.dataError, "", "prefs: cannot write the value at :when as JSON: JSON has no date type; --format typed-json keeps every type, --lossy writes it as a string\n"))
        #expect(try home.fileSystem.status(of: "/home/u/out.json") == nil)
        home.run("write", "app", "blob", "-data", "00ff", "when", "-string", "now")
        #expect(home.run("export", "app", "-", "--format", "json").error.contains("at :blob as JSON: JSON has no data type"))
        home.run("write", "app", "list", "-array", "-date", "2026-01-02")
        home.run("delete", "app", "blob")
        #expect(home.run("export", "app", "-", "--format", "json").error.contains("at :list:0 as JSON"))
        #expect(home.run("read", "app", "--format", "json").status == .dataError)
        let lossy = home.run("export", "app", "-", "--format", "json", "--lossy", "--keys", "list")
        #expect(lossy == (.success, "{\n  \"list\": [\n    \"2026-01-02T00:00:00Z\"\n  ]\n}\n", ""))
        #expect(home.run("export", "app", "/home/u/out.json", "--lossy").status == .success)
        // typed JSON keeps them.
        #expect(home.run("export", "app", "/home/u/typed.json", "--format", "typed-json").status == .success)
        #expect(try file(home, "/home/u/typed.json").0.dictionary?["list"] == [.date(PrefDate(iso8601: "2026-01-02T00:00:00Z")!)])
    }

    @Test func compactWritesJSONOnOneLine() throws {
        let home = ConversionTests.home()
        #expect(home.run("export", "app", "-", "--keys", "window", "--format", "json", "--compact").output == #"{"window":{"h":480,"w":640}}"#)
        #expect(home.run("read", "app", ":window:w", "--format", "typed-json", "--compact").output == #"{"prefs-typed-json":1,"value":{"integer":640}}"#)
    }

    @Test(arguments: [
        (["export", "app", "/home/u/x.plist", "--lossy"], "--lossy is for --format json (xml loses nothing it can write)"),
        (["export", "app", "/home/u/x.plist", "--compact"], "--compact is for --format json and typed-json, not xml"),
        (["read", "app", "--lossy"], "read: --lossy needs --format"),
        (["read", "app", "--format", "json", "--json"], "read: --format and --json cannot be combined"),
        (["read", "app", "k", "--format", "xml", "--raw"], "read: --format and --raw cannot be combined"),
    ])
    func optionsThatDoNotFitAreUsageErrors(arguments: [String], message: String) {
        #expect(ConversionTests.home().run(arguments) == (.usage, "", "prefs: \(message)\n"))
    }

    /// `read S :path --format F` extracts the sub-tree as a document of its own, like
    /// `plutil -extract KEYPATH FORMAT`: a dictionary, an array or a scalar as the root.
    @Test(arguments: PlistFormat.allCases)
    func readExtractsASubTreeAsADocument(format: PlistFormat) throws {
        let home = ConversionTests.home()
        home.run("write", "app", "langs", "-array", "en", "fr")
        for (key, expected) in [(":window", ["h": 480, "w": 640] as PrefValue), ("langs", ["en", "fr"]), (":langs:1", "fr")] {
            let run = prefs(["read", "app", key, "--format", format.rawValue], environment: home.environment, fileSystem: home.fileSystem)
            #expect(run.status == .success, "\(key) \(format): \(run.error)")
            // OpenStep reads every scalar back as a string, and a bare word is no document.
            guard format != .openStep || key == "langs" else { continue }
            #expect(try PropertyList.decode(run.bytes, as: format) == expected, "\(key) \(format)")
        }
        // A whole suite (what an application sees), and the default when a key is absent.
        let suite = prefs(["read", "app", "--format", "typed-json"], environment: home.environment, fileSystem: home.fileSystem)
        #expect(try PropertyList.decode(suite.bytes).value.dictionary?.keys == ["langs", "name", "when", "window"])
        let fallback = prefs(["read", "app", "nope", "--default", "-int", "3", "--format", "xml"], environment: home.environment, fileSystem: home.fileSystem)
        #expect(try PropertyList.decode(fallback.bytes).value == 3)
    }
}
