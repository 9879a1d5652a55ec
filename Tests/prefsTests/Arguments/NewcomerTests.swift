import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// A newcomer's first mistakes meet the way out: each gets the form that works, with its status,
/// and changes nothing (in-process, on an in-memory home).
@Suite struct NewcomerTests {
    /// `prefs` alone prints the usage and the verbs on standard error, as `git` alone does, and 64.
    @Test func bareprefsPrintsTheUsage() {
        let run = InMemoryHome().run([])
        #expect(run.status == .usage)
        #expect(run.output == "")
        #expect(run.error.contains("\nUsage: prefs VERB [OPTIONS] [ARGUMENTS]\n"))
        for verb in CommandTable.verbs { #expect(run.error.contains("\n  \(verb.name) "), "\(verb.name) is listed") }
        #expect(run.error.hasSuffix("\nprefs --help adds the options and exit statuses; man prefs has the rest.\n"))
    }

    /// `help exec` shows the options where they go: before `--`, after which every word is the
    /// command's.
    @Test func theOptionsOfAVerbThatRunsACommandComeBeforeTheDashes() {
        let help = InMemoryHome().run("help", "exec")
        #expect(help.output.hasPrefix("Usage: prefs exec DOMAIN [DOMAIN...] [OPTIONS] -- COMMAND [ARG...]\n"))
        for verb in CommandTable.verbs where verb.usage.contains(" -- ") {
            let line = HelpText.usageLine(verb)
            #expect(line.contains("[OPTIONS] -- ") && !line.hasSuffix("[OPTIONS]"), "\(line)")
        }
        #expect(InMemoryHome().run("help", "read").output.hasPrefix("Usage: prefs read [DOMAIN [KEY]] [OPTIONS]\n"))
    }

    @Test(arguments: [
        (["-v"], "prefs: unknown option '-v' (did you mean --version?)\n"),
        (["-V"], "prefs: unknown option '-V' (did you mean --version?)\n"),
        (["version"], "prefs: unknown verb 'version' (did you mean --version?)\n"),
        (["write", "app", "k", "--bool", "yes"], "prefs: write: unknown option '--bool' (did you mean -bool? type flags take one dash)\n"),
        (["write", "app", "k", "--int", "5"], "prefs: write: unknown option '--int' (did you mean -int? type flags take one dash)\n"),
        (["write", "app", "k=v"], "prefs: app: no value for key k=v (KEY and VALUE are two words: k v)\n"),
        (["write", "app", "a", "1", "url=http://x/?q=1"], "prefs: app: no value for key url=http://x/?q=1 (KEY and VALUE are two words: url http://x/?q=1)\n"),
        (["write", "app", "k="], "prefs: app: no value for key k= (KEY and VALUE are two words: k '')\n"),
        (["import", "app", "settings.ini"],
         "prefs: import: settings.ini is an INI file; import reads property lists and JSON: use prefs migrate app settings.ini\n"),
        (["import", "app", "/srv/.env"], "prefs: import: /srv/.env is a .env file; import reads property lists and JSON: use prefs migrate app /srv/.env\n"),
        (["export", "app", "/home/u/out.yaml"],
         "prefs: export: prefs does not write .yaml files: give --format (binary, xml, openstep, json, typed-json, sh, env, github)\n"),
    ] as [([String], String)])
    func aFirstMistakeGetsTheFormThatWorks(arguments: [String], error: String) throws {
        let home = InMemoryHome()
        home.run("write", "app", "kept", "1")
        let before = try home.files()
        #expect(home.run(arguments) == (.usage, "", error))
        #expect(try home.files() == before)
        #expect(try home.fileSystem.status(of: "/home/u/out.yaml") == nil)
    }

    /// `export S out.env` writes what `--format env` writes, `.sh` what `sh` writes; no PATH is
    /// standard output; a --format given wins over the ending.
    @Test func exportTakesTheFormatFromThePathsEnding() throws {
        let home = InMemoryHome()
        home.run("write", "app", "PORT", "-int", "8080", "NAME", "it's")
        #expect(home.run("export", "app", "/home/u/out.env").status == .success)
        #expect(try home.fileSystem.contents(of: "/home/u/out.env") == Array(home.run("export", "app", "-", "--format", "env").output.utf8))
        #expect(home.run("export", "app", "/home/u/out.sh").status == .success)
        #expect(String(decoding: try home.fileSystem.contents(of: "/home/u/out.sh"), as: UTF8.self) == "export NAME='it'\\''s'\nexport PORT='8080'\n")
        #expect(home.run("export", "app", "/home/u/out.JSON").status == .success)
        #expect(try home.fileSystem.contents(of: "/home/u/out.JSON").first == UInt8(ascii: "{"))
        #expect(home.run("export", "app", "/home/u/out.yaml", "--format", "json").status == .success)
        let standardOutput = home.run("export", "app")
        #expect(standardOutput.status == .success)
        #expect(standardOutput.output == home.run("export", "app", "-").output)
        #expect(standardOutput.output.hasPrefix("<?xml"))
    }

    /// A dotted key that is not there while its first part holds a dictionary points to the key
    /// path; a mistyped suite gets the closest one. Both are still "not found" (1).
    @Test func aMissingKeyOrSuiteGetsWhatWasMeant() {
        let home = InMemoryHome()
        home.run("write", "db", "database", "-dict", "pool", "5")
        home.run("write", "db", "plain", "x")
        #expect(home.run("read", "db", "database.pool") == (.notFound, "", "prefs: db: no key database.pool (database is a dictionary: a key inside it is the key path :database:pool)\n"))
        #expect(home.run("read", "db", "database/pool").error.hasSuffix("the key path :database:pool)\n"))
        #expect(home.run("read", "db", ":database:pool") == (.success, "5\n", ""))
        #expect(home.run("read", "db", "plain.x") == (.notFound, "", "prefs: db: no key plain.x\n"))
        #expect(home.run("read", "dbb") == (.notFound, "", "prefs: dbb: no such suite (did you mean db?)\n"))
        #expect(home.run("read", "zzzzzz") == (.notFound, "", "prefs: zzzzzz: no such suite\n"))
        // A key with a dot that exists is read as it is.
        home.run("write", "db", "a.b", "1")
        #expect(home.run("read", "db", "a.b") == (.success, "1\n", ""))
    }

    /// A dry run shows a large value by its type, size and SHA-256 (that of the bytes, as
    /// sha256sum gives it), not 1.3 MB of text; a small one whole.
    @Test func aDryRunSummarisesLargeValues() throws {
        let home = InMemoryHome()
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let text = String(repeating: "é", count: 600)
        home.run("write", "app", "small", "x", "text", text)
        let run = home.run("write", "app", "blob", "-data", Hex.encode(bytes), "text", "short", "--dry-run")
        #expect(run.status == .success)
        #expect(run.output == """
            + blob = <data: 5000 bytes, sha256 \(Hex.encode(SHA256.hash(bytes)))>
            ~ text = <string: 1200 bytes of UTF-8, sha256 \(Hex.encode(SHA256.hash(Array(text.utf8))))> -> short

            """)
        #expect(home.run("write", "app", "small", "y", "--dry-run").output == "~ small = x -> y\n")
    }
}
