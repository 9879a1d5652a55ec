import Foundation
import Testing
@testable import PrefsCore

/// Promises a careless or hostile world tested: bytes that are not UTF-8, empty and NUL keys, bad
/// environment values, a broken entry among the suites, output that cannot be written, `-h` after a
/// verb. Each runs the real binary.
@Suite(.runsProcesses) struct TrustTests {
    /// Two suites, keys or values whose bytes differ must never become one: bytes that are not UTF-8
    /// are refused (64 naming the argument) and nothing is written.
    @Test func argumentsThatAreNotUTF8AreRefusedAndChangeNothing() async throws {
        let sandbox = try ProcessSandbox()
        for (script, argument) in [("prefs write $'\\xff' k one", 2), ("prefs write s $'k\\xfe' one", 3),
                                   ("prefs write s k $'caf\\xc3\\xa9\\xff'", 4), ("prefs write s k -array a $'\\xfe'", 6),
                                   ("prefs read $'\\xfe'", 2), ("prefs import s $'/tmp/\\xff.plist'", 3)] {
            let run = try await sandbox.shell(script)
            #expect(run.status == 64, "\(script): \(run.status)")
            #expect(run.error.hasPrefix("prefs: argument \(argument) is not valid UTF-8: \""), "\(script): \(run.error)")
            #expect(run.error.split(separator: "\n").count == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.config))
        // The bytes are shown escaped: valid text stays readable.
        #expect(try await sandbox.shell("prefs write $'caf\\xc3\\xa9\\xff' k v").error == "prefs: argument 2 is not valid UTF-8: \"caf\\xc3\\xa9\\xff\"\n")
    }

    /// Bytes that are not UTF-8 inside a document are 65 naming the position, in every format, and
    /// nothing changes (a decoder never repairs them into U+FFFD).
    @Test func documentsThatAreNotUTF8AreRefusedNamingThePosition() async throws {
        let sandbox = try ProcessSandbox()
        try #require(try await sandbox.prefs("write", "s", "k", "1").status == 0)
        let suite = try Fixtures.bytes(sandbox.config + "/s.plist")
        var binaryASCII = try PropertyList.encode(["k": "x"], as: .binary)
        binaryASCII[binaryASCII.firstIndex(of: 0x78)!] = 0xFF
        var binaryUTF16 = try PropertyList.encode(["k": "\u{E9}"], as: .binary)
        let unit = try #require(binaryUTF16.indices.first { binaryUTF16[$0] == 0x00 && binaryUTF16[$0 + 1] == 0xE9 })
        binaryUTF16[unit] = 0xD8
        binaryUTF16[unit + 1] = 0x00
        let cases: [(String, [UInt8], String, String)] = [
            ("key.plist", Array("<plist><dict><key>a".utf8) + [0xFF] + Array("</key><string>x</string></dict></plist>".utf8), "import", "line 1, column "),
            ("string.plist", Array("<plist><dict><key>a</key><string>x".utf8) + [0xFE] + Array("</string></dict></plist>".utf8), "import", "line 1, column "),
            ("doc.json", Array("{\"a\": \"x".utf8) + [0xC3] + Array("\"}".utf8), "import", "line 1, column "),
            ("doc.strings", Array("{ a = \"".utf8) + [0xFF] + Array("\"; }".utf8), "import", "line 1, column "),
            ("ascii.plist", binaryASCII, "import", "byte "),
            ("utf16.plist", binaryUTF16, "import", "unpaired surrogate"),
            ("bad.env", Array("A=1\nB=".utf8) + [0xFF] + [0x0A], "migrate", "line 2: not UTF-8"),
            ("bad.ini", Array("[s]\nk=1\nj=".utf8) + [0xFF], "migrate", "line 3: not UTF-8"),
        ]
        for (name, bytes, verb, position) in cases {
            let file = try sandbox.directory.write(name, bytes)
            let run = try await sandbox.prefs(verb, "s", file)
            #expect(run.status == 65, "\(name): \(run.status) \(run.error)")
            #expect(run.error.hasPrefix("prefs: \(file): ") && run.error.contains(position), "\(name): \(run.error)")
        }
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == suite)
    }

    /// The environment is checked where it is used: not UTF-8, or not what the variable takes, is
    /// 64 naming the variable and what it accepts; a read that takes no lock does not care about
    /// PREFS_LOCK_TIMEOUT.
    @Test(arguments: [
        ("PREFS_LOCK_TIMEOUT", "inf"), ("PREFS_LOCK_TIMEOUT", "1e999"), ("PREFS_LOCK_TIMEOUT", "99999999999999999999"),
        ("PREFS_LOCK_TIMEOUT", "abc"), ("PREFS_LOCK_TIMEOUT", "nan"), ("PREFS_LOCK_TIMEOUT", "-1"), ("PREFS_LOCK_TIMEOUT", "0x10"),
        ("PREFS_LOCK_TIMEOUT", "86401"), ("PREFS_EXTERNAL_THRESHOLD", "1e3"), ("PREFS_EXTERNAL_THRESHOLD", "-5"),
        ("PREFS_EXTERNAL_THRESHOLD", "5T"), ("PREFS_EXTERNAL_THRESHOLD", "99999999999999999999K"),
    ])
    func badEnvironmentValuesAreUsageErrors(name: String, value: String) async throws {
        let sandbox = try ProcessSandbox()
        try #require(try await sandbox.prefs("write", "s", "k", "1").status == 0)
        let before = try Fixtures.bytes(sandbox.config + "/s.plist")
        let run = try await runProcess(Paths.binary, ["write", "s", "k", "2"], environment: sandbox.environment.merging([name: value]) { $1 })
        #expect(run.status == 64, "\(name)=\(value): \(run.status) \(run.error)")
        #expect(run.error.hasPrefix("prefs: \(name)=\(value): give a number of "), "\(run.error)")
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == before)
    }

    @Test func environmentValuesWithinTheirRangeWork() async throws {
        let sandbox = try ProcessSandbox()
        for (name, value) in [("PREFS_LOCK_TIMEOUT", "0"), ("PREFS_LOCK_TIMEOUT", "0.25"), ("PREFS_LOCK_TIMEOUT", "86400"),
                              ("PREFS_LOCK_TIMEOUT", ""), ("PREFS_EXTERNAL_THRESHOLD", "1k"), ("PREFS_EXTERNAL_THRESHOLD", "0")] {
            let run = try await runProcess(Paths.binary, ["write", "s", "k", name + value], environment: sandbox.environment.merging([name: value]) { $1 })
            #expect(run.status == 0, "\(name)=\(value): \(run.error)")
        }
        // Reading takes no lock: the timeout is not looked at.
        let read = try await runProcess(Paths.binary, ["read", "s", "k"], environment: sandbox.environment.merging(["PREFS_LOCK_TIMEOUT": "abc"]) { $1 })
        #expect(read.status == 0)
        let path = try await sandbox.shell("XDG_CONFIG_HOME=$'/tmp/\\xff' prefs read s k")
        #expect(path.status == 64 && path.error == "prefs: XDG_CONFIG_HOME=/tmp/\\xff: give UTF-8 text\n", "\(path.error)")
    }

    /// A bad environment variable while every suite is read (`read`, `find`, `defaults read`): one
    /// line, whatever the number of suites, nothing on standard output, 64, as for one suite.
    @Test func aBadVariableIsReportedOnceWhenEverySuiteIsRead() async throws {
        let sandbox = try ProcessSandbox()
        for name in ["a", "b", "c"] { try #require(try await sandbox.prefs("write", name, "k", "v").status == 0) }
        for script in ["XDG_DATA_HOME=$'\\xff' prefs read", "XDG_DATA_HOME=$'\\xff' prefs find v",
                       "XDG_DATA_HOME=$'\\xff' prefs read s", "env -u XDG_CONFIG_HOME -u HOME prefs read",
                       "env -u XDG_CONFIG_HOME -u HOME prefs find v"] {
            let run = try await sandbox.shell(script)
            #expect(run.status == 64 && run.output.isEmpty, "\(script): \(run.status) \(run.outputText)")
            #expect(run.error.hasPrefix("prefs: ") && run.error.split(separator: "\n").count == 1, "\(script): \(run.error)")
        }
    }

    /// A symlink loop, a name that is not UTF-8 or a FIFO in the configuration directory: listed
    /// verbs skip it with one warning each and go on; the exit status is the other suites'.
    @Test func aBadEntryAmongTheSuitesIsSkippedWithAWarning() async throws {
        let sandbox = try ProcessSandbox()
        try #require(try await sandbox.prefs("write", "good", "k", "hello").status == 0)
        try FileManager.default.createSymbolicLink(atPath: sandbox.config + "/loop.plist", withDestinationPath: "loop.plist")
        try #require(try await sandbox.shell("printf '<plist><dict/></plist>' > \"$XDG_CONFIG_HOME\"/$'\\xff.plist' && mkfifo \"$XDG_CONFIG_HOME/fifo.plist\"").status == 0)
        for (arguments, output, status) in [(["domains"], "good\n", 0), (["find", "hell"], "good\tk\n", 0),
                                            (["read"], "{\n    good = {\n        k = hello;\n    };\n}\n", 0), (["check"], "", 0)] {
            let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
            #expect(run.status == Int32(status), "\(arguments): \(run.status) \(run.error)")
            #expect(run.outputText == output, "\(arguments): \(run.outputText)")
            let warnings = run.error.split(separator: "\n")
            #expect(warnings.count == 3 && warnings.allSatisfy { $0.hasPrefix("prefs: warning: \(sandbox.config)/") && $0.hasSuffix("; skipped") },
                    "\(arguments): \(run.error)")
            #expect(run.error.contains("loop.plist: too many levels of symbolic links") && run.error.contains("fifo.plist: not a regular file")
                    && run.error.contains("the name is not UTF-8"), "\(run.error)")
        }
    }

    /// Keys no program should store: the empty key and keys holding NUL, from every path that
    /// stores, are refused with 65 and change nothing; such keys another program stored can be
    /// removed with delete and reset (`''`, and `\0` in a key path).
    @Test func emptyAndNULKeysAreRefusedOnEveryPathThatStores() async throws {
        let sandbox = try ProcessSandbox()
        let emptyKey = try sandbox.directory.write("empty.json", #"{"": 1, "ok": 2}"#)
        let nulKey = try sandbox.directory.write("nul.json", #"{"a\u0000b": 1}"#)
        let nestedNUL = try sandbox.directory.write("nested.json", #"{"d": {"x\u0000": 1}}"#)
        try #require(try await sandbox.prefs("write", "s", "keep", "1").status == 0)
        try #require(try await sandbox.prefs("register", "s", "keep", "1").status == 0)
        let suite = try Fixtures.bytes(sandbox.config + "/s.plist")
        let registration = try Fixtures.bytes(sandbox.data + "/prefs/defaults/s.plist")
        for document in [emptyKey, nulKey, nestedNUL] {
            for arguments in [["import", "s", document], ["import", "s", document, "--replace"], ["import", "s", document, "--dry-run"],
                              ["migrate", "s", document], ["register", "s", document], ["write", "s", "-json"]]
                where !(document == emptyKey && arguments.last == "-json") {
                // (Inside a value, as -json puts it, an empty key is an ordinary key: see below.)
                let run = arguments.last == "-json"
                    ? try await sandbox.prefs("write", "s", "v", "-json", String(decoding: try Fixtures.bytes(document), as: UTF8.self))
                    : try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
                let top = document == emptyKey && arguments.last != "-json"
                #expect(run.status == 65, "\(arguments) \(document): \(run.status) \(run.error)")
                #expect(run.error.contains(top ? "key \"\": an empty key cannot be stored; nothing changed" : "a key cannot contain NUL; nothing changed"),
                        "\(arguments): \(run.error)")
            }
        }
        #expect(try await sandbox.prefs("write", "s", "{ \"\" = 1; }").status == 65)
        #expect(try await sandbox.prefs("write", "s", ":a\\0b", "1").status == 65)
        #expect(try await sandbox.prefs("write", "s", "", "1").status == 64)
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == suite)
        #expect(try Fixtures.bytes(sandbox.data + "/prefs/defaults/s.plist") == registration)
        // An empty key inside a value is an ordinary plist key.
        #expect(try await sandbox.prefs("write", "s", "d", "-json", #"{"": 1}"#).status == 0)

        // Another program stored them: the suite still takes other changes, and delete, reset and
        // rename repair it.
        let foreign = try PropertyList.encode(["": 1, "a\u{0}b": 2, "c\u{0}": 3, "x": 4], as: .binary)
        try Data(foreign).write(to: URL(fileURLWithPath: sandbox.config + "/t.plist"))
        #expect(try await sandbox.prefs("write", "t", "y", "5").status == 0)
        #expect(try await sandbox.prefs("delete", "t", "").status == 0)
        #expect(try await sandbox.prefs("delete", "t", "").status == 1)
        #expect(try await sandbox.prefs("reset", "t", ":a\\0b").status == 0)
        #expect(try await sandbox.prefs("rename", "t", ":c\\0", "c").status == 0)
        #expect(try sandbox.suite("t") == ["c": 3, "x": 4, "y": "5"])
    }

    /// Output that cannot be written: a full disk is 74 with a message (after the change was made,
    /// for a write that prints; the command's own status when it had failed); a reader that went away ends prefs quietly with status 0.
    @Test func standardOutputFailuresAreReported() async throws {
        let sandbox = try ProcessSandbox()
        let big = try sandbox.directory.write("big", [UInt8](repeating: 0x41, count: 300_000))
        try #require(try await sandbox.prefs("write", "s", "k", "hello", "big", "-data", "@" + big).status == 0)
        for command in ["prefs read s k", "prefs export s -", "prefs read s big --raw", "prefs read s big", "prefs domains",
                        "prefs write s n -int-add 1", "prefs read"] {
            let run = try await sandbox.shell(command + " > /dev/full")
            #expect(run.status == 74, "\(command): \(run.status)")
            #expect(run.error == "prefs: standard output: cannot write: no space left on device\n", "\(command): \(run.error)")
        }
        #expect(try await sandbox.prefs("read", "s", "n").outputText == "1\n", "the counter was changed before its output failed")
        // A command that had already failed keeps its status (the first failure), and its lost
        // output still gets the message: check's report of an orphan blob, find's empty JSON list.
        let orphans = sandbox.data + "/prefs/external/s/k"
        try FileManager.default.createDirectory(atPath: orphans, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: orphans + "/11111111-1111-4111-8111-111111111111"))
        for (command, status) in [("prefs check s", Int32(65)), ("prefs find zzz --json", 1)] {
            let run = try await sandbox.shell(command + " > /dev/full")
            #expect(run.status == status, "\(command): \(run.status)")
            #expect(run.error == "prefs: standard output: cannot write: no space left on device\n", "\(command): \(run.error)")
        }
        for command in ["prefs read s big --raw", "prefs read s big", "prefs export s -", "prefs read s"] {
            let run = try await sandbox.shell("set -o pipefail; " + command + " | head -c 10 > /dev/null")
            #expect(run.status == 0 && run.error.isEmpty, "\(command): \(run.status) \(run.error)")
        }
    }

    /// `-h` anywhere before `--` is help for the verb (the man page says so); after `--` it is an
    /// operand.
    @Test func dashHAfterAVerbIsHelp() async throws {
        let sandbox = try ProcessSandbox()
        for verb in ["watch", "check", "reset", "gc", "write", "read", "delete", "domains"] {
            for arguments in [[verb, "-h"], [verb, "s", "-h"], [verb, "--help", "s"]] {
                let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
                #expect(run.status == 0 && run.outputText.hasPrefix("Usage: prefs \(verb)"), "\(arguments): \(run.outputText)")
            }
        }
        #expect(try await sandbox.prefs("write", "s", "--", "-h", "v").status == 0)
        #expect(try await sandbox.prefs("read", "s", "--", "-h").outputText == "v\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.config + "/-h.plist"))
    }
}
