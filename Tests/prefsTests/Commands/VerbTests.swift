import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// The defaults verbs, in-process against an in-memory file system (an `InMemoryHome`): what they
/// print, their exit status, and what they leave in the store.
@Suite(.runsProcesses) struct VerbTests {
    @Test func writeTypesValuesAsDefaultsDoes() throws {
        let home = InMemoryHome()
        let run = home.run("write", "app", "s", "text", "i", "-int", "-42", "u", "-integer", "18446744073709551615",
                          "f", "-float", "0.1", "b", "-bool", "YES", "b2", "-boolean", "no", "d", "-date", "2026-01-02 03:04:05 +0000",
                          "x", "-data", "0A0b", "j", "-json", #"{"n": [1, 2.5]}"#,
                          "str", "-string", "-int", "p", "(en, fr)", "q", "{ a = b; }")
        #expect(run.status == .success, "\(run.error)")
        #expect(try home.suite("app") == [
            "s": "text", "i": -42, "u": .unsignedInteger(.max), "f": 0.1, "b": true, "b2": false,
            "d": .date(PrefDate(iso8601: "2026-01-02T03:04:05Z")!), "x": .data([10, 11]), "j": ["n": [1, 2.5]],
            "str": "-int", "p": ["en", "fr"], "q": ["a": "b"],
        ])
    }

    /// JSON `null` has no property-list value: a `-json` value holding one, anywhere, is refused
    /// (65, one line saying where), and nothing of the write is kept.
    @Test(arguments: [
        (#"{"n": [1, 2.5, null]}"#, "line 1, column 16"), ("null", "line 1, column 1"), (#"{"a": {"b": null}}"#, "line 1, column 13"),
    ])
    func aJSONNullIsRefusedAndChangesNothing(json: String, place: String) throws {
        let home = InMemoryHome()
        home.run("write", "app", "k", "v")
        let before = try home.files()
        let run = home.run("write", "app", "other", "1", "j", "-json", json)
        #expect(run == (.dataError, "", "prefs: app: j: -json: JSON: \(place): null has no property-list value\n"))
        #expect(try home.files() == before)
    }

    /// argv cannot hold a NUL byte, but the command called in-process can, and so can a file the
    /// value is read from. In a string value a NUL is an ordinary character, stored and read back
    /// exactly (`--raw`: the bytes; `--json`: `\u0000`).
    @Test func aNULInAStringValueIsKeptExactly() throws {
        let home = InMemoryHome()
        // Files named by -string-file are read from the disk, not through the store's file system.
        let scratch = try TemporaryDirectory()
        let text = try scratch.write("text", [0x78, 0x00, 0x79, 0x00])
        let run = home.run("write", "app", "typed", "-string", "a\0b", "bare", "\0", "file", "-string-file", text)
        #expect(run.status == .success, "\(run.error)")
        #expect(try home.suite("app") == ["typed": "a\0b", "bare": "\0", "file": "x\0y\0"])
        #expect(prefs(["read", "app", "typed", "--raw"], environment: home.environment, fileSystem: home.fileSystem).bytes == [0x61, 0x00, 0x62])
        #expect(prefs(["read", "app", "file", "--raw"], environment: home.environment, fileSystem: home.fileSystem).bytes == [0x78, 0x00, 0x79, 0x00])
        #expect(home.run("read", "app", "bare", "--json").output == "\"\\u0000\"\n")
        #expect(home.run("read-type", "app", "typed").output == "string\n")
    }

    /// The same through standard input, with the real binary.
    @Test func aNULFromStandardInputIsKeptExactly() async throws {
        let sandbox = try ProcessSandbox()
        let text: [UInt8] = [0x00, 0x61, 0x00, 0x00, 0x62, 0x0A, 0x00]
        let write = try await sandbox.prefs("write", "app", "s", "-string-file", "-", input: text)
        #expect(write.status == 0 && write.error.isEmpty, "\(write.error)")
        let read = try await sandbox.prefs("read", "app", "s", "--raw")
        #expect(read.status == 0 && read.output == text, "\(read.output) \(read.error)")
        #expect(try sandbox.suite("app") == ["s": .string(String(decoding: text, as: UTF8.self))])
    }

    /// A NUL in a key, a key path, a suite name or a path is refused before any file is touched,
    /// with one line that says so.
    @Test(arguments: [
        (["write", "app", "k\0", "v"], "prefs: app: a key cannot contain NUL\n"),
        (["write", "app", ":a:\0b", "v"], "prefs: app: a key cannot contain NUL\n"),
        (["read", "app", "\0"], "prefs: app: a key cannot contain NUL\n"),
        (["delete", "app", "k\0"], "prefs: app: a key cannot contain NUL\n"),
        (["rename", "app", "k", "k\0"], "prefs: app: a key cannot contain NUL\n"),
        (["write", "/home/u/.config/app.plist\0x", "k", "v"], "prefs: a path cannot contain NUL\n"),
    ])
    func aNULInANameIsAUsageError(arguments: [String], message: String) throws {
        let home = InMemoryHome()
        home.run("write", "app", "k", "v")
        let before = home.fileSystem.snapshot()
        let run = home.run(arguments)
        #expect(run == (.usage, "", message))
        #expect(home.fileSystem.snapshot() == before)
    }

    @Test func arraysAndDictionariesTakeTypedItems() throws {
        let home = InMemoryHome()
        home.run("write", "app", "list", "-array", "a", "-int", "2", "-bool", "true", "-date", "2026-01-02")
        home.run("write", "app", "more", "-array-add", "x")
        home.run("write", "app", "list", "-array-add", "-float", "1.5")
        home.run("write", "app", "map", "-dict", "w", "-int", "640", "t", "main")
        home.run("write", "app", "map", "-dict-add", "h", "-int", "480", "t", "-string", "other")
        #expect(try home.suite("app") == [
            "list": ["a", 2, true, .date(PrefDate(iso8601: "2026-01-02")!), 1.5], "more": ["x"],
            "map": ["w": 640, "h": 480, "t": "other"],
        ])
        #expect(home.run("write", "app", "map", "-array-add", "x").status == .dataError)
        #expect(home.run("write", "app", "list", "-dict-add", "k", "v").status == .dataError)
    }

    @Test func severalKeysGoInOneWriteAndABadOneChangesNothing() throws {
        let home = InMemoryHome()
        home.run("write", "app", "a", "1", "b", "-int", "2")
        let before = try home.files()
        let failed = home.run("write", "app", "c", "3", "d", "-int", "four", "e", "5")
        #expect(failed.status == .dataError)
        #expect(failed.error == "prefs: app: d: -int \"four\": not a decimal integer from -9223372036854775808 to 18446744073709551615\n")
        #expect(try home.files() == before)
    }

    @Test func writeReplacesTheWholeDomainFromPlistText() throws {
        let home = InMemoryHome()
        home.run("write", "app", "old", "1")
        #expect(home.run("write", "app", "{ new = (1, 2); }").status == .success)
        #expect(try home.suite("app") == ["new": ["1", "2"]])
        #expect(home.run("write", "app", "<plist><dict><key>x</key><true/></dict></plist>").status == .success)
        #expect(try home.suite("app") == ["x": true])
        #expect(home.run("write", "app", "(not, a, dictionary)").status == .dataError)
        #expect(try home.suite("app") == ["x": true])
    }

    @Test func readPrintsBareScalarsAndReadableContainers() throws {
        let home = InMemoryHome()
        home.run("write", "app", "name", "Hello world", "n", "-int", "30", "r", "-float", "2", "t", "-bool", "true",
                "d", "-date", "2026-01-02T03:04:05Z", "x", "-data", "00ff", "big", "-int", "18446744073709551615")
        // An XML suite keeps whole seconds (a fraction is refused there); a binary one keeps the fraction.
        try home.fileSystem.write("/home/u/.config/bin.plist", try BinaryPlistEncoder.encode([:]))
        home.run("write", "bin", "d", "-date", "2026-01-02T03:04:05.25Z")
        #expect(home.run("read", "bin", "d").output == "2026-01-02T03:04:05.25Z\n")
        home.run("write", "app", "list", "-array", "a", "true", "-int", "5", "two words", "")
        for (key, expected) in [("name", "Hello world"), ("n", "30"), ("r", "2.0"), ("t", "true"), ("d", "2026-01-02T03:04:05Z"),
                                ("x", "00ff"), ("big", "18446744073709551615")] {
            #expect(home.run("read", "app", key).output == expected + "\n", "\(key)")
        }
        #expect(home.run("read", "app", "list").output == """
            (
                a,
                "true",
                5,
                "two words",
                ""
            )

            """)
        #expect(home.run("read", "app", ":list:1").output == "true\n")
        #expect(home.run("read", "app", "n", "--json").output == "30\n")
        #expect(home.run("read", "app", "list", "--json").output == "[\n  \"a\",\n  \"true\",\n  5,\n  \"two words\",\n  \"\"\n]\n")
        #expect(home.run("read", "app", "--keys").output == "big\nd\nlist\nn\nname\nr\nt\nx\n")
        #expect(home.run("read-type", "app", "d").output == "date\n")
        #expect(home.run("read-type", "app", "r").output == "float\n")
        #expect(home.run("read-type", "app", "t").output == "boolean\n")
    }

    @Test func readWithoutADomainShowsEverySuite() throws {
        let home = InMemoryHome()
        home.run("write", "b.app", "k", "v")
        home.run("write", "a.app", "k", "-int", "1")
        home.run("write", "-g", "AppleLocale", "en_US")
        #expect(home.run("read").output == """
            {
                NSGlobalDomain = {
                    AppleLocale = en_US;
                };
                a.app = {
                    k = 1;
                };
                b.app = {
                    k = v;
                };
            }

            """)
        // The global suite holds values, so domains lists it, under the name that reads it.
        #expect(home.run("domains").output == "NSGlobalDomain\na.app\nb.app\n")
        #expect(home.run("read", "NSGlobalDomain", "AppleLocale").output == "en_US\n")
        #expect(try home.fileSystem.status(of: "/home/u/.config/.GlobalPreferences.plist") != nil)
    }

    @Test func missingThingsExitOne() throws {
        let home = InMemoryHome()
        #expect(home.run("read", "nope") == (.notFound, "", "prefs: nope: no such suite\n"))
        #expect(home.run("read", "nope", "k").status == .notFound)
        home.run("write", "app", "k", "v")
        #expect(home.run("read", "app", "missing") == (.notFound, "", "prefs: app: no key missing\n"))
        #expect(home.run("read-type", "app", "missing").status == .notFound)
        #expect(home.run("delete", "app", "missing").status == .notFound)
        #expect(home.run("rename", "app", "missing", "x").status == .notFound)
        #expect(home.run("delete", "nope").status == .notFound)
        #expect(home.run("find", "zzz").status == .notFound)
    }

    @Test func deleteAndRename() throws {
        let home = InMemoryHome()
        home.run("write", "app", "a", "1", "b", "2", ":c:d", "3")
        #expect(home.run("delete", "app", "a").status == .success)
        #expect(home.run("rename", "app", "b", ":c:e").status == .success)
        #expect(home.run("delete", "app", ":c:d").status == .success)
        #expect(try home.suite("app") == ["c": ["e": "2"]])
        #expect(home.run("delete", "app").status == .success)
        #expect(try home.suite("app") == nil)
        #expect(try home.files().isEmpty)
    }

    @Test func keyPathsAndLiteralKeys() throws {
        let home = InMemoryHome()
        home.run("write", "app", "com.example.key with spaces", "1", "a:b", "literal", ":\\:x", "colon", ":p\\:q:r", "nested")
        #expect(try home.suite("app") == ["com.example.key with spaces": "1", "a:b": "literal", ":x": "colon", "p:q": ["r": "nested"]])
        #expect(home.run("read", "app", ":a\\:b").output == "literal\n")
        #expect(home.run("read", "app", ":x").status == .notFound)
        #expect(home.run("read", "app", ":\\:x").output == "colon\n")
        home.run("write", "app", ":list:0", "first")
        #expect(home.run("read", "app", "list", "--json").output == "{\n  \"0\": \"first\"\n}\n")
    }

    @Test func findSearchesNamesKeysAndStrings() throws {
        let home = InMemoryHome()
        home.run("write", "com.example.Finder", "ShowAll", "-bool", "true")
        home.run("write", "other", "title", "Finder window", "nested", "-dict", "finderish", "x", "n", "5")
        let found = home.run("find", "FINDER")
        #expect(found.status == .success)
        #expect(found.output == "com.example.Finder\nother\t:nested:finderish\nother\ttitle\n")
        let json = home.run("find", "finder", "--json")
        #expect(try PropertyList.decode(Array(json.output.utf8)).value == [
            ["suite": "com.example.Finder"],
            ["suite": "other", "key": ":nested:finderish", "value": "x"],
            ["suite": "other", "key": "title", "value": "Finder window"],
        ])
    }

    @Test func filesAreEditedInTheFormatTheyHave() throws {
        let home = InMemoryHome()
        try home.fileSystem.write("/data/settings.json", Array("{\"a\": 1}".utf8))
        #expect(home.run("write", "/data/settings.json", "b", "-bool", "true").status == .success)
        #expect(try PropertyList.decode(home.fileSystem.contents(of: "/data/settings.json")) == (["a": 1, "b": true], .json))
        #expect(home.run("write", "/data/new.json", "k", "v").status == .success)
        #expect(try PropertyList.decode(home.fileSystem.contents(of: "/data/new.json")).format == .json)
        #expect(home.run("read", "/data/settings.json", "b").output == "true\n")
    }
}

/// Bad input of every kind: its exit status, a one-line message, and a store left byte-identical.
@Suite struct BadInputTests {
    static let cases: [([String], PrefsCore.ExitStatus)] = [
        (["write", "app", "k", "-int", "abc"], .dataError),
        (["write", "app", "k", "-int", "99999999999999999999"], .dataError),
        (["write", "app", "k", "-int", "1.5"], .dataError),
        (["write", "app", "k", "-int", ""], .dataError),
        (["write", "app", "k", "-float", "1e400"], .dataError),
        (["write", "app", "k", "-float", "one"], .dataError),
        (["write", "app", "k", "-bool", "maybe"], .dataError),
        (["write", "app", "k", "-bool", "1"], .dataError),
        (["write", "app", "k", "-date", "yesterday"], .dataError),
        (["write", "app", "k", "-date", "2026-02-30"], .dataError),
        (["write", "app", "k", "-date", "2026-01-02T03:04:05"], .dataError),
        (["write", "app", "k", "-data", "abc"], .dataError),
        (["write", "app", "k", "-data", "zz"], .dataError),
        (["write", "app", "k", "-json", "{"], .dataError),
        (["write", "app", "k", "-json", "[null]"], .dataError),
        (["write", "app", "k", "(unclosed"], .dataError),
        (["write", "app", "k", "-dict", "a"], .usage),
        (["write", "app", "k", "-bol", "true"], .usage),
        (["write", "app", "k", "-int"], .usage),
        (["write", "app", "k"], .usage),
        (["write", "app", "a", "1", "b"], .usage),
        (["write", "app", "", "v"], .usage),
        (["write", "app", ":", "v"], .usage),
        (["write", "app", ":a::b", "v"], .usage),
        (["write", "app", "k", "v", "--frobnicate"], .usage),
        (["write", "", "k", "v"], .usage),
        (["write", ".hidden", "k", "v"], .usage),
        (["write", "..", "k", "v"], .usage),
        (["write", "bad\u{1}name", "k", "v"], .usage),
        (["write", "bad\0name", "k", "v"], .usage),
        (["write", "app", "k\0", "v"], .usage),
        (["write", "app", ":k:\0", "v"], .usage),
        (["read", "app", "k\0"], .usage),
        (["write", "app", ":k:sub", "v"], .dataError),
        (["write", "app", ":list:5", "v"], .dataError),
        (["write", "corrupt", "k", "v"], .dataError),
        (["delete", "corrupt", "k"], .dataError),
        (["read", "corrupt", "k"], .dataError),
        (["read", "app", ":k:sub"], .dataError),
        (["read"], .dataError),
        (["read", "app", "k", "extra"], .usage),
        (["read", "app", "--json", "--keys"], .usage),
        (["rename", "app", "k"], .usage),
        (["domains", "glob", "extra"], .usage),
        (["find"], .usage),
        (["read-type", "app"], .usage),
        (["delete"], .usage),
        (["bogus"], .usage),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(arguments: [String], status: PrefsCore.ExitStatus) throws {
        let home = InMemoryHome()
        home.run("write", "app", "k", "v", "list", "-array", "a")
        try home.fileSystem.write("/home/u/.config/corrupt.plist", Array("<plist><dict><key>k</key></plist>".utf8))
        let before = try home.files()
        let run = prefs(arguments, environment: home.environment, fileSystem: home.fileSystem)
        #expect(run.status == status, "\(arguments): \(run.error)")
        if status != .success {
            // `read` of every suite still prints the ones it could read.
            #expect(run.output.isEmpty || arguments == ["read"])
            #expect(run.error.hasPrefix("prefs: ") && run.error.filter { $0 == "\n" }.count == 1, "\(run.error)")
        }
        #expect(try home.files() == before)
    }
}

/// Cases an independent review found, kept as regressions.
@Suite struct ReviewRegressionTests {
    @Test func deleteRefusesFilesThatAreNotSuites() throws {
        let home = InMemoryHome()
        try home.fileSystem.write("/home/u/notes.txt", Array("hi".utf8))
        try home.fileSystem.write("/home/u/.config/bad.plist", Array("garbage{".utf8))
        try home.fileSystem.write("/home/u/list.plist", Array("<plist><array/></plist>".utf8))
        #expect(home.run("delete", "/home/u/notes.txt").status == .dataError)
        #expect(home.run("delete", "bad").status == .dataError)
        #expect(home.run("delete", "/home/u/list.plist").status == .dataError)
        #expect(try home.fileSystem.contents(of: "/home/u/notes.txt") == Array("hi".utf8))
        #expect(try home.fileSystem.contents(of: "/home/u/.config/bad.plist") == Array("garbage{".utf8))
        #expect(try home.fileSystem.status(of: "/home/u/list.plist") != nil)
    }

    @Test func aCFUIDDictionaryIsRefusedInXMLButKeptInBinary() throws {
        let home = InMemoryHome()
        #expect(home.run("write", "u1", "CF$UID", "-int", "1").status == .dataError)
        #expect(try home.suite("u1") == nil)
        home.run("write", "u2", "other", "x")
        #expect(home.run("write", "u2", "d", "-dict", "CF$UID", "-int", "3").status == .dataError)
        #expect(home.run("delete", "u2", "other").status == .success)
        #expect(home.run("write", "u2", "CF$UID", "-int", "1").status == .dataError)
        #expect(home.run("read", "u2").output == "{}\n")
        try home.fileSystem.write("/home/u/.config/b.plist", try BinaryPlistEncoder.encode(["x": 1]))
        #expect(home.run("write", "b", "d", "-dict", "CF$UID", "-int", "3").status == .success)
        #expect(home.run("read-type", "b", "d").output == "dictionary\n")
    }

    @Test func aDateWithAFractionOfASecondIsRefusedByAnXMLSuite() throws {
        let home = InMemoryHome()
        home.run("write", "app", "when", "-date", "2020-01-02T03:04:05Z")
        let before = try home.fileSystem.contents(of: "/home/u/.config/app.plist")
        for (arguments, key) in [(["when", "-date", "2020-01-02T03:04:05.5Z"], "when"), (["new", "-date", "2020-01-02T03:04:05.5Z"], "new"),
                                 (["list", "-array", "-date", "2020-01-02T03:04:05.5Z"], ":list:0"),
                                 (["when", "-date", "2020-01-02T03:04:05.5Z", "--dry-run"], "when")] {
            let run = home.run(["write", "app"] + arguments)
            #expect(run.status == .dataError, "\(arguments)")
            #expect(run.error.hasPrefix("prefs: app: \(key): \"2020-01-02T03:04:05.5Z\": an XML suite keeps dates in whole seconds"), "\(run.error)")
            #expect(run.error.filter { $0 == "\n" }.count == 1)
            #expect(run.output == "")
        }
        // A new suite whose first change holds such a date is written binary, and keeps it.
        #expect(home.run("write", "fresh", "when", "-date", "2020-01-02T03:04:05.5Z", "--dry-run").status == .success)
        #expect(try home.fileSystem.status(of: "/home/u/.config/fresh.plist") == nil)
        #expect(home.run("write", "fresh", "when", "-date", "2020-01-02T03:04:05.5Z").status == .success)
        #expect(try PropertyList.decode(try home.fileSystem.contents(of: "/home/u/.config/fresh.plist")).format == .binary)
        #expect(home.run("read", "fresh", "when").output == "2020-01-02T03:04:05.5Z\n")
        // One with only whole seconds is XML, as `defaults` writes it.
        home.run("write", "plain", "when", "-date", "2020-01-02T03:04:05Z")
        #expect(try PropertyList.decode(try home.fileSystem.contents(of: "/home/u/.config/plain.plist")).format == .xml)
        #expect(try home.fileSystem.contents(of: "/home/u/.config/app.plist") == before)
    }

    @Test func aJSONSuiteRefusesTypesJSONCannotKeep() throws {
        let home = InMemoryHome()
        try home.fileSystem.write("/data/x.json", Array("{\"a\": 1}".utf8))
        for arguments in [["k", "-data", "ff"], ["k", "-date", "2020-01-01"], ["k", "-json", "{\"prefs-typed-json\": 1, \"value\": {\"uid\": 1}}"]] {
            #expect(home.run(["write", "/data/x.json"] + arguments).status == .dataError, "\(arguments)")
        }
        #expect(try home.fileSystem.contents(of: "/data/x.json") == Array("{\"a\": 1}".utf8))
    }

    @Test func aKeyPathDeeperThanAnyValueIsAUsageError() {
        let home = InMemoryHome()
        let run = home.run("write", "app", String(repeating: ":a", count: 60_000), "1")
        #expect(run.status == .usage)
        #expect(run.error == "prefs: app: key path has more than 512 components\n")
    }

    @Test func exitCodeTellsChangedFromAlreadySo() {
        let home = InMemoryHome()
        #expect(home.run("write", "ci", "flag", "-bool", "true", "--exit-code").status == .changed)
        #expect(home.run("write", "ci", "flag", "-bool", "true", "--exit-code").status == .success)
        #expect(home.run("write", "ci", "flag", "-bool", "true").status == .success)
        #expect(home.run("rename", "ci", "flag", "flag2", "--exit-code").status == .changed)
        #expect(home.run("delete", "ci", "flag2", "--exit-code").status == .changed)
        #expect(home.run("delete", "ci", "flag2", "--exit-code").status == .notFound)
    }

    @Test func errorsNameTheSuite() {
        let home = InMemoryHome()
        #expect(home.run("write", "app", "k").error == "prefs: app: no value for key k\n")
        #expect(home.run("write", "app", "k", "-x").error.hasPrefix("prefs: app: unknown type flag -x"))
        #expect(home.run("write", "app", "", "v").error == "prefs: app: the key is empty\n")
        #expect(home.run("read", "-g", "").error == "prefs: NSGlobalDomain: the key is empty\n")
        home.run("write", "app", "n", "-int", "1")
        #expect(home.run("write", "app", "n", "-array-add", "x").error == "prefs: app: n: -array-add needs an array, and the value is an integer\n")
        #expect(home.run("read", "-g", "x", "--keys").status == .notFound)
    }
}
