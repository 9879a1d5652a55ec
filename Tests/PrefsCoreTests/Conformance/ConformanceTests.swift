import Testing
@testable import PrefsCore

/// Every file in Tests/Conformance gets the verdict its README states.
@Suite struct JSONConformanceTests {
    static func name(_ path: String) -> String { String(path.split(separator: "/").last!) }

    @Test func everyYDocumentIsAccepted() throws {
        let files = try Fixtures.conformanceFiles("json/test_parsing").filter { JSONConformanceTests.name($0).hasPrefix("y_") }
        #expect(files.count == 95)
        for file in files {
            #expect(throws: Never.self, "\(file)") { _ = try PropertyList.validate(try Fixtures.bytes(file)) }
        }
    }

    @Test func everyNDocumentIsRefusedAsMalformed() throws {
        let files = try Fixtures.conformanceFiles("json/test_parsing").filter { JSONConformanceTests.name($0).hasPrefix("n_") }
        #expect(files.count == 188)
        for file in files {
            do {
                _ = try PropertyList.validate(try Fixtures.bytes(file))
                Issue.record("accepted \(file)")
            } catch let error as PrefsError {
                #expect(error.exitStatus == .dataError, "\(file): \(error)")
            }
        }
    }

    /// The implementation-defined documents: these four are accepted, every other one refused.
    static let acceptedImplementationDefined: Set<String> = [
        "i_number_double_huge_neg_exp.json",  // 123.456e-789 rounds to 0.0
        "i_number_real_underflow.json",  // 123e-10000000 rounds to 0.0
        "i_structure_500_nested_arrays.json",  // within the 512-level limit
        "i_structure_UTF-8_BOM_empty_object.json",  // a UTF-8 BOM is skipped
    ]

    @Test func implementationDefinedDocumentsFollowThePolicy() throws {
        let files = try Fixtures.conformanceFiles("json/test_parsing").filter { JSONConformanceTests.name($0).hasPrefix("i_") }
        #expect(files.count == 35)
        for file in files {
            let accepted = (try? PropertyList.validate(try Fixtures.bytes(file))) != nil
            #expect(accepted == JSONConformanceTests.acceptedImplementationDefined.contains(JSONConformanceTests.name(file)), "\(file)")
        }
    }

    static let transforms: [String: PrefValue?] = [
        "number_-9223372036854775808.json": [.integer(.min)],
        "number_-9223372036854775809.json": nil,
        "number_1.0.json": [1.0],
        "number_1.000000000000000005.json": [1.0],
        "number_1000000000000000.json": [1_000_000_000_000_000],
        "number_10000000000000000999.json": [.unsignedInteger(10_000_000_000_000_000_999)],
        "number_1e-999.json": [0.0],
        "number_1e6.json": [1_000_000.0],
        "number_9223372036854775807.json": [.integer(.max)],
        "number_9223372036854775808.json": [.unsignedInteger(9_223_372_036_854_775_808)],
        "object_key_nfc_nfd.json": ["\u{E9}": "NFC", "e\u{301}": "NFD"],
        "object_key_nfd_nfc.json": ["e\u{301}": "NFD", "\u{E9}": "NFC"],
        "object_same_key_different_values.json": ["a": 2],
        "object_same_key_same_value.json": ["a": 1],
        "object_same_key_unclear_values.json": ["a": 0],
        "string_1_escaped_invalid_codepoint.json": nil,
        "string_1_invalid_codepoint.json": nil,
        "string_2_escaped_invalid_codepoints.json": nil,
        "string_2_invalid_codepoints.json": nil,
        "string_3_escaped_invalid_codepoints.json": nil,
        "string_3_invalid_codepoints.json": nil,
        "string_with_escaped_NULL.json": ["A\u{0}B"],
    ]

    @Test func transformsArePinned() throws {
        let files = try Fixtures.conformanceFiles("json/test_transform")
        #expect(Set(files.map(JSONConformanceTests.name)) == Set(JSONConformanceTests.transforms.keys))
        for file in files {
            let expected = JSONConformanceTests.transforms[JSONConformanceTests.name(file)] ?? nil
            let actual = try? PropertyList.decode(try Fixtures.bytes(file)).value
            #expect(actual == expected, "\(file)")
        }
    }
}

@Suite struct PlistConformanceTests {
    static func decode(_ relative: String) throws -> (value: PrefValue, format: PlistFormat) {
        try PropertyList.decode(try Fixtures.bytes(try Fixtures.conformance(relative)))
    }

    @Test func cpythonReferenceDocumentIsTheSameInBothFormats() throws {
        let xml = try PlistConformanceTests.decode("plist/cpython-plistlib/valid/testdata.xml.plist")
        let binary = try PlistConformanceTests.decode("plist/cpython-plistlib/valid/testdata.bin.plist")
        #expect(xml.format == .xml && binary.format == .binary)
        #expect(xml.value == binary.value)
        guard case .dictionary(let root) = xml.value else { Issue.record("not a dictionary"); return }
        #expect(root["aBigInt2"] == .unsignedInteger(9_223_372_036_854_775_852))
        #expect(root["aDate"] == .date(PrefDate(iso8601: "2004-10-26T10:33:33Z")!))
    }

    @Test func keyedArchiveKeepsItsUIDs() throws {
        let (value, format) = try PlistConformanceTests.decode("plist/cpython-plistlib/valid/keyed_archive.bin.plist")
        #expect(format == .binary)
        var uids = 0
        PlistConformanceTests.visit(value) { if case .uid = $0 { uids += 1 } }
        #expect(uids > 0)
        #expect(try value.roundTripped(.binary) == value)
        #expect(try value.roundTripped(.typedJSON) == value)
    }

    @Test func everyInvalidBinaryIsRefused() throws {
        let files = try Fixtures.conformanceFiles("plist/cpython-plistlib/invalid-binary")
        #expect(files.count == 40)
        for file in files {
            #expect(throws: PrefsError.self, "\(file)") { try PropertyList.decode(try Fixtures.bytes(file)) }
        }
    }

    @Test func everyReferenceAndOffsetWidthReadsTheSameValue() throws {
        let expected = try PlistConformanceTests.decode("plist/libplist/data/offxml.plist").value
        for width in ["1byte", "2bytes", "3bytes", "4bytes", "5bytes", "6bytes", "7bytes", "8bytes"] {
            for kind in ["dictref", "off"] {
                #expect(try PlistConformanceTests.decode("plist/libplist/data/\(kind)\(width).bplist").value == expected, "\(kind)\(width)")
            }
        }
    }

    @Test(arguments: ["signed", "unsigned", "signedunsigned", "order"])
    func binaryAndXMLTwinsAgree(name: String) throws {
        let xml = try PlistConformanceTests.decode("plist/libplist/data/\(name).plist")
        let binary = try PlistConformanceTests.decode("plist/libplist/data/\(name).bplist")
        #expect(xml.value == binary.value)
    }

    @Test func libplistSpecifics() throws {
        #expect(try PlistConformanceTests.decode("plist/libplist/data/hex.plist").value == .integer(0x73709551615))
        #expect(try PlistConformanceTests.decode("plist/libplist/data/cdata.plist").value == [
            "cdata&key": "string with cdata content:  !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~ !!!",
        ])
        let dates = try PlistConformanceTests.decode("plist/libplist/data/7.plist").value
        #expect(dates == ["Time1": .date(PrefDate(iso8601: "2010-11-12T13:14:15Z")!), "Time2": .date(PrefDate(iso8601: "2008-07-06T05:04:03Z")!),
                          "Time3": .date(PrefDate(iso8601: "1869-01-03T08:16:32Z")!), "Time4": .date(PrefDate(iso8601: "2199-08-20T01:10:11Z")!)])
        #expect(try PlistConformanceTests.decode("plist/libplist/data/uid.bplist").value == .uid(7))
        let int64 = try PlistConformanceTests.decode("plist/libplist/data/int64_min_max.json")
        #expect(int64.value == ["INT64_MIN": .integer(.min), "INT64_MAX": .integer(.max)])
        let strings = try PlistConformanceTests.decode("plist/libplist/data/test.strings")
        #expect(strings.format == .openStep)
        guard case .dictionary(let table) = strings.value else { Issue.record("strings file"); return }
        #expect(table["BAR"] == "Foo" && table["ENTRY1"] == "日本語" && table.count == 12)
        let o2 = try PlistConformanceTests.decode("plist/libplist/data/o2.ostep").value
        guard case .dictionary(let o2root) = o2 else { Issue.record("o2"); return }
        #expect(o2root["Some String with Unicode entity"] == "Yeah check this: \u{1234} !!!")
        #expect(o2root["Some Int"] == "32434543632")
    }

    @Test(arguments: ["1.plist", "2.plist", "3.plist", "4.plist", "6.plist", "empty_keys.plist", "entities.plist",
                      "data.bplist", "j1.json", "j2.json", "o1.ostep", "o3.ostep"])
    func libplistDocumentsDecodeAndRoundTrip(name: String) throws {
        let value = try PlistConformanceTests.decode("plist/libplist/data/\(name)").value
        #expect(try value.roundTripped(.binary) == value)
        #expect(try value.roundTripped(.typedJSON) == value)
    }

    @Test(arguments: ["recursion.bplist", "malformed_dict.bplist", "invalid_tag.plist", "amp.plist"])
    func libplistFailures(name: String) throws {
        #expect(throws: PrefsError.self) { try PlistConformanceTests.decode("plist/libplist/data/\(name)") }
    }

    /// Inputs that once crashed libplist: each gives a value or an error, never a crash or a hang.
    @Test(arguments: ["bplist-crashes", "xplist-crashes", "jplist-crashes", "oplist-crashes"])
    func libplistCrashersAreHarmless(folder: String) throws {
        let files = try Fixtures.conformanceFiles("plist/libplist/fuzz/\(folder)")
        for file in files {
            let bytes = try Fixtures.bytes(file)
            _ = try? PropertyList.decode(bytes)
            for format in PlistFormat.allCases { _ = try? PropertyList.decode(bytes, as: format) }
        }
    }

    static func realWorld(_ folder: String) throws -> [String] { try Fixtures.conformanceFiles("plist/real-world/\(folder)") }

    /// macOS preference files import and re-export: binary exactly, XML at whole seconds.
    @Test(arguments: ["terminal", "iterm2"])
    func realWorldFilesDecodeAndReexport(folder: String) throws {
        for file in try PlistConformanceTests.realWorld(folder) {
            let value = try PropertyList.decode(try Fixtures.bytes(file)).value
            #expect(try value.roundTripped(.binary) == value, "\(file)")
            #expect(try value.roundTripped(.xml) == RoundTripTests.xmlMapping(value), "\(file)")
        }
    }

    @Test func terminalXMLFilesHoldRawEscapeCharacters() throws {
        var found = 0
        for file in try PlistConformanceTests.realWorld("terminal") {
            let (value, format) = try PropertyList.decode(try Fixtures.bytes(file))
            guard format == .xml else { continue }
            PlistConformanceTests.visit(value) { if case .string(let s) = $0, s.contains("\u{1B}") { found += 1 } }
        }
        #expect(found > 0)
    }

    /// Binary/XML twins of the same iTerm2 settings decode to equal values (XML dates in whole seconds).
    @Test func iterm2TwinsAgree() throws {
        let files = try PlistConformanceTests.realWorld("iterm2")
        var pairs = 0
        for xmlFile in files where xmlFile.contains("_xml_") {
            let binaryFile = xmlFile.replacingOccurrences(of: "_xml_", with: "_")
            guard files.contains(binaryFile) else { continue }
            let xml = try PropertyList.decode(try Fixtures.bytes(xmlFile))
            let binary = try PropertyList.decode(try Fixtures.bytes(binaryFile))
            #expect(xml.format == .xml && binary.format == .binary, "\(xmlFile)")
            #expect(xml.value == RoundTripTests.xmlMapping(binary.value), "\(xmlFile)")
            pairs += 1
        }
        #expect(pairs >= 5)
    }

    static func visit(_ value: PrefValue, _ body: (PrefValue) -> Void) {
        body(value)
        switch value {
        case .array(let elements): elements.forEach { visit($0, body) }
        case .dictionary(let d): d.forEach { visit($0.value, body) }
        default: break
        }
    }
}
