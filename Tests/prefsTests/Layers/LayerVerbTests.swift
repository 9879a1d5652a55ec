import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// Registered defaults, reset and conditional writes, in-process against an in-memory file system:
/// what reads answer and say about where it came from, and what each change leaves behind.
@Suite struct LayerVerbTests {
    static let userDefaults = "/home/u/.local/share/prefs/defaults/app.plist"
    static let shipped = "/usr/share/pkg/prefs/defaults/app.json"

    /// A home where a package ships defaults for `app`.
    static func shippedHome() throws -> InMemoryHome {
        let home = InMemoryHome()
        try home.fileSystem.write(shipped, Array(#"{"theme": "dark", "size": 12, "features": {"beta": false}}"#.utf8), mode: 0o444)
        return home
    }

    func registration(_ home: InMemoryHome, _ path: String = LayerVerbTests.userDefaults) throws -> PrefValue? {
        let bytes: [UInt8]
        do { bytes = try home.fileSystem.contents(of: path) } catch PrefsError.fileNotFound { return nil }
        return try PropertyList.decode(bytes).value
    }

    @Test func aRegisteredDefaultReadsUntilAWriteAndResetBringsItBack() throws {
        let home = try LayerVerbTests.shippedHome()
        #expect(home.run("read", "app", "theme").output == "dark\n")
        #expect(home.run("read", "app", "theme", "--origin").output == "registered:\(LayerVerbTests.shipped)\tdark\n")
        #expect(home.run("write", "app", "theme", "light").status == .success)
        #expect(home.run("read", "app", "theme", "--origin").output == "stored\tlight\n")
        #expect(home.run("reset", "app", "theme", "--exit-code").status == .changed)
        #expect(home.run("read", "app", "theme", "--origin").output == "registered:\(LayerVerbTests.shipped)\tdark\n")
        // Reset again: already at the default, and the empty suite's file is gone.
        #expect(home.run("reset", "app", "theme", "--exit-code").status == .success)
        #expect(try home.files().isEmpty)
        // delete keeps its meaning: the key is not stored, so there is nothing to delete.
        #expect(home.run("delete", "app", "theme").status == .notFound)
        #expect(home.run("read", "app", "theme", "--stored").status == .notFound)
        #expect(home.run("read", "app", "nope").status == .notFound)
        #expect(home.run("read", "other", "theme").status == .notFound)
    }

    @Test func originsArePrintedForAKeyASuiteAndAsJSON() throws {
        let home = try LayerVerbTests.shippedHome()
        home.run("write", "app", "name", "Two words", "features", "-dict", "beta", "-bool", "true")
        home.run("write", "-g", "size", "-int", "14", "AppleLocale", "en_GB")
        home.run("register", "app", "size", "-int", "10", "extra", "x")
        let user = LayerVerbTests.userDefaults, shipped = LayerVerbTests.shipped
        #expect(home.run("read", "app", "--origin").output == """
            global\tAppleLocale\ten_GB
            registered:\(user)\textra\tx
            stored\tfeatures\t{ beta = true; }
            stored\tname\t"Two words"
            global\tsize\t14
            registered:\(shipped)\ttheme\tdark

            """)
        #expect(home.run("read", "app", "--origin", "--keys").output == """
            global\tAppleLocale
            registered:\(user)\textra
            stored\tfeatures
            stored\tname
            global\tsize
            registered:\(shipped)\ttheme

            """)
        #expect(home.run("read", "app", "size", "--origin", "--json").output == "{\n  \"origin\": \"global\",\n  \"value\": 14\n}\n")
        #expect(home.run("read", "app", "--stored", "--origin", "--json").output == """
            {
              "features": {
                "origin": "stored",
                "value": {
                  "beta": true
                }
              },
              "name": {
                "origin": "stored",
                "value": "Two words"
              }
            }

            """)
        #expect(home.run("read", "app", "features", "--origin").output == "stored\t{\n    beta = true;\n}\n")
        #expect(home.run("read", "app", "features", "--origin", "--keys").output == "stored\tbeta\n")
        #expect(home.run("read-type", "app", "extra", "--origin").output == "registered:\(user)\tstring\n")
        #expect(home.run("read-type", "app", "size").output == "integer\n")
        #expect(home.run("read", "app").output == """
            {
                AppleLocale = en_GB;
                extra = x;
                features = {
                    beta = true;
                };
                name = "Two words";
                size = 14;
                theme = dark;
            }

            """)
        #expect(home.run("read", "app", "--stored", "--keys").output == "features\nname\n")
        // A dictionary comes whole from its highest layer: the shipped features are not merged in.
        #expect(home.run("read", "app", ":features:beta").output == "true\n")
    }

    @Test func commandLineDefaultsWinOverTheFilesAndAreNeverStored() throws {
        let home = try LayerVerbTests.shippedHome()
        try home.fileSystem.write("/tmp/a.plist", try PropertyList.encode(["theme": "a", "only": "a"], as: .xml))
        try home.fileSystem.write("/tmp/b.json", Array(#"{"theme": "b"}"#.utf8))
        let run = home.run("read", "app", "--origin", "--defaults", "/tmp/a.plist", "--defaults=/tmp/b.json")
        #expect(run.output.contains("command-line\ttheme\tb\n") && run.output.contains("command-line\tonly\ta\n"), "\(run.output)")
        #expect(home.run("read", "app", "theme", "--defaults", "/tmp/a.plist").output == "a\n")
        #expect(home.run("export", "app", "-", "--effective", "--defaults", "/tmp/a.plist", "--format", "json").output
            == "{\n  \"features\": {\n    \"beta\": false\n  },\n  \"only\": \"a\",\n  \"size\": 12,\n  \"theme\": \"a\"\n}\n")
        #expect(try home.files().isEmpty && registration(home) == nil)
        let missing = home.run("read", "app", "theme", "--defaults", "/tmp/none.plist")
        #expect(missing.status == .noInput && missing.error == "prefs: /tmp/none.plist: no such file\n")
        #expect(home.run("read", "app", "--defaults", "/tmp/a.plist", "--stored").status == .usage)
        #expect(home.run("read", "/tmp/a.plist", "--defaults", "/tmp/b.json").status == .usage)
        #expect(home.run("read", "--origin").status == .usage)
        #expect(home.run("read", "app", "theme", "--defaults", "-").status == .usage)
        #expect(home.run("read", "-", "--defaults", "/tmp/a.plist").status == .usage)
        #expect(home.run("read-type", "-", "k", "--defaults", "/tmp/a.plist").status == .usage)
        #expect(home.run("export", "app", "-", "--defaults", "/tmp/a.plist").status == .usage)
        // export without --effective is the stored values only: here there are none.
        #expect(home.run("export", "app", "-").status == .notFound)
    }

    @Test func aMalformedRegistrationFileIsADataErrorNamingIt() throws {
        let home = try LayerVerbTests.shippedHome()
        home.run("write", "app", "theme", "light")
        try home.fileSystem.write(LayerVerbTests.userDefaults, Array("<plist><dict><key>a</key></dict></plist>".utf8))
        for arguments in [["read", "app", "theme"], ["read", "app"], ["read-type", "app", "theme"]] {
            let run = home.run(arguments)
            #expect(run.status == .dataError && run.output.isEmpty, "\(arguments)")
            #expect(run.error.hasPrefix("prefs: \(LayerVerbTests.userDefaults): XML plist: "), "\(run.error)")
        }
        #expect(home.run("read", "app", "theme", "--stored").output == "light\n")
        // register refuses to change it too, and leaves it as it was.
        let before = home.fileSystem.snapshot()
        #expect(home.run("register", "app", "k", "v").status == .dataError)
        #expect(home.fileSystem.snapshot() == before)
    }

    @Test func registerMergesReplacesAndDeletesButNeverTouchesTheSuite() throws {
        let home = InMemoryHome()
        try home.fileSystem.write("/tmp/defaults.json", Array(#"{"a": 1, "b": [true], "c": {"d": "e"}}"#.utf8))
        #expect(home.run("register", "app", "/tmp/defaults.json", "--exit-code").status == .changed)
        #expect(try registration(home) == ["a": 1, "b": [true], "c": ["d": "e"]])
        #expect(home.run("register", "app", "/tmp/defaults.json", "--exit-code").status == .success)
        #expect(home.run("register", "app", "{ a = 2; z = zz; }").status == .success)
        #expect(home.run("register", "app", "<plist><dict><key>z</key><string>zz</string></dict></plist>").status == .success)
        #expect(try registration(home) == ["a": "2", "b": [true], "c": ["d": "e"], "z": "zz"])
        #expect(home.run("register", "app", "a", "-int", "3", ":c:f", "-bool", "yes").status == .success)
        #expect(try registration(home) == ["a": 3, "b": [true], "c": ["d": "e", "f": true], "z": "zz"])
        #expect(home.run("register", "app", "b", "-array-add", "-int", "4").status == .success)
        #expect(home.run("register", "app", "n", "-int-add", "2").output == "2\n")
        home.run("register", "app", "--delete", "n")
        #expect(try registration(home) == ["a": 3, "b": [true, 4], "c": ["d": "e", "f": true], "z": "zz"])
        #expect(home.run("register", "app", "--replace", "only", "-float", "1.5").status == .success)
        #expect(try registration(home) == ["only": 1.5])
        #expect(try home.files().isEmpty)
        #expect(home.run("read", "app", "only", "--origin").output == "registered:\(LayerVerbTests.userDefaults)\t1.5\n")
        // --delete: all or nothing, and a key that is not registered is 1.
        home.run("register", "app", "x", "1", "y", "2")
        let missing = home.run("register", "app", "--delete", "x", "--delete", "nope")
        #expect(missing.status == .notFound && missing.error == "prefs: app (registered): no key nope\n")
        #expect(try registration(home) == ["only": 1.5, "x": "1", "y": "2"])
        #expect(home.run("register", "app", "--delete", "x", "--delete", "y", "--delete", "only").status == .success)
        #expect(try registration(home) == nil)
        // Bad input changes nothing.
        home.run("register", "app", "k", "v")
        try home.fileSystem.write("/tmp/list.plist", try PropertyList.encode([1, 2], as: .xml))
        let before = home.fileSystem.snapshot()
        for (arguments, status) in [(["register", "app", "/tmp/missing.plist"], PrefsCore.ExitStatus.noInput),
                                    (["register", "app", "k", "-int", "x"], .dataError),
                                    (["register", "app", "{ unterminated"], .dataError),
                                    (["register", "app"], .usage),
                                    // With --delete, every word after the domain is a key to remove: v is not registered.
                                    (["register", "app", "k", "v", "--delete", "k"], .notFound),
                                    (["register", "app", "k", "--delete", "k", "--replace"], .usage),
                                    (["register", "/tmp/defaults.json", "k", "v"], .usage),
                                    (["register", "-", "k", "v"], .usage)] {
            #expect(home.run(arguments).status == status, "\(arguments)")
            #expect(home.fileSystem.snapshot() == before, "\(arguments)")
        }
        #expect(home.run("register", "app", "/tmp/list.plist").status == .dataError)
        #expect(home.fileSystem.snapshot() == before)
    }

    @Test func registerKeepsAUsersJSONFileAndItsFormatsLimits() throws {
        let home = InMemoryHome()
        let json = "/home/u/.local/share/prefs/defaults/app.json"
        try home.fileSystem.write(json, Array(#"{"a": 1}"#.utf8))
        #expect(home.run("register", "app", "b", "-bool", "true").status == .success)
        #expect(try home.fileSystem.contents(of: json) == Array("{\n  \"a\": 1,\n  \"b\": true\n}\n".utf8))
        let date = home.run("register", "app", "when", "-date", "2026-01-01")
        #expect(date.status == .dataError && date.error.contains("cannot hold a value of type date"), "\(date.error)")
        #expect(home.run("register", "-g", "AppleLocale", "en_GB").status == .success)
        #expect(home.run("read", "-g", "AppleLocale", "--origin").output
            == "registered:/home/u/.local/share/prefs/defaults/NSGlobalDomain.plist\ten_GB\n")
    }

    @Test func resetRemovesStoredValuesAndTheEmptyFile() throws {
        let home = try LayerVerbTests.shippedHome()
        home.run("write", "app", "theme", "light", "size", "-int", "20", "mine", "x", "nested", "-dict", "a", "1", "b", "2")
        #expect(home.run("reset", "app", "theme", "size", "absent", ":nested:a").status == .success)
        #expect(try home.suite("app") == ["mine": "x", "nested": ["b": "2"]])
        #expect(home.run("read", "app", "size").output == "12\n")
        #expect(home.run("reset", "app", ":mine:deeper").status == .dataError)
        #expect(home.run("reset", "app", "--exit-code").status == .changed)
        #expect(try home.files().isEmpty)
        #expect(home.run("reset", "app", "--exit-code").status == .success)
        let untouched = InMemoryHome()
        #expect(untouched.run("reset", "never-written", "k").status == .success)
        #expect(try untouched.fileSystem.status(of: "/home/u/.config") == nil)
        // A file named by its path is kept, empty.
        try home.fileSystem.write("/tmp/file.plist", try PropertyList.encode(["k": 1], as: .xml))
        #expect(home.run("reset", "/tmp/file.plist", "k", "--exit-code").status == .changed)
        #expect(try PropertyList.decode(try home.fileSystem.contents(of: "/tmp/file.plist")).value == [:])
        // A suite that cannot be parsed is never reset.
        try home.fileSystem.write("/home/u/.config/bad.plist", Array("<plist><dict>".utf8))
        #expect(home.run("reset", "bad").status == .dataError)
        #expect(try home.fileSystem.contents(of: "/home/u/.config/bad.plist") == Array("<plist><dict>".utf8))
    }

    @Test func dryRunPrintsTheChangesAndChangesNothing() throws {
        let home = try LayerVerbTests.shippedHome()
        let fresh = home.fileSystem.snapshot()
        let first = home.run("write", "app", "a", "1", "list", "-array", "x", "y", "--dry-run", "--exit-code")
        #expect(first.status == .changed && first.output == "+ a = \"1\"\n+ list = (x, y)\n")
        #expect(home.fileSystem.snapshot() == fresh)
        home.run("write", "app", "a", "1", "b", "-int", "2", "d", "-dict", "k", "v")
        let before = home.fileSystem.snapshot()
        let cases: [([String], String, PrefsCore.ExitStatus)] = [
            (["write", "app", "a", "two words", "c", "-bool", "no"], "~ a = \"1\" -> \"two words\"\n+ c = false\n", .changed),
            (["write", "app", "a", "1"], "", .success),
            (["write", "app", "b", "-int-add", "5"], "~ b = 2 -> 7\n", .changed),
            (["delete", "app", "b"], "- b = 2\n", .changed),
            (["delete", "app"], "- a = \"1\"\n- b = 2\n- d = { k = v; }\n", .changed),
            (["rename", "app", "a", ":d:a"], "- a = \"1\"\n~ d = { k = v; } -> { a = \"1\"; k = v; }\n", .changed),
            (["reset", "app", "a", "nope"], "- a = \"1\"\n", .changed),
            (["reset", "app", "nope"], "", .success),
            (["register", "app", "theme", "blue"], "+ theme = blue\n", .changed),
        ]
        for (arguments, report, status) in cases {
            let run = home.run(arguments + ["--dry-run", "--exit-code"])
            #expect(run.output == report && run.status == status, "\(arguments): \(run.output) \(run.error)")
        }
        #expect(home.run("delete", "app", "nope", "--dry-run").status == .notFound)
        #expect(home.run("write", "app", "b", "-int-add", "x", "--dry-run").status == .dataError)
        #expect(home.fileSystem.snapshot() == before)
    }

    @Test func ifAbsentSkipsStoredKeys() throws {
        let home = InMemoryHome()
        home.run("write", "app", "a", "mine")
        #expect(home.run("write", "app", "a", "theirs", "b", "-int", "2", "--if-absent", "--exit-code").status == .changed)
        #expect(try home.suite("app") == ["a": "mine", "b": 2])
        #expect(home.run("write", "app", "a", "x", "b", "-int", "3", "--if-absent", "--exit-code").status == .success)
        #expect(home.run("write", "app", "{ a = y; c = z; }", "--if-absent").status == .success)
        #expect(try home.suite("app") == ["a": "mine", "b": 2, "c": "z"])
    }

    @Test func ifEqualsIsACompareAndSetTypedAsTheNewValue() throws {
        let home = InMemoryHome()
        home.run("write", "app", "state", "idle", "n", "-int", "5", "f", "-float", "0.5")
        #expect(home.run("write", "app", "state", "busy", "--if-equals", "idle").status == .success)
        let lost = home.run("write", "app", "state", "busy", "--if-equals", "idle")
        #expect(lost.status == .conditionFailed)
        #expect(lost.error == "prefs: app: state: is busy, not idle (--if-equals); nothing changed\n")
        #expect(home.run("write", "app", "n", "-int", "6", "--if-equals", "5").status == .success)
        // The string "6" is not the integer 6.
        #expect(home.run("write", "app", "n", "7", "--if-equals", "6").status == .conditionFailed)
        #expect(home.run("write", "app", "n", "-int-add", "1", "--if-equals", "6").output == "7\n")
        #expect(home.run("write", "app", "f", "-float-add", "1", "--if-equals", "0.5").output == "1.5\n")
        let absent = home.run("write", "app", "new", "v", "--if-equals", "x")
        #expect(absent.status == .conditionFailed && absent.error.contains("new: is not stored, not x"), "\(absent.error)")
        let badExpected = home.run("write", "app", "n", "-int-add", "1", "--if-equals", "seven")
        #expect(badExpected.status == .dataError)
        #expect(badExpected.error == "prefs: app: n: --if-equals \"seven\": not a decimal integer from -9223372036854775808 to 18446744073709551615\n")
        #expect(home.run("write", "app", "n", "-int", "1", "--if-equals", "seven").error == badExpected.error)
        #expect(home.run("write", "app", "a", "1", "b", "2", "--if-equals", "x").status == .usage)
        #expect(home.run("write", "app", "a", "1", "--if-equals", "x", "--if-absent").status == .usage)
        #expect(home.run("write", "app", "{ a = 1; }", "--if-equals", "x").status == .usage)
        #expect(try home.suite("app") == ["state": "busy", "n": 7, "f": 1.5])
    }

    @Test func countersAddUnderTheLockAndRefuseNonNumbers() throws {
        let home = InMemoryHome()
        #expect(home.run("write", "app", "n", "-int-add", "5").output == "5\n")
        #expect(home.run("write", "app", "n", "-int-add", "-7", "m", "-float-add", "0.25", ":deep:count", "-int-add", "1").output == "-2\n0.25\n1\n")
        #expect(home.run("write", "app", "n", "-int", "9223372036854775807").status == .success)
        #expect(home.run("write", "app", "n", "-int-add", "1").output == "9223372036854775808\n")
        #expect(try home.suite("app") == ["n": .unsignedInteger(9_223_372_036_854_775_808), "m": 0.25, "deep": ["count": 1]])
        home.run("write", "app", "s", "12", "b", "-bool", "true")
        let before = try home.files()
        for (arguments, message) in [
            (["s", "-int-add", "1"], "prefs: app: s: -int-add needs an integer, and the value is a string\n"),
            (["b", "-int-add", "1"], "prefs: app: b: -int-add needs an integer, and the value is a boolean\n"),
            (["m", "-int-add", "1"], "prefs: app: m: -int-add needs an integer, and the value is a float (use -float-add)\n"),
            (["n", "-float-add", "1"], "prefs: app: n: -float-add needs a float, and the value is an integer (use -int-add)\n"),
            (["n", "-int-add", "18446744073709551615"], "prefs: app: n: adding 18446744073709551615 to 9223372036854775808 leaves the integer range\n"),
            (["n", "-int-add", "1.5"], "prefs: app: n: -int-add \"1.5\": not a decimal integer from -9223372036854775808 to 18446744073709551615\n"),
            (["m", "-float-add", "one"], "prefs: app: m: -float-add \"one\": not a 64-bit real number\n"),
        ] {
            let run = home.run(["write", "app", "ok", "1"] + arguments)
            #expect(run.status == .dataError && run.error == message, "\(arguments): \(run.error)")
        }
        #expect(home.run("write", "app", "n", "-int-add").status == .usage)
        #expect(try home.files() == before)
    }
}
