import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// The `defaults` personality prints values as macOS `defaults read` does. The expected texts are
/// real output of macOS `defaults` (and of Foundation's descriptions) that people pasted into public
/// repositories and issues, rebuilt here from the values they show.
@Suite struct DefaultsDescriptionTests {
    /// `defaults read co.fahn.up-rs.test-up_run_passing` on macOS, from gibfahn/up-rs's test
    /// (`EXPECTED_DEFAULTS_VALUE`): nested containers, quoting, booleans as 1/0, a float, key order.
    @Test func aDomainPrintsAsMacOSPrintsIt() {
        let domain: PrefValue = [
            "AppleICUDateFormatStrings": ["1": "y-MM-dd", "2": "y-MM-dd", "3": "y-MM-dd", "4": "EEEE, y-MM-dd"],
            "AppleKeyboardUIMode": 2,
            "AppleWindowTabbingMode": "always",
            "CustomHeaders": ["List-ID", "Message-ID", "X-Member-Count"],
            "HintCharacters": "tnseriaodhplfuwyq;gjvmc,x.z/bk4738291056",
            "MJConfigFile": "~/.config/hammerspoon/init.lua",
            "NSNavPanelExpandedStateForSaveMode": true,
            "NSNavPanelExpandedStateForSaveMode2": false,
            "_FXShowPosixPathInTitle": true,
            "autohide-time-modifier": 0.25,
        ]
        #expect(DefaultsDescription.text(domain) == """
            {
                AppleICUDateFormatStrings =     {
                    1 = "y-MM-dd";
                    2 = "y-MM-dd";
                    3 = "y-MM-dd";
                    4 = "EEEE, y-MM-dd";
                };
                AppleKeyboardUIMode = 2;
                AppleWindowTabbingMode = always;
                CustomHeaders =     (
                    "List-ID",
                    "Message-ID",
                    "X-Member-Count"
                );
                HintCharacters = "tnseriaodhplfuwyq;gjvmc,x.z/bk4738291056";
                MJConfigFile = "~/.config/hammerspoon/init.lua";
                NSNavPanelExpandedStateForSaveMode = 1;
                NSNavPanelExpandedStateForSaveMode2 = 0;
                "_FXShowPosixPathInTitle" = 1;
                "autohide-time-modifier" = "0.25";
            }
            """)
    }

    static func hex(_ text: String) -> [UInt8] { Hex.decode(text.replacingOccurrences(of: " ", with: ""))! }

    /// Data as Foundation describes it (outputs quoted in public issues): every byte up to 24, else
    /// the first 16 and the last 8 bytes in groups of four.
    @Test func dataIsDescribedWithItsLengthAndAbbreviated() {
        #expect(DefaultsDescription.text(.data([])) == "{length = 0, bytes = 0x}")
        #expect(DefaultsDescription.text(.data(DefaultsDescriptionTests.hex("45534916"))) == "{length = 4, bytes = 0x45534916}")
        let twenty = DefaultsDescriptionTests.hex("f77dab924958c4e14725ca4be09ee78d1a1e48c3")
        #expect(DefaultsDescription.text(.data(twenty)) == "{length = 20, bytes = 0xf77dab924958c4e14725ca4be09ee78d1a1e48c3}")
        // 33 bytes: what the middle holds is not shown.
        let head = DefaultsDescriptionTests.hex("e3456d6f 64656c49 6950686f 6e65392c"), tail = DefaultsDescriptionTests.hex("6973696f 6e494409")
        let long = head + [UInt8](repeating: 0xAA, count: 9) + tail
        #expect(DefaultsDescription.text(.data(long)) == "{length = 33, bytes = 0xe3456d6f 64656c49 6950686f 6e65392c ... 6973696f 6e494409 }")
        let exactly24 = [UInt8](0..<24)
        #expect(DefaultsDescription.text(.data(exactly24)) == "{length = 24, bytes = 0x" + Hex.encode(exactly24) + "}")
    }

    /// A keychain item's dictionary as a public write-up printed it: data unquoted, dates quoted.
    @Test func scalarsInsideContainers() throws {
        let date = try #require(PrefDate(year: 2023, month: 10, day: 19, hour: 3, minute: 12, second: 17))
        let item: PrefValue = ["gena": .data(DefaultsDescriptionTests.hex("45534916")), "mdat": .date(date), "musr": .data([]),
                               "pdmn": "cku", "svce": "Axolotl", "sync": 0, "tomb": 0]
        #expect(DefaultsDescription.text(item) == """
            {
                gena = {length = 4, bytes = 0x45534916};
                mdat = "2023-10-19 03:12:17 +0000";
                musr = {length = 0, bytes = 0x};
                pdmn = cku;
                svce = Axolotl;
                sync = 0;
                tomb = 0;
            }
            """)
        #expect(DefaultsDescription.text(.date(date)) == "2023-10-19 03:12:17 +0000")
    }

    /// A dictionary in an array opens after both indentations (`defaults read com.apple.dock`).
    @Test func nestedContainersIndentAsFoundationDoes() {
        let dock: PrefValue = ["persistent-apps": [["GUID": 1, "tile-data": ["book": .data([1]), "file-label": "Safari"]], [:]], "e": []]
        #expect(DefaultsDescription.text(dock) == """
            {
                e =     (
                );
                "persistent-apps" =     (
                            {
                        GUID = 1;
                        "tile-data" =             {
                            book = {length = 1, bytes = 0x01};
                            "file-label" = Safari;
                        };
                    },
                            {
                    }
                );
            }
            """)
    }

    @Test(arguments: [
        (PrefValue.string("plain"), "plain"), (.string("two words"), "two words"), (.integer(-3), "-3"), (.real(0.1), "0.1"),
        (.real(Double(Float(0.1))), "0.1"), (.real(1.0 / 3), "0.3333333333333333"), (.real(48), "48"), (.real(1e20), "1e+20"),
        (.bool(true), "1"), (.bool(false), "0"), (.unsignedInteger(UInt64.max), "18446744073709551615"),
    ])
    func aScalarAlonePrintsBare(value: PrefValue, text: String) {
        #expect(DefaultsDescription.text(value) == text)
    }

    /// Inside a container, text made of ASCII letters and digits only is bare; anything else is quoted
    /// with escapes, characters beyond ASCII as \\U and UTF-16 units, two backslashes as macOS prints
    /// them (`Send = "@\\U21a9";`).
    @Test(arguments: [
        ("Dark", "Dark"), ("", "\"\""), ("en-US", "\"en-US\""), ("a_b", "\"a_b\""), ("@↩", "\"@\\\\U21a9\""), ("中文", "\"\\\\U4e2d\\\\U6587\""),
        ("😀", "\"\\\\Ud83d\\\\Ude00\""), ("say \"hi\"\\", "\"say \\\"hi\\\"\\\\\""), ("a\nb\tc", "\"a\\nb\\tc\""), ("1", "1"),
    ])
    func textInsideAContainerIsQuotedUnlessAlphanumeric(text: String, described: String) {
        #expect(DefaultsDescription.text(.array([.string(text)])) == "(\n    \(described)\n)")
    }
}
