import Testing
@testable import PrefsCore

@Suite struct TextSourceTests {
    @Test func iniSectionsBecomeDictionariesWithCommentsEmptyValuesAndRepeatedKeys() throws {
        let source = try INISource.read(Array("""
            ; a comment
            # another
            top = level

            [server]
            host = example.com
              port: 8080
            empty =
            note = "quoted" ; stays
            [client]
            retries=3
            [empty]
            [server]
            port = 9090
            url = http://x:80/a=b

            """.utf8))
        #expect(source.contents == [
            "top": "level",
            "server": ["host": "example.com", "port": "8080", "empty": "", "note": "\"quoted\" ; stays", "url": "http://x:80/a=b"],
            "client": ["retries": "3"], "empty": [:],
        ])
        #expect(source.problems.map { "\($0.path.display): \($0.reason)" } == [":server:port: given twice (lines 7 and 14)"])
    }

    @Test func iniLinesThatAreNothingAreADataError() {
        for (text, reason) in [("[open\n", "line 1: a section header is [NAME]"), ("a = 1\njust words\n", "line 2: expected KEY = VALUE, [SECTION] or a comment"),
                               ("[ ]\n", "line 1: the section name is empty"), ("= v\n", "line 1: the key is empty")] {
            #expect(throws: PrefsError.malformed(source: nil, format: nil, reason: "INI: " + reason)) { try INISource.read(Array(text.utf8)) }
        }
        #expect(throws: PrefsError.self) { try INISource.read([0x61, 0x3D, 0xFF]) }
    }

    @Test func aCombiningMarkAfterASeparatorDoesNotHideIt() throws {
        #expect(try DotEnvSource.read(Array("K=\u{301}x\n".utf8)).contents == ["K": "\u{301}x"])
        #expect(try INISource.read(Array("k =\u{301}v\n".utf8)).contents == ["k": "\u{301}v"])
        #expect(try PrefKeyPath(argument: ":a:\u{301}b").components == ["a", "\u{301}b"])
    }

    @Test func crlfLineEndsReadAsLines() throws {
        #expect(try DotEnvSource.read(Array("A=1\r\nB=\"two\"\r\n".utf8)).contents == ["A": "1", "B": "two"])
        #expect(try INISource.read(Array("[main]\r\nvolume = 80\r\n\r\n; c\r\n".utf8)).contents == ["main": ["volume": "80"]])
        #expect(throws: PrefsError.malformed(source: nil, format: nil, reason: "INI: line 2: expected KEY = VALUE, [SECTION] or a comment")) {
            try INISource.read(Array("a = 1\r\nwords\r\n".utf8))
        }
    }

    @Test func dotenvQuotingCommentsAndExport() throws {
        let source = try DotEnvSource.read(Array(#"""
            # comment
            export A=1
            B = two words # a comment
            C="line\nbreak \"quoted\" \$HOME # kept"
            D='$HOME \n literal'
            E=
            F=a#b
            A=again

            """#.utf8))
        #expect(source.contents == ["A": "1", "B": "two words", "C": "line\nbreak \"quoted\" $HOME # kept", "D": "$HOME \\n literal", "E": "", "F": "a#b"])
        #expect(source.problems.map { "\($0.path.display): \($0.reason)" } == ["A: given twice (lines 2 and 8)"])
        for text in ["NOEQUALS\n", "A B=1\n", "A=\"open\n", "A='x' trailing\n"] {
            #expect(throws: PrefsError.self, "\(text)") { try DotEnvSource.read(Array(text.utf8)) }
        }
    }
}

@Suite struct MigrationTests {
    func run(_ plan: MigrationPlan, _ source: PrefDictionary, into target: PrefDictionary = [:], inPlace: Bool = false)
        -> (report: [String], target: PrefDictionary)
    {
        var target = target
        let report = Migration.run(plan, source: source, target: &target, inPlace: inPlace)
        return (report.entries.map { entry in
            var line = entry.outcome.name + " " + entry.key.display + (entry.target.map { " -> " + $0.display } ?? "")
            if case .error(let reason) = entry.outcome { line += ": " + reason }
            return line
        } + [report.summary], target)
    }

    /// A macOS `defaults export`: 0/1 integers for booleans, nested collections, a date and data.
    static let macOS: PrefDictionary = [
        "ShowAll": 1, "AutoHide": 0, "Enabled": "YES", "Name": "Dock", "Count": 42,
        "Window": ["Frame": "{{0, 0}, {800, 600}}", "Visible": 1], "Recent": ["a", "b"],
        "Stamp": .date(PrefDate(secondsSinceReferenceDate: 800_000_000.5)), "Blob": .data([1, 2, 3]),
    ]

    @Test func everythingMigratesByDefaultAndBoolKeysAreExplicit() {
        var plan = MigrationPlan()
        plan.boolKeys = [PrefKeyPath(["ShowAll"]), PrefKeyPath(["AutoHide"]), PrefKeyPath(["Enabled"]), PrefKeyPath(["Window", "Visible"])]
        let (report, target) = run(plan, MigrationTests.macOS)
        #expect(report.last == "9 migrated, 0 unchanged, 0 skipped-conflict, 0 missing, 0 errors")
        #expect(target == [
            "ShowAll": true, "AutoHide": false, "Enabled": true, "Name": "Dock", "Count": 42,
            "Window": ["Frame": "{{0, 0}, {800, 600}}", "Visible": true], "Recent": ["a", "b"],
            "Stamp": .date(PrefDate(secondsSinceReferenceDate: 800_000_000.5)), "Blob": .data([1, 2, 3]),
        ])
        // Without --bool-keys nothing is guessed: 0/1 stay integers.
        #expect(run(MigrationPlan(), MigrationTests.macOS).target["ShowAll"] == 1)
    }

    @Test func aValueThatIsNoBooleanIsAnErrorForItsKey() {
        var plan = MigrationPlan()
        plan.boolKeys = [PrefKeyPath(["Count"]), PrefKeyPath(["Name"]), PrefKeyPath(["Missing"])]
        let (report, _) = run(plan, MigrationTests.macOS)
        #expect(report.contains("error Count: is an integer that is not 0/1, yes/no, on/off or true/false"))
        #expect(report.contains("error Name: is a string that is not 0/1, yes/no, on/off or true/false"))
        // A boolean key the source lacks is reported: it is most likely misspelt.
        #expect(report.contains("missing Missing"))
        #expect(report.last == "7 migrated, 0 unchanged, 0 skipped-conflict, 1 missing, 2 errors")
        plan.boolKeys = [PrefKeyPath(["Window", "Frame"])]
        #expect(run(plan, MigrationTests.macOS).report.contains("error Window: :Window:Frame is a string that is not 0/1, yes/no, on/off or true/false"))
    }

    @Test func keysRenamesAndMissingKeys() {
        var plan = MigrationPlan()
        plan.keys = [PrefKeyPath(["Name"]), PrefKeyPath(["Window", "Frame"]), PrefKeyPath(["Nope"])]
        plan.renames = [(PrefKeyPath(["Name"]), PrefKeyPath(["Title"])), (PrefKeyPath(["Window", "Frame"]), PrefKeyPath(["Geometry", "Frame"])),
                        (PrefKeyPath(["Other"]), PrefKeyPath(["X"]))]
        let (report, target) = run(plan, MigrationTests.macOS)
        #expect(report == ["migrated Name -> Title", "migrated :Window:Frame -> :Geometry:Frame", "missing Nope", "missing Other -> X",
                           "2 migrated, 0 unchanged, 0 skipped-conflict, 2 missing, 0 errors"])
        #expect(target == ["Title": "Dock", "Geometry": ["Frame": "{{0, 0}, {800, 600}}"]])
    }

    @Test func twoKeysLandingOnOnePlaceAreBothErrorsAndRepeatedKeysCountOnce() {
        var plan = MigrationPlan()
        plan.keys = [PrefKeyPath(["Name"]), PrefKeyPath(["Count"]), PrefKeyPath(["Name"])]
        plan.renames = [(PrefKeyPath(["Count"]), PrefKeyPath(["Name"]))]
        let (report, target) = run(plan, MigrationTests.macOS)
        #expect(report == ["error Name: Count would land on Name too", "error Count -> Name: Name would land on Name too",
                           "0 migrated, 0 unchanged, 0 skipped-conflict, 0 missing, 2 errors"])
        #expect(target.isEmpty)
        plan.renames = [(PrefKeyPath(["Count"]), PrefKeyPath(["Name", "Count"]))]
        #expect(run(plan, MigrationTests.macOS).report.last == "0 migrated, 0 unchanged, 0 skipped-conflict, 0 missing, 2 errors")
    }

    @Test func keysThatDifferOnlyInNormalizationStayTwoKeys() {
        let source: PrefDictionary = ["\u{E9}": 1, "e\u{301}": 2]
        let (report, target) = run(MigrationPlan(), source)
        #expect(target == source && report.last == "2 migrated, 0 unchanged, 0 skipped-conflict, 0 missing, 0 errors")
        var plan = MigrationPlan()
        plan.keys = [PrefKeyPath(["\u{E9}"])]
        plan.renames = [(PrefKeyPath(["e\u{301}"]), PrefKeyPath(["x"]))]
        #expect(run(plan, source).target == ["\u{E9}": 1])
        #expect(PrefKeyPath(["\u{E9}"]) != PrefKeyPath(["e\u{301}"]))
    }

    @Test func anInPlaceSwapKeepsBothValues() {
        var plan = MigrationPlan()
        plan.renames = [(PrefKeyPath(["a"]), PrefKeyPath(["b"])), (PrefKeyPath(["b"]), PrefKeyPath(["a"]))]
        plan.overwrite = true
        let suite: PrefDictionary = ["a": "1", "b": "2"]
        let (report, target) = run(plan, suite, into: suite, inPlace: true)
        #expect(target == ["a": "2", "b": "1"])
        #expect(report.last == "2 migrated, 0 unchanged, 0 skipped-conflict, 0 missing, 0 errors")
    }

    @Test func aRenameOfAMissingKeyIsMissingNotACollision() {
        var plan = MigrationPlan()
        plan.keys = [PrefKeyPath(["a"]), PrefKeyPath(["b"])]
        plan.renames = [(PrefKeyPath(["a"]), PrefKeyPath(["b"]))]
        #expect(run(plan, ["b": 2, "c": 3]).report == ["missing a -> b", "migrated b", "1 migrated, 0 unchanged, 0 skipped-conflict, 1 missing, 0 errors"])
    }

    @Test func aMissingKeyIsReportedOnce() {
        var plan = MigrationPlan()
        plan.keys = [PrefKeyPath(["Name"]), PrefKeyPath(["x"])]
        plan.boolKeys = [PrefKeyPath(["x"])]
        #expect(run(plan, MigrationTests.macOS).report == ["migrated Name", "missing x", "1 migrated, 0 unchanged, 0 skipped-conflict, 1 missing, 0 errors"])
    }

    @Test func anInPlaceRenameMovesTheKeyButKeepsAConflictingValue() {
        var plan = MigrationPlan()
        plan.renames = [(PrefKeyPath(["old"]), PrefKeyPath(["new"])), (PrefKeyPath(["clash"]), PrefKeyPath(["taken"]))]
        let suite: PrefDictionary = ["old": 1, "clash": 2, "taken": 3]
        // Every key is migrated, so clash and taken would both land on taken.
        #expect(run(plan, suite, into: suite, inPlace: true).report.last == "1 migrated, 0 unchanged, 0 skipped-conflict, 0 missing, 2 errors")
        plan.keys = [PrefKeyPath(["old"]), PrefKeyPath(["clash"])]
        let (report, target) = run(plan, suite, into: suite, inPlace: true)
        #expect(report == ["migrated old -> new", "skipped-conflict clash -> taken",
                           "1 migrated, 0 unchanged, 1 skipped-conflict, 0 missing, 0 errors"])
        #expect(target == ["new": 1, "clash": 2, "taken": 3])
    }

    @Test func conflictsAreKeptUnlessOverwriting() {
        let stored: PrefDictionary = ["Name": "Mine", "Count": 42, "Extra": true]
        var plan = MigrationPlan()
        plan.keys = [PrefKeyPath(["Name"]), PrefKeyPath(["Count"]), PrefKeyPath(["Recent"])]
        let kept = run(plan, MigrationTests.macOS, into: stored)
        #expect(kept.report == ["skipped-conflict Name", "unchanged Count", "migrated Recent",
                                "1 migrated, 1 unchanged, 1 skipped-conflict, 0 missing, 0 errors"])
        #expect(kept.target == ["Name": "Mine", "Count": 42, "Extra": true, "Recent": ["a", "b"]])
        plan.overwrite = true
        #expect(run(plan, MigrationTests.macOS, into: stored).target == ["Name": "Dock", "Count": 42, "Extra": true, "Recent": ["a", "b"]])
    }

    @Test func typesAreInferredOnlyFromWhatIsUnambiguous() {
        let cases: [(String, PrefValue)] = [
            ("42", 42), ("-7", -7), ("0", 0), ("007", "007"), ("-0", "-0"), ("+5", "+5"), ("1.5", 1.5), ("-2e3", -2000.0),
            ("1e400", "1e400"), ("nan", "nan"), ("inf", "inf"), ("TRUE", true), ("false", false), ("yes", "yes"),
            ("18446744073709551615", .unsignedInteger(.max)), ("18446744073709551616", "18446744073709551616"),
            ("12abc", "12abc"), ("", ""), (" 1", " 1"), ("0x10", "0x10"),
        ]
        for (text, expected) in cases {
            #expect(Migration.inferred(.string(text)) == expected, "\(text)")
        }
        #expect(Migration.inferred(["a": ["1", "x"], "b": .data([1])]) == ["a": [1, "x"], "b": .data([1])])
    }

    @Test func jsonStringsDecodeUntilNoneIsLeftSoASecondRunChangesNothing() {
        let nested = PrefValue.string(#"{"list": [1, "[2, \"{\\\"k\\\": true}\"]"], "scalar": "5"}"#)
        let once = Migration.decodingJSONStrings(nested)
        #expect(once == ["list": [1, [2, ["k": true]]], "scalar": "5"])
        #expect(Migration.decodingJSONStrings(once) == once)
        for text in ["[WARN] disk", "5", "\"x\"", "{\"a\": null}", "{}x"] {
            #expect(Migration.decodingJSONStrings(.string(text)) == .string(text), "\(text)")
        }
    }

    @Test func allTransformsTogetherAreIdempotent() {
        var plan = MigrationPlan()
        plan.inferTypes = true
        plan.decodeJSONStrings = true
        plan.boolKeys = [PrefKeyPath(["j", "flag"])]
        let suite: PrefDictionary = ["j": #"{"list": ["1", "x"], "flag": "yes"}"#, "n": "2"]
        let first = run(plan, suite, into: suite, inPlace: true)
        #expect(first.target == ["j": ["list": [1, "x"], "flag": true], "n": 2])
        let second = run(plan, first.target, into: first.target, inPlace: true)
        #expect(second.target == first.target && second.report.last == "0 migrated, 2 unchanged, 0 skipped-conflict, 0 missing, 0 errors")
    }

    @Test func inPlaceFixUpsWriteBackAndAreIdempotent() {
        var plan = MigrationPlan()
        plan.boolKeys = [PrefKeyPath(["flag"])]
        plan.decodeJSONStrings = true
        let suite: PrefDictionary = ["flag": 1, "json": "[1, 2]", "other": "x"]
        let first = run(plan, suite, into: suite, inPlace: true)
        #expect(first.target == ["flag": true, "json": [1, 2], "other": "x"])
        #expect(first.report.last == "2 migrated, 1 unchanged, 0 skipped-conflict, 0 missing, 0 errors")
        let second = run(plan, first.target, into: first.target, inPlace: true)
        #expect(second.target == first.target && second.report.last == "0 migrated, 3 unchanged, 0 skipped-conflict, 0 missing, 0 errors")
    }

    @Test func aTextSourcesRepeatedKeyFailsTheKeyThatHoldsIt() throws {
        let source = try INISource.read(Array("[a]\nx = 1\nx = 2\n[b]\ny = 3\n".utf8))
        var target = PrefDictionary()
        let report = Migration.run(MigrationPlan(), source: source.contents, problems: source.problems, target: &target)
        #expect(report.failed)
        #expect(report.entries.map(\.outcome.name) == ["error", "migrated"])
        #expect(target == ["b": ["y": "3"]])
    }
}
