import Testing
@testable import PrefsCore

@Suite struct XMLPlistTests {
    static func plist(_ body: String) -> [UInt8] {
        Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n" + body + "\n</plist>\n").utf8)
    }

    static func decode(_ body: String) throws -> PrefValue { try XMLPlistDecoder.decode(plist(body)) }

    @Test func writesCoreFoundationLayout() throws {
        let text = String(decoding: try XMLPlistEncoder.encode(["b": [1, true], "a": .data([0, 1, 2]), "c": [:], "d": []]), as: UTF8.self)
        #expect(text == """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<data>
            \tAAEC
            \t</data>
            \t<key>b</key>
            \t<array>
            \t\t<integer>1</integer>
            \t\t<true/>
            \t</array>
            \t<key>c</key>
            \t<dict/>
            \t<key>d</key>
            \t<array/>
            </dict>
            </plist>

            """)
    }

    @Test(arguments: [
        ("<string>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;</string>", PrefValue.string("a <b> & \"c\" 'd'")),
        ("<string>&#169;&#x1D562;&#65;</string>", "©𝕢A"),
        ("<string><![CDATA[<not> &markup;]]> after</string>", "<not> &markup; after"),
        ("<string>be<!-- a comment -->fore</string>", "before"),
        ("<string/>", ""),
        ("<string>raw \u{1B}[0m escape</string>", "raw \u{1B}[0m escape"),
        ("<string>cr&#13;lf</string>", "cr\rlf"),
        ("<integer>0x7FFFFFFFFFFFFFFF</integer>", .integer(.max)),
        ("<integer> -0x10 </integer>", -16),
        ("<integer>+42</integer>", 42),
        ("<integer>18446744073709551615</integer>", .unsignedInteger(.max)),
        ("<integer>-9223372036854775808</integer>", .integer(.min)),
        ("<real>nan</real>", .real(.nan)),
        ("<real>+Infinity</real>", .real(.infinity)),
        ("<real>-inf</real>", .real(-.infinity)),
        ("<real>1e-3</real>", 0.001),
        ("<real>.5</real>", 0.5),
        ("<real>7</real>", 7.0),
        ("<date>2010-11-12T13:14:15Z</date>", .date(PrefDate(iso8601: "2010-11-12T13:14:15Z")!)),
        ("<date>812-01-02T03:04:05Z</date>", .date(PrefDate(iso8601: "0812-01-02T03:04:05Z")!)),
        ("<date>0001-01-01T00:00:00Z</date>", .date(PrefDate(iso8601: "0001-01-01T00:00:00Z")!)),
        ("<data>AA\n  EC\tAw==</data>", .data([0, 1, 2, 3])),
        ("<data>AAECAw</data>", .data([0, 1, 2, 3])),
        ("<true></true>", true),
        ("<dict><key>CF$UID</key><integer>7</integer></dict>", .uid(7)),
        ("<dict><key>CF$UID</key><string>7</string></dict>", ["CF$UID": "7"]),
        ("<dict>\n<key>k</key> <!-- c --> <?pi x?>\n<string>v</string></dict>", ["k": "v"]),
        ("<dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict>", ["a": 2]),
        ("<array><array/><dict/></array>", [[], [:]]),
    ] as [(String, PrefValue)])
    func reads(body: String, value: PrefValue) throws {
        #expect(try XMLPlistTests.decode(body) == value)
    }

    @Test func readsWithoutThePlistElementAndWithADoctype() throws {
        #expect(try XMLPlistDecoder.decode(Array("<dict><key>a</key><true/></dict>".utf8)) == ["a": true])
        let doctype = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist><string>x</string></plist>"
        #expect(try XMLPlistDecoder.decode(Array(doctype.utf8)) == "x")
    }

    @Test(arguments: [
        "<string>&amp</string>", "<string>&foo;</string>", "<string>&#xD800;</string>", "<string>&#x110000;</string>",
        "<string>&#;</string>", "<string>&#X41;</string>", "<string><b/></string>", "<string>unterminated", "<strin>x</strin>", "<foo/>",
        "<integer></integer>", "<integer>1.5</integer>", "<integer>0x</integer>", "<integer>18446744073709551616</integer>",
        "<integer>-9223372036854775809</integer>", "<integer>12 34</integer>",
        "<real>1e400</real>", "<real>abc</real>", "<real></real>", "<real>0x10</real>",
        "<date>2010-11-12</date>", "<date>2010-13-12T00:00:00Z</date>", "<date>10000-01-01T00:00:00Z</date>",
        "<date>-0001-01-01T00:00:00Z</date>", "<date> 2010-11-12T13:14:15Z</date>", "<date>2010-02-30T00:00:00Z</date>",
        "<data>!!!!</data>", "<data>A</data>", "<data>AA=A</data>",
        "<dict><string>no key</string></dict>", "<dict><key>k</key></dict>", "<dict><key>k</key><key>k2</key><true/></dict>",
        "<array><true/>", "<true>x</true>", "<string>a</string><string>b</string>", "<plist><true/></plist>",
        "text<true/>", "<array>text</array>", "<string>x</key>", "<string \u{0}>x</string>",
    ])
    func refuses(body: String) {
        #expect(throws: PrefsError.self) { try XMLPlistTests.decode(body) }
    }

    @Test func refusesEmptyAndMultipleRoots() {
        #expect(throws: PrefsError.self) { try XMLPlistDecoder.decode(Array("<plist></plist>".utf8)) }
        #expect(throws: PrefsError.self) { try XMLPlistDecoder.decode(Array("<plist/>".utf8)) }
        #expect(throws: PrefsError.self) { try XMLPlistDecoder.decode(Array("<plist><true/><false/></plist>".utf8)) }
        #expect(throws: PrefsError.self) { try XMLPlistDecoder.decode(Array("<true/><false/>".utf8)) }
    }

    @Test func refusesOtherEncodingsAndInvalidUTF8() {
        #expect(throws: PrefsError.self) { try XMLPlistDecoder.decode(Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><string>x</string>".utf8)) }
        #expect(throws: PrefsError.self) { try XMLPlistDecoder.decode(Array("<string>".utf8) + [0xC3, 0x28] + Array("</string>".utf8)) }
    }

    /// Entity declarations in a DOCTYPE are never expanded: a billion-laughs document fails at once.
    @Test func billionLaughsIsRefused() {
        var entities = "<!ENTITY lol \"lol\">\n"
        for i in 1...9 { entities += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i == 1 ? "" : String(i - 1));", count: 10) + "\">\n" }
        let document = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n\(entities)]>\n<plist><string>&lol9;</string></plist>"
        #expect(throws: PrefsError.malformed(source: nil, format: .xml, reason: "line 14, column 16: undefined entity &lol9;")) {
            try XMLPlistDecoder.decode(Array(document.utf8))
        }
    }

    @Test func errorsNameLineAndColumn() {
        #expect(throws: PrefsError.malformed(source: nil, format: .xml, reason: "line 4, column 1: unknown element <bogus>")) {
            try XMLPlistDecoder.decode(Array("<plist>\n<array>\n<true/>\n<bogus/>\n</array>\n</plist>".utf8))
        }
    }

    @Test func nestingIsLimited() {
        let ok = String(repeating: "<array>", count: DecodingLimits.maxDepth) + String(repeating: "</array>", count: DecodingLimits.maxDepth)
        #expect(throws: Never.self) { try XMLPlistDecoder.decode(Array(ok.utf8)) }
        let deep = String(repeating: "<array>", count: 100_000)
        #expect(throws: PrefsError.self) { try XMLPlistDecoder.decode(Array(deep.utf8)) }
    }

    /// The writer's text policy: escapes &, <, >; CR as &#13;; other controls raw; dates in whole seconds.
    @Test func writerTextPolicy() throws {
        let text = String(decoding: try XMLPlistEncoder.encode(["s": "a&b<c>d\re\u{1B}f", "d": .date(PrefDate(secondsSinceReferenceDate: 0.75))]), as: UTF8.self)
        #expect(text.contains("<string>a&amp;b&lt;c&gt;d&#13;e\u{1B}f</string>"))
        #expect(text.contains("<date>2001-01-01T00:00:00Z</date>"))
        #expect(text.contains("<key>s</key>"))
    }

    @Test func writesSpecialReals() throws {
        let text = String(decoding: try XMLPlistEncoder.encode([.real(.nan), .real(.infinity), .real(-.infinity), .real(-0.0), 1e-5]), as: UTF8.self)
        for expected in ["<real>nan</real>", "<real>+infinity</real>", "<real>-infinity</real>", "<real>-0.0</real>", "<real>1e-05</real>"] {
            #expect(text.contains(expected), "\(expected)")
        }
    }
}
