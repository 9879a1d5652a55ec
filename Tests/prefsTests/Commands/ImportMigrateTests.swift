import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// import and migrate, in-process against an in-memory file system: what lands in the suite, what
/// is printed, and that a failure anywhere leaves everything byte-identical.
@Suite struct ImportTests {
    @Test func importMergesReplacesAndDeletesNullKeys() throws {
        let home = InMemoryHome()
        home.run("write", "app", "keep", "1", "drop", "2", "over", "3")
        try home.fileSystem.write("/in/doc.json", Array(#"{"over": 30, "drop": null, "new": {"n": [true]}, "never": null}"#.utf8))
        #expect(home.run("import", "app", "/in/doc.json", "--exit-code").status == .changed)
        #expect(try home.suite("app") == ["keep": "1", "over": 30, "new": ["n": [true]]])
        #expect(home.run("import", "app", "/in/doc.json", "--exit-code").status == .success)
        try home.fileSystem.write("/in/doc.plist", try PropertyList.encode(["over": 4, "keep": "mine?"], as: .binary))
        #expect(home.run("import", "app", "/in/doc.plist", "--if-absent").status == .success)
        #expect(try home.suite("app") == ["keep": "1", "over": 30, "new": ["n": [true]]])
        #expect(home.run("import", "app", "/in/doc.plist", "--replace").status == .success)
        #expect(try home.suite("app") == ["over": 4, "keep": "mine?"])
        // The suite keeps its own format (XML), whatever the document's.
        #expect(try PropertyList.decode(try home.fileSystem.contents(of: "/home/u/.config/app.plist")).format == .xml)
    }

    /// Two keys that differ only in Unicode normalization stay two keys through a merge, on the
    /// patch path of an XML suite and of a binary one.
    @Test func importKeepsNFCAndNFDKeysApart() throws {
        let home = InMemoryHome()
        try home.fileSystem.write("/in/doc.json", Array("{\"\u{E9}\": 1, \"e\u{301}\": 2}".utf8))
        try home.fileSystem.write("/in/again.json", Array("{\"\u{E9}\": 10, \"e\u{301}\": 20}".utf8))
        home.run("write", "xml", "a", "1")
        try home.fileSystem.write("/home/u/.config/bin.plist", try PropertyList.encode(["a": "1"], as: .binary))
        for suite in ["xml", "bin"] {
            #expect(home.run("import", suite, "/in/doc.json").status == .success)
            #expect(try home.suite(suite) == ["a": "1", "\u{E9}": 1, "e\u{301}": 2], "\(suite)")
            #expect(home.run("import", suite, "/in/again.json").status == .success)
            #expect(try home.suite(suite) == ["a": "1", "\u{E9}": 10, "e\u{301}": 20], "\(suite)")
        }
    }

    @Test func importReadsEveryFormatByContentOrAsTold() throws {
        let home = InMemoryHome()
        let value: PrefValue = ["s": "x", "d": .data([1, 2]), "n": ["a": 1]]
        for format in PlistFormat.allCases where format != .json {
            try home.fileSystem.write("/in/doc", try PropertyList.encode(format == .openStep ? ["s": "x", "d": .data([1, 2]), "n": ["a": "1"]] : value, as: format))
            #expect(home.run("import", "s-\(format.rawValue)", "/in/doc").status == .success, "\(format)")
            #expect(home.run("import", "t-\(format.rawValue)", "/in/doc", "--format", format.rawValue).status == .success, "\(format)")
            #expect(try home.suite("s-\(format.rawValue)") == home.suite("t-\(format.rawValue)"))
        }
        // Told the wrong format, the document is refused.
        try home.fileSystem.write("/in/doc", try PropertyList.encode(value, as: .binary))
        #expect(home.run("import", "app", "/in/doc", "--format", "xml").status == .dataError)
        // A typed JSON document read as plain JSON is just JSON.
        try home.fileSystem.write("/in/typed", try PropertyList.encode(["k": 1], as: .typedJSON))
        #expect(home.run("import", "plain", "/in/typed", "--format", "json").status == .success)
        #expect(try home.suite("plain") != ["k": 1])
    }

    @Test func aBadDocumentOrAFailureInTheLastKeyChangesNothing() throws {
        let home = InMemoryHome()
        home.run("write", "app", "a", "1")
        let before = home.fileSystem.snapshot()
        let cases: [(String, PrefsCore.ExitStatus, String)] = [
            (#"{"a": 2, "b": 3, "z": [1, null]}"#, .dataError, "prefs: /in/bad: JSON: line 1, column 27: null has no property-list value\n"),
            (#"{"a": 2, "z": {"deep": null}}"#, .dataError, "prefs: /in/bad: JSON: line 1, column 24: null has no property-list value\n"),
            ("[1, 2]", .dataError, "prefs: /in/bad: the root is an array, not a dictionary\n"),
            ("{\"a\": 1", .dataError, "prefs: /in/bad: JSON: line 1, column 8: unterminated object\n"),
            ("", .dataError, "prefs: /in/bad: empty document\n"),
        ]
        for (text, status, message) in cases {
            try home.fileSystem.write("/in/bad", Array(text.utf8))
            let run = home.run("import", "app", "/in/bad")
            #expect(run.status == status, "\(text)")
            #expect(run.error == message)
            #expect(home.run("import", "app", "/in/bad", "--dry-run").status == status)
        }
        #expect(home.run("import", "app", "/in/missing").status == .noInput)
        #expect(home.run("import", "app", "/in/bad", "--replace", "--if-absent").status == .usage)
        #expect(home.run("import", "-", "/in/bad").status == .usage)
        #expect(home.fileSystem.snapshot().filter { !$0.key.hasPrefix("/in") } == before.filter { !$0.key.hasPrefix("/in") })
        // A value the suite's format cannot hold (a date in a JSON file) fails at the end: nothing written.
        try home.fileSystem.write("/home/u/.config/j.json", Array("{}".utf8))
        try home.fileSystem.write("/in/dated", try PropertyList.encode(["a": 1, "z": .date(PrefDate(secondsSinceReferenceDate: 0))], as: .xml))
        let snapshot = home.fileSystem.snapshot()
        #expect(home.run("import", "/home/u/.config/j.json", "/in/dated").status == .dataError)
        #expect(home.fileSystem.snapshot() == snapshot)
    }

    @Test func dryRunPrintsTheChangeSet() throws {
        let home = InMemoryHome()
        home.run("write", "app", "a", "1", "b", "-int", "2")
        try home.fileSystem.write("/in/doc.json", Array(#"{"a": "1", "b": null, "c": [1]}"#.utf8))
        let before = home.fileSystem.snapshot()
        let run = home.run("import", "app", "/in/doc.json", "--dry-run", "--exit-code")
        #expect(run.status == .changed && run.output == "- b = 2\n+ c = (1)\n")
        #expect(home.fileSystem.snapshot() == before)
    }
}

@Suite struct MigrateTests {
    /// What `defaults export com.apple.dock -` gives on a Mac: 0/1 for booleans, nested collections.
    static let dockExport: PrefValue = [
        "autohide": 1, "magnification": 0, "tilesize": 48, "orientation": "left", "showAppExposeGestureEnabled": "YES",
        "persistent-apps": [["tile-data": ["file-label": "Safari", "file-type": 41]], ["tile-data": ["file-label": "Mail", "file-type": 41]]],
        "mod-count": 12, "lastShown": .date(PrefDate(secondsSinceReferenceDate: 790_000_000)),
    ]

    @Test func aMacOSExportMigratesWithExplicitBooleans() throws {
        let home = InMemoryHome()
        try home.fileSystem.write("/in/dock.plist", try PropertyList.encode(MigrateTests.dockExport, as: .binary))
        let arguments = ["migrate", "dock", "/in/dock.plist", "--bool-keys", "autohide,magnification,showAppExposeGestureEnabled",
                         "--keys", "autohide,magnification,tilesize,orientation,showAppExposeGestureEnabled,persistent-apps,missing-key",
                         "--rename", "orientation=position"]
        let before = home.fileSystem.snapshot()
        let dry = home.run(arguments + ["--dry-run"])
        #expect(dry.status == .success, "\(dry.error)")
        #expect(dry.output == """
            migrated\tautohide = true
            migrated\tmagnification = false
            migrated\ttilesize = 48
            migrated\torientation -> position = left
            migrated\tshowAppExposeGestureEnabled = true
            migrated\tpersistent-apps = ({ tile-data = { file-label = Safari; file-type = 41; }; }, { tile-data = { file-label = Mail; file-type = 41; }; })
            missing\tmissing-key
            dry run, nothing changed: 6 migrated, 0 unchanged, 0 skipped-conflict, 1 missing, 0 errors

            """)
        #expect(home.fileSystem.snapshot() == before)
        let real = home.run(arguments + ["--exit-code"])
        #expect(real.status == .changed && real.output == dry.output.replacingOccurrences(of: "dry run, nothing changed: ", with: ""))
        #expect(home.run("read", "dock", "position").output == "left\n")
        #expect(home.run("read-type", "dock", "autohide").output == "boolean\n")
        #expect(home.run(arguments + ["--exit-code"]).status == .success)
        // The source is only read.
        #expect(try home.fileSystem.contents(of: "/in/dock.plist") == PropertyList.encode(MigrateTests.dockExport, as: .binary))
    }

    @Test func anINIFileWithCommentsEmptyValuesAndConflicts() throws {
        let home = InMemoryHome()
        home.run("write", "svc", "server", "-dict", "host", "old.example.com")
        try home.fileSystem.write("/etc/svc.ini", Array("""
            ; service settings
            name = svc
            [server]
            host = example.com
            port = 8080
            tls = sometimes
            [cache]
            size = 64
            dir =

            """.utf8))
        let run = home.run("migrate", "svc", "/etc/svc.ini", "--infer-types")
        #expect(run.status == .success, "\(run.error)")
        #expect(run.output == """
            migrated\tcache = { dir = ""; size = 64; }
            migrated\tname = svc
            skipped-conflict\tserver = { host = example.com; port = 8080; tls = sometimes; } (stored: { host = old.example.com; })
            2 migrated, 0 unchanged, 1 skipped-conflict, 0 missing, 0 errors

            """)
        #expect(home.run("migrate", "svc", "/etc/svc.ini", "--infer-types", "--overwrite", "--keys", ":server:port,:server:host").status == .success)
        #expect(try home.suite("svc") == ["name": "svc", "cache": ["size": 64, "dir": ""], "server": ["host": "example.com", "port": 8080]])
        // --bool-keys with a value that is no boolean fails the whole migration: nothing changes.
        let before = home.fileSystem.snapshot()
        let failed = home.run("migrate", "svc", "/etc/svc.ini", "--overwrite", "--bool-keys", ":server:tls")
        #expect(failed.status == .dataError)
        #expect(failed.output.contains("error\tserver: :server:tls is a string that is not 0/1, yes/no, on/off or true/false\n"))
        #expect(failed.output.hasSuffix("failed, nothing changed: 1 migrated, 1 unchanged, 0 skipped-conflict, 0 missing, 1 error\n"), "\(failed.output)")
        #expect(failed.error == "prefs: svc: 1 key could not be migrated; nothing changed (--skip-errors leaves them out)\n")
        #expect(home.fileSystem.snapshot() == before)
        let skipped = home.run("migrate", "svc", "/etc/svc.ini", "--overwrite", "--bool-keys", ":server:tls", "--skip-errors")
        #expect(skipped.status == .success && skipped.output.hasSuffix("1 migrated, 1 unchanged, 0 skipped-conflict, 0 missing, 1 error\n"), "\(skipped.output)")
    }

    /// INI values in quotes lose them, and stay text under --infer-types; from INI, --infer-types
    /// and --bool-keys take yes/no and on/off as booleans; from .env only true and false are
    /// inferred.
    @Test func iniQuotesGoAndOnOffAreBooleans() throws {
        let home = InMemoryHome()
        try home.fileSystem.write("/etc/app.ini", Array("""
            [ui]
            title = "My App"
            motto = 'say "hi"'
            half = "open
            mixed = "a" ; b
            sound = on
            music = Off
            log = yes
            count = 3
            port = "8080"
            beep = 'on'
            ratio = "1.50"

            """.utf8))
        #expect(home.run("migrate", "app", "/etc/app.ini", "--infer-types").status == .success)
        #expect(try home.suite("app") == ["ui": ["title": "My App", "motto": "say \"hi\"", "half": "\"open", "mixed": "\"a\" ; b",
                                                "sound": true, "music": false, "log": true, "count": 3,
                                                "port": "8080", "beep": "on", "ratio": "1.50"]])
        // Renamed, or one key of a section: still text; --bool-keys, asked for, makes it a boolean.
        #expect(home.run("migrate", "one", "/etc/app.ini", "--infer-types", "--keys", ":ui:port,:ui:beep,:ui:count", "--rename", ":ui:port=port",
                         "--bool-keys", ":ui:beep").status == .success)
        #expect(try home.suite("one") == ["port": "8080", "ui": ["beep": true, "count": 3]])
        #expect(home.run("migrate", "plain", "/etc/app.ini").status == .success)
        #expect(try home.suite("plain")?.value(at: ["ui", "sound"]) == "on")
        #expect(home.run("migrate", "flags", "/etc/app.ini", "--bool-keys", ":ui:music").status == .success)
        #expect(try home.suite("flags")?.value(at: ["ui", "music"]) == false)
        try home.fileSystem.write("/srv/.env", Array("SOUND=on\nDEBUG=true\n".utf8))
        #expect(home.run("migrate", "env", "/srv/.env", "--infer-types").status == .success)
        #expect(try home.suite("env") == ["SOUND": "on", "DEBUG": true])
    }

    @Test func dotenvStdinLikeSourcesAndSuites() throws {
        let home = InMemoryHome()
        try home.fileSystem.write("/srv/.env", Array("export PORT=8080\nDEBUG=true\nNAME=\"my app\"\n".utf8))
        #expect(home.run("migrate", "app", "/srv/.env", "--infer-types").status == .success)
        #expect(try home.suite("app") == ["PORT": 8080, "DEBUG": true, "NAME": "my app"])
        try home.fileSystem.write("/srv/.env.local", Array("LOCAL=yes\n".utf8))
        #expect(home.run("migrate", "local", "/srv/.env.local").status == .success)
        #expect(try home.suite("local") == ["LOCAL": "yes"])
        try home.fileSystem.write("/srv/settings", Array("PORT=1\n".utf8))
        #expect(home.run("migrate", "other", "/srv/settings", "--from", "env").status == .success)
        #expect(try home.suite("other") == ["PORT": "1"])
        // Another suite, and the global suite, as sources.
        home.run("write", "-g", "AppleLocale", "en_GB")
        #expect(home.run("migrate", "copy", "app", "--keys", "NAME").status == .success)
        #expect(home.run("migrate", "copy", "-g").status == .success)
        #expect(try home.suite("copy") == ["NAME": "my app", "AppleLocale": "en_GB"])
        #expect(home.run("migrate", "copy", "nosuch").status == .notFound)
        #expect(home.run("migrate", "copy", "/srv/none.json").status == .noInput)
        #expect(home.run("migrate", "copy", "app", "--rename", "NAME").status == .usage)
        #expect(home.run("migrate", "copy", "app", "--keys", "a,,b").status == .usage)
        #expect(home.run("migrate", "copy", "app", "--rename", "a=b", "--rename", "a=c").status == .usage)
        let stdinSuite = home.run("migrate", "copy", "-", "--from", "suite")
        #expect(stdinSuite.status == .usage && stdinSuite.error == "prefs: migrate: --from suite needs a suite name, not -\n")
    }

    @Test func aSuiteFixedInPlaceAndAgainChangesNothing() throws {
        let home = InMemoryHome()
        home.run("write", "app", "enabled", "-int", "1", "config", "{\"a\": [1, 2]}", "name", "x")
        let first = home.run("migrate", "app", "app", "--bool-keys", "enabled", "--decode-json-strings", "--exit-code")
        #expect(first.status == .changed, "\(first.error)")
        #expect(try home.suite("app") == ["enabled": true, "config": ["a": [1, 2]], "name": "x"])
        let before = home.fileSystem.snapshot()
        let second = home.run("migrate", "app", "app", "--bool-keys", "enabled", "--decode-json-strings", "--exit-code")
        #expect(second.status == .success && second.output.hasSuffix("0 migrated, 3 unchanged, 0 skipped-conflict, 0 missing, 0 errors\n"))
        #expect(home.fileSystem.snapshot() == before)
    }
}

/// import and migrate with the real binary: standard input as the source, and files on disk.
@Suite(.runsProcesses) struct ImportMigrateEndToEndTests {
    @Test func standardInputFeedsImportAndMigrate() async throws {
        let sandbox = try ProcessSandbox()
        let imported = try await sandbox.prefs("import", "app", "-", input: Array(#"{"a": 1, "gone": null}"#.utf8))
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try sandbox.suite("app") == ["a": 1])
        let migrated = try await sandbox.prefs("migrate", "app", "-", "--from", "ini", "--infer-types", input: Array("[db]\nport = 5432\n".utf8))
        #expect(migrated.status == 0 && migrated.outputText == "migrated\tdb = { port = 5432; }\n1 migrated, 0 unchanged, 0 skipped-conflict, 0 missing, 0 errors\n",
                "\(migrated.outputText) \(migrated.error)")
        let bad = try await sandbox.prefs("import", "app", "-", input: Array(#"{"b": 2, "c": [null]}"#.utf8))
        #expect(bad.status == 65 && bad.error.hasPrefix("prefs: standard input: JSON: "))
        #expect(try sandbox.suite("app") == ["a": 1, "db": ["port": 5432]])
        #expect(try sandbox.files() == ["app.plist"])
    }
}
