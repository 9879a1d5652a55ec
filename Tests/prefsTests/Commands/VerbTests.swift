import Foundation
import Testing
@testable import PrefsCore
@testable import prefs

/// The defaults verbs, in-process against an in-memory file system: what they print, their exit
/// status, and what they leave in the store.
final class Sandbox: @unchecked Sendable {
    let fileSystem = InMemoryFileSystem()
    let environment = ["XDG_CONFIG_HOME": "/home/u/.config", "HOME": "/home/u", "XDG_DATA_DIRS": "/usr/share/pkg:/usr/share",
                       "PREFS_LOCK_TIMEOUT": "0.5"]

    @discardableResult
    func run(_ arguments: String...) -> (status: PrefsCore.ExitStatus, output: String, error: String) {
        run(arguments)
    }

    @discardableResult
    func run(_ arguments: [String]) -> (status: PrefsCore.ExitStatus, output: String, error: String) {
        let result = prefs(arguments, environment: environment, fileSystem: fileSystem)
        return (result.status, result.output, result.error)
    }

    /// The suite's stored value; nil only when its file does not exist.
    func suite(_ name: String) throws -> PrefValue? {
        let bytes: [UInt8]
        do { bytes = try fileSystem.contents(of: "/home/u/.config/\(name).plist") } catch PrefsError.fileNotFound { return nil }
        return try PropertyList.decode(bytes).value
    }

    func files() throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try fileSystem.contentsOfDirectory("/home/u/.config") {
            files[name] = try fileSystem.contents(of: "/home/u/.config/" + name)
        }
        return files
    }
}

@Suite struct VerbTests {
    @Test func writeTypesValuesAsDefaultsDoes() throws {
        let box = Sandbox()
        let run = box.run("write", "app", "s", "text", "i", "-int", "-42", "u", "-integer", "18446744073709551615",
                          "f", "-float", "0.1", "b", "-bool", "YES", "b2", "-boolean", "no", "d", "-date", "2026-01-02 03:04:05 +0000",
                          "x", "-data", "0A0b", "j", "-json", #"{"n": [1, 2.5]}"#,
                          "str", "-string", "-int", "p", "(en, fr)", "q", "{ a = b; }")
        #expect(run.status == .success, "\(run.error)")
        #expect(try box.suite("app") == [
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
        let box = Sandbox()
        box.run("write", "app", "k", "v")
        let before = try box.files()
        let run = box.run("write", "app", "other", "1", "j", "-json", json)
        #expect(run == (.dataError, "", "prefs: app: j: -json: JSON: \(place): null has no property-list value\n"))
        #expect(try box.files() == before)
    }

    /// argv cannot hold a NUL byte, but the command called in-process can, and so can a file the
    /// value is read from. In a string value a NUL is an ordinary character, stored and read back
    /// exactly (`--raw`: the bytes; `--json`: `\u0000`).
    @Test func aNULInAStringValueIsKeptExactly() throws {
        let box = Sandbox()
        // Files named by -string-file are read from the disk, not through the store's file system.
        let scratch = try TemporaryDirectory()
        let text = try scratch.write("text", [0x78, 0x00, 0x79, 0x00])
        let run = box.run("write", "app", "typed", "-string", "a\0b", "bare", "\0", "file", "-string-file", text)
        #expect(run.status == .success, "\(run.error)")
        #expect(try box.suite("app") == ["typed": "a\0b", "bare": "\0", "file": "x\0y\0"])
        #expect(prefs(["read", "app", "typed", "--raw"], environment: box.environment, fileSystem: box.fileSystem).bytes == [0x61, 0x00, 0x62])
        #expect(prefs(["read", "app", "file", "--raw"], environment: box.environment, fileSystem: box.fileSystem).bytes == [0x78, 0x00, 0x79, 0x00])
        #expect(box.run("read", "app", "bare", "--json").output == "\"\\u0000\"\n")
        #expect(box.run("read-type", "app", "typed").output == "string\n")
    }

    /// The same through standard input, with the real binary.
    @Test func aNULFromStandardInputIsKeptExactly() throws {
        let sandbox = try ProcessSandbox()
        let text: [UInt8] = [0x00, 0x61, 0x00, 0x00, 0x62, 0x0A, 0x00]
        let write = try sandbox.prefs("write", "app", "s", "-string-file", "-", input: text)
        #expect(write.status == 0 && write.error.isEmpty, "\(write.error)")
        let read = try sandbox.prefs("read", "app", "s", "--raw")
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
        let box = Sandbox()
        box.run("write", "app", "k", "v")
        let before = box.fileSystem.snapshot()
        let run = box.run(arguments)
        #expect(run == (.usage, "", message))
        #expect(box.fileSystem.snapshot() == before)
    }

    @Test func arraysAndDictionariesTakeTypedItems() throws {
        let box = Sandbox()
        box.run("write", "app", "list", "-array", "a", "-int", "2", "-bool", "true", "-date", "2026-01-02")
        box.run("write", "app", "more", "-array-add", "x")
        box.run("write", "app", "list", "-array-add", "-float", "1.5")
        box.run("write", "app", "map", "-dict", "w", "-int", "640", "t", "main")
        box.run("write", "app", "map", "-dict-add", "h", "-int", "480", "t", "-string", "other")
        #expect(try box.suite("app") == [
            "list": ["a", 2, true, .date(PrefDate(iso8601: "2026-01-02")!), 1.5], "more": ["x"],
            "map": ["w": 640, "h": 480, "t": "other"],
        ])
        #expect(box.run("write", "app", "map", "-array-add", "x").status == .dataError)
        #expect(box.run("write", "app", "list", "-dict-add", "k", "v").status == .dataError)
    }

    @Test func severalKeysGoInOneWriteAndABadOneChangesNothing() throws {
        let box = Sandbox()
        box.run("write", "app", "a", "1", "b", "-int", "2")
        let before = try box.files()
        let failed = box.run("write", "app", "c", "3", "d", "-int", "four", "e", "5")
        #expect(failed.status == .dataError)
        #expect(failed.error == "prefs: app: d: -int \"four\": not a decimal integer from -9223372036854775808 to 18446744073709551615\n")
        #expect(try box.files() == before)
    }

    @Test func writeReplacesTheWholeDomainFromPlistText() throws {
        let box = Sandbox()
        box.run("write", "app", "old", "1")
        #expect(box.run("write", "app", "{ new = (1, 2); }").status == .success)
        #expect(try box.suite("app") == ["new": ["1", "2"]])
        #expect(box.run("write", "app", "<plist><dict><key>x</key><true/></dict></plist>").status == .success)
        #expect(try box.suite("app") == ["x": true])
        #expect(box.run("write", "app", "(not, a, dictionary)").status == .dataError)
        #expect(try box.suite("app") == ["x": true])
    }

    @Test func readPrintsBareScalarsAndReadableContainers() throws {
        let box = Sandbox()
        box.run("write", "app", "name", "Hello world", "n", "-int", "30", "r", "-float", "2", "t", "-bool", "true",
                "d", "-date", "2026-01-02T03:04:05.25Z", "x", "-data", "00ff", "big", "-int", "18446744073709551615")
        // An XML suite keeps whole seconds; a binary one keeps the fraction.
        try box.fileSystem.write("/home/u/.config/bin.plist", try BinaryPlistEncoder.encode([:]))
        box.run("write", "bin", "d", "-date", "2026-01-02T03:04:05.25Z")
        #expect(box.run("read", "bin", "d").output == "2026-01-02T03:04:05.25Z\n")
        box.run("write", "app", "list", "-array", "a", "true", "-int", "5", "two words", "")
        for (key, expected) in [("name", "Hello world"), ("n", "30"), ("r", "2.0"), ("t", "true"), ("d", "2026-01-02T03:04:05Z"),
                                ("x", "00ff"), ("big", "18446744073709551615")] {
            #expect(box.run("read", "app", key).output == expected + "\n", "\(key)")
        }
        #expect(box.run("read", "app", "list").output == """
            (
                a,
                "true",
                5,
                "two words",
                ""
            )

            """)
        #expect(box.run("read", "app", ":list:1").output == "true\n")
        #expect(box.run("read", "app", "n", "--json").output == "30\n")
        #expect(box.run("read", "app", "list", "--json").output == "[\n  \"a\",\n  \"true\",\n  5,\n  \"two words\",\n  \"\"\n]\n")
        #expect(box.run("read", "app", "--keys").output == "big\nd\nlist\nn\nname\nr\nt\nx\n")
        #expect(box.run("read-type", "app", "d").output == "date\n")
        #expect(box.run("read-type", "app", "r").output == "float\n")
        #expect(box.run("read-type", "app", "t").output == "boolean\n")
    }

    @Test func readWithoutADomainShowsEverySuite() throws {
        let box = Sandbox()
        box.run("write", "b.app", "k", "v")
        box.run("write", "a.app", "k", "-int", "1")
        box.run("write", "-g", "AppleLocale", "en_US")
        #expect(box.run("read").output == """
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
        #expect(box.run("domains").output == "NSGlobalDomain\na.app\nb.app\n")
        #expect(box.run("read", "NSGlobalDomain", "AppleLocale").output == "en_US\n")
        #expect(try box.fileSystem.status(of: "/home/u/.config/.GlobalPreferences.plist") != nil)
    }

    @Test func missingThingsExitOne() throws {
        let box = Sandbox()
        #expect(box.run("read", "nope") == (.notFound, "", "prefs: nope: no such suite\n"))
        #expect(box.run("read", "nope", "k").status == .notFound)
        box.run("write", "app", "k", "v")
        #expect(box.run("read", "app", "missing") == (.notFound, "", "prefs: app: no key missing\n"))
        #expect(box.run("read-type", "app", "missing").status == .notFound)
        #expect(box.run("delete", "app", "missing").status == .notFound)
        #expect(box.run("rename", "app", "missing", "x").status == .notFound)
        #expect(box.run("delete", "nope").status == .notFound)
        #expect(box.run("find", "zzz").status == .notFound)
    }

    @Test func deleteAndRename() throws {
        let box = Sandbox()
        box.run("write", "app", "a", "1", "b", "2", ":c:d", "3")
        #expect(box.run("delete", "app", "a").status == .success)
        #expect(box.run("rename", "app", "b", ":c:e").status == .success)
        #expect(box.run("delete", "app", ":c:d").status == .success)
        #expect(try box.suite("app") == ["c": ["e": "2"]])
        #expect(box.run("delete", "app").status == .success)
        #expect(try box.suite("app") == nil)
        #expect(try box.files().isEmpty)
    }

    @Test func keyPathsAndLiteralKeys() throws {
        let box = Sandbox()
        box.run("write", "app", "com.example.key with spaces", "1", "a:b", "literal", ":\\:x", "colon", ":p\\:q:r", "nested")
        #expect(try box.suite("app") == ["com.example.key with spaces": "1", "a:b": "literal", ":x": "colon", "p:q": ["r": "nested"]])
        #expect(box.run("read", "app", ":a\\:b").output == "literal\n")
        #expect(box.run("read", "app", ":x").status == .notFound)
        #expect(box.run("read", "app", ":\\:x").output == "colon\n")
        box.run("write", "app", ":list:0", "first")
        #expect(box.run("read", "app", "list", "--json").output == "{\n  \"0\": \"first\"\n}\n")
    }

    @Test func findSearchesNamesKeysAndStrings() throws {
        let box = Sandbox()
        box.run("write", "com.example.Finder", "ShowAll", "-bool", "true")
        box.run("write", "other", "title", "Finder window", "nested", "-dict", "finderish", "x", "n", "5")
        let found = box.run("find", "FINDER")
        #expect(found.status == .success)
        #expect(found.output == "com.example.Finder\nother\t:nested:finderish\nother\ttitle\n")
        let json = box.run("find", "finder", "--json")
        #expect(try PropertyList.decode(Array(json.output.utf8)).value == [
            ["suite": "com.example.Finder"],
            ["suite": "other", "key": ":nested:finderish", "value": "x"],
            ["suite": "other", "key": "title", "value": "Finder window"],
        ])
    }

    @Test func filesAreEditedInTheFormatTheyHave() throws {
        let box = Sandbox()
        try box.fileSystem.write("/data/settings.json", Array("{\"a\": 1}".utf8))
        #expect(box.run("write", "/data/settings.json", "b", "-bool", "true").status == .success)
        #expect(try PropertyList.decode(box.fileSystem.contents(of: "/data/settings.json")) == (["a": 1, "b": true], .json))
        #expect(box.run("write", "/data/new.json", "k", "v").status == .success)
        #expect(try PropertyList.decode(box.fileSystem.contents(of: "/data/new.json")).format == .json)
        #expect(box.run("read", "/data/settings.json", "b").output == "true\n")
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
        let box = Sandbox()
        box.run("write", "app", "k", "v", "list", "-array", "a")
        try box.fileSystem.write("/home/u/.config/corrupt.plist", Array("<plist><dict><key>k</key></plist>".utf8))
        let before = try box.files()
        let run = prefs(arguments, environment: box.environment, fileSystem: box.fileSystem)
        #expect(run.status == status, "\(arguments): \(run.error)")
        if status != .success {
            // `read` of every suite still prints the ones it could read.
            #expect(run.output.isEmpty || arguments == ["read"])
            #expect(run.error.hasPrefix("prefs: ") && run.error.filter { $0 == "\n" }.count == 1, "\(run.error)")
        }
        #expect(try box.files() == before)
    }
}

/// Cases an independent review found, kept as regressions.
@Suite struct ReviewRegressionTests {
    @Test func deleteRefusesFilesThatAreNotSuites() throws {
        let box = Sandbox()
        try box.fileSystem.write("/home/u/notes.txt", Array("hi".utf8))
        try box.fileSystem.write("/home/u/.config/bad.plist", Array("garbage{".utf8))
        try box.fileSystem.write("/home/u/list.plist", Array("<plist><array/></plist>".utf8))
        #expect(box.run("delete", "/home/u/notes.txt").status == .dataError)
        #expect(box.run("delete", "bad").status == .dataError)
        #expect(box.run("delete", "/home/u/list.plist").status == .dataError)
        #expect(try box.fileSystem.contents(of: "/home/u/notes.txt") == Array("hi".utf8))
        #expect(try box.fileSystem.contents(of: "/home/u/.config/bad.plist") == Array("garbage{".utf8))
        #expect(try box.fileSystem.status(of: "/home/u/list.plist") != nil)
    }

    @Test func aCFUIDDictionaryIsRefusedInXMLButKeptInBinary() throws {
        let box = Sandbox()
        #expect(box.run("write", "u1", "CF$UID", "-int", "1").status == .dataError)
        #expect(try box.suite("u1") == nil)
        box.run("write", "u2", "other", "x")
        #expect(box.run("write", "u2", "d", "-dict", "CF$UID", "-int", "3").status == .dataError)
        #expect(box.run("delete", "u2", "other").status == .success)
        #expect(box.run("write", "u2", "CF$UID", "-int", "1").status == .dataError)
        #expect(box.run("read", "u2").output == "{}\n")
        try box.fileSystem.write("/home/u/.config/b.plist", try BinaryPlistEncoder.encode(["x": 1]))
        #expect(box.run("write", "b", "d", "-dict", "CF$UID", "-int", "3").status == .success)
        #expect(box.run("read-type", "b", "d").output == "dictionary\n")
    }

    @Test func writesThatEncodeToTheSameBytesLeaveTheFileUntouched() throws {
        let box = Sandbox()
        box.run("write", "app", "when", "-date", "2020-01-02T03:04:05.5Z")
        let before = try box.fileSystem.status(of: "/home/u/.config/app.plist")
        #expect(box.run("write", "app", "when", "-date", "2020-01-02T03:04:05.75Z", "--exit-code").status == .success)
        #expect(try box.fileSystem.status(of: "/home/u/.config/app.plist") == before)
    }

    @Test func aJSONSuiteRefusesTypesJSONCannotKeep() throws {
        let box = Sandbox()
        try box.fileSystem.write("/data/x.json", Array("{\"a\": 1}".utf8))
        for arguments in [["k", "-data", "ff"], ["k", "-date", "2020-01-01"], ["k", "-json", "{\"prefs-typed-json\": 1, \"value\": {\"uid\": 1}}"]] {
            #expect(box.run(["write", "/data/x.json"] + arguments).status == .dataError, "\(arguments)")
        }
        #expect(try box.fileSystem.contents(of: "/data/x.json") == Array("{\"a\": 1}".utf8))
    }

    @Test func aKeyPathDeeperThanAnyValueIsAUsageError() {
        let box = Sandbox()
        let run = box.run("write", "app", String(repeating: ":a", count: 60_000), "1")
        #expect(run.status == .usage)
        #expect(run.error == "prefs: app: key path has more than 512 components\n")
    }

    @Test func exitCodeTellsChangedFromAlreadySo() {
        let box = Sandbox()
        #expect(box.run("write", "ci", "flag", "-bool", "true", "--exit-code").status == .changed)
        #expect(box.run("write", "ci", "flag", "-bool", "true", "--exit-code").status == .success)
        #expect(box.run("write", "ci", "flag", "-bool", "true").status == .success)
        #expect(box.run("rename", "ci", "flag", "flag2", "--exit-code").status == .changed)
        #expect(box.run("delete", "ci", "flag2", "--exit-code").status == .changed)
        #expect(box.run("delete", "ci", "flag2", "--exit-code").status == .notFound)
    }

    @Test func errorsNameTheSuite() {
        let box = Sandbox()
        #expect(box.run("write", "app", "k").error == "prefs: app: no value for key k\n")
        #expect(box.run("write", "app", "k", "-x").error.hasPrefix("prefs: app: unknown type flag -x"))
        #expect(box.run("write", "app", "", "v").error == "prefs: app: the key is empty\n")
        #expect(box.run("read", "-g", "").error == "prefs: NSGlobalDomain: the key is empty\n")
        box.run("write", "app", "n", "-int", "1")
        #expect(box.run("write", "app", "n", "-array-add", "x").error == "prefs: app: n: -array-add needs an array, and the value is an integer\n")
        #expect(box.run("read", "-g", "x", "--keys").status == .notFound)
    }
}
