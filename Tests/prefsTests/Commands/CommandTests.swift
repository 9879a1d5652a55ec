import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// Commands run in-process: stdout, stderr, exit status, and what is left on disk.
@Suite struct CommandTests {
    @Test func lintReportsEachFile() throws {
        let scratch = try TemporaryDirectory()
        let good = try scratch.write("good.plist", "<plist><dict><key>a</key><true/></dict></plist>")
        let bad = try scratch.write("bad.json", "{\"a\": }")
        let run = prefs(["lint", good, bad, scratch.file("missing.plist")])
        #expect(run.status == .dataError)
        #expect(run.output == "\(good): OK\n")
        #expect(run.error == """
            prefs: \(bad): JSON: line 1, column 7: unexpected character '}'
            prefs: \(scratch.file("missing.plist")): no such file

            """)
    }

    /// lint says OK only for what read and export both accept: JSON's null is valid JSON with no
    /// property-list value, so it fails as export fails on it; a root that is not a dictionary
    /// (which export converts) fails as read fails on it.
    @Test func lintPassesOnlyWhatReadAndExportTake() throws {
        let scratch = try TemporaryDirectory()
        for (name, text) in [("null.json", "null"), ("member.json", "{\"a\": null}"), ("element.json", "[1, null]")] {
            let path = try scratch.write(name, text)
            let lint = prefs(["lint", path]), export = prefs(["export", path, "-"])
            #expect(lint.status == .dataError && lint.output == "", "\(name): \(lint)")
            #expect(export.status == .dataError)
            #expect(lint.error == export.error, "\(name)")
        }
        for (name, text) in [("number.json", "5"), ("string.json", "\"s\""), ("array.json", "[]"),
                             ("array.plist", "<plist><array><string>x</string></array></plist>"),
                             ("typed.json", #"{"prefs-typed-json": 1, "value": {"array": []}}"#)] {
            let path = try scratch.write(name, text)
            let lint = prefs(["lint", path]), read = prefs(["read", path])
            #expect(lint.status == .dataError && lint.output == "", "\(name): \(lint)")
            #expect(read.status == .dataError)
            #expect(lint.error == read.error && lint.error.hasSuffix(", not a dictionary\n"), "\(name): \(lint.error)")
        }
        for (name, text) in [("ok.json", "{\"a\": [1, 2.5, true]}"), ("ok.plist", "<plist><dict><key>a</key><true/></dict></plist>"), ("ok.strings", "\"a\" = \"b\";")] {
            let path = try scratch.write(name, text)
            let lint = prefs(["lint", path])
            #expect(lint.status == .success && lint.output == "\(path): OK\n" && lint.error == "", "\(name): \(lint)")
            #expect(prefs(["read", path]).status == .success, "\(name)")
            #expect(prefs(["export", path, "-"]).status == .success, "\(name)")
        }
    }

    @Test func lintStatusIsTheFirstFailure() throws {
        let scratch = try TemporaryDirectory()
        let good = try scratch.write("good.json", "{\"a\": [1]}")
        #expect(prefs(["lint", good]).status == .success)
        #expect(prefs(["lint", good, scratch.file("nope")]).status == .noInput)
        #expect(prefs(["lint", scratch.path]).status == .cannotRead)
    }

    @Test(arguments: PlistFormat.allCases)
    func exportConvertsToEveryFormat(format: PlistFormat) throws {
        let scratch = try TemporaryDirectory()
        let source = try scratch.write("in.json", "{\"name\": \"prefs\", \"list\": [\"a\", \"b\"], \"nested\": {\"k\": \"v\"}}")
        let run = prefs(["export", source, "-", "--format", format.rawValue])
        #expect(run.status == .success, "\(run.error)")
        let (value, detected) = try PropertyList.decode(run.bytes)
        #expect(detected == format)
        #expect(value == ["name": "prefs", "list": ["a", "b"], "nested": ["k": "v"]])
    }

    @Test func exportWritesAFileAtomicallyKeepingItsMode() throws {
        let scratch = try TemporaryDirectory()
        let source = try scratch.write("in.plist", "<plist><integer>5</integer></plist>")
        let destination = try scratch.write("out.json", "old")
        chmod(destination, 0o640)
        #expect(prefs(["export", source, destination, "--format", "json"]).status == .success)
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "5\n")
        var info = stat()
        stat(destination, &info)
        #expect(info.st_mode & 0o777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["in.plist", "out.json"])
    }

    @Test func exportFollowsASymlinkAndKeepsIt() throws {
        let scratch = try TemporaryDirectory()
        let source = try scratch.write("in.json", "[true]")
        let target = try scratch.write("target.plist", "")
        try FileManager.default.createSymbolicLink(atPath: scratch.file("link.plist"), withDestinationPath: "target.plist")
        #expect(prefs(["export", source, scratch.file("link.plist")]).status == .success)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("link.plist")) == "target.plist")
        #expect(try PropertyList.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: target)))).value == [true])
    }

    @Test func exportReadsASuiteFromTheConfigDirectory() throws {
        let scratch = try TemporaryDirectory()
        try scratch.write("com.example.app.plist", "<plist><dict><key>k</key><string>v</string></dict></plist>")
        try scratch.write(".GlobalPreferences.plist", "<plist><dict><key>g</key><true/></dict></plist>")
        let environment = ["XDG_CONFIG_HOME": scratch.path, "HOME": "/nonexistent"]
        #expect(prefs(["export", "com.example.app", "-", "--format", "json"], environment: environment).output == "{\n  \"k\": \"v\"\n}\n")
        #expect(prefs(["export", "-g", "-", "--format", "json"], environment: environment).output == "{\n  \"g\": true\n}\n")
        #expect(prefs(["export", "NSGlobalDomain", "-", "--format", "json"], environment: environment).status == .success)
        let fallback = prefs(["export", "com.example.app", "-"], environment: ["HOME": scratch.path])
        #expect(fallback.status == .notFound)
        #expect(fallback.error == "prefs: com.example.app: no such suite\n")
    }

    @Test(arguments: [
        (["export", "in.json", "-", "--format", "yaml"], PrefsCore.ExitStatus.usage),
        (["export", "missing.plist", "-"], .noInput),
        (["export", "bad.plist", "-"], .dataError),
        (["export", "nan.plist", "-", "--format", "json"], .dataError),
        (["export", "date.plist", "-", "--format", "openstep"], .dataError),
        (["export", "in.json", "no/such/dir/out.plist"], .cannotWrite),
        (["export", ".hidden", "-"], .usage),
        (["export", "dir.plist", "-"], .cannotRead),
    ] as [([String], PrefsCore.ExitStatus)])
    func exportFailuresHaveTheirStatus(arguments: [String], status: PrefsCore.ExitStatus) throws {
        let scratch = try TemporaryDirectory()
        try scratch.write("in.json", "{}")
        try scratch.write("bad.plist", "<plist><dict></plist>")
        try scratch.write("nan.plist", "<plist><real>nan</real></plist>")
        try scratch.write("date.plist", "<plist><date>2020-01-01T00:00:00Z</date></plist>")
        try FileManager.default.createDirectory(atPath: scratch.file("dir.plist"), withIntermediateDirectories: false)
        let resolved = arguments.map { $0.contains(".") && !$0.hasPrefix(".") ? scratch.file($0) : $0 }
        let run = prefs(resolved, environment: ["XDG_CONFIG_HOME": scratch.path])
        #expect(run.status == status, "\(run.error)")
        #expect(run.output.isEmpty)
        #expect(run.error.hasPrefix("prefs: ") && run.error.filter { $0 == "\n" }.count == 1, "\(run.error)")
    }

    @Test func helpIsGeneratedFromTheTable() {
        let overview = prefs(["--help"])
        #expect(overview.status == .success)
        for verb in CommandTable.verbs {
            #expect(overview.output.contains("  " + verb.name + " "), "\(verb.name)")
            #expect(overview.output.contains(verb.verb.summary), "\(verb.name)")
            let help = prefs(["help", verb.name])
            #expect(help.output.hasPrefix("Usage: \(HelpText.usageLine(verb))\n"))
            #expect(prefs([verb.name, "--help"]).output == help.output)
        }
        #expect(prefs(["help", "nope"]).status == .usage)
        #expect(prefs(["--version"]).output == "prefs \(CommandTable.version)\nTLS for etcds:// stores: \(TLSLibrary.version)\n")
    }
}
