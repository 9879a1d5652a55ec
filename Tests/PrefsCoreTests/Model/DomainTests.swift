import Testing
@testable import PrefsCore

/// Domain arguments, as prefs reads them and as the `defaults` personality reads them (where only
/// `/` and `~` make a path, as CFPreferences takes domains).
@Suite struct DomainTests {
    static let table: [(argument: String, prefs: Domain?, defaults: Domain?)] = [
        ("com.apple.dock", .suite("com.apple.dock"), .suite("com.apple.dock")),
        ("-g", .global, .global),
        ("-globalDomain", .global, .global),
        ("NSGlobalDomain", .global, .global),
        (".GlobalPreferences", .global, .global),
        ("Apple Global Domain", .global, .global),
        ("/Library/Preferences/com.apple.loginwindow", .file("/Library/Preferences/com.apple.loginwindow"),
         .file("/Library/Preferences/com.apple.loginwindow")),
        ("~/Library/Preferences/com.apple.dock", .file("~/Library/Preferences/com.apple.dock"), .file("~/Library/Preferences/com.apple.dock")),
        ("com.apple.dock.plist", .file("com.apple.dock.plist"), .suite("com.apple.dock.plist")),
        ("settings.json", .file("settings.json"), .suite("settings.json")),
        ("dir/app", .file("dir/app"), .file("dir/app")),
        ("~", .file("~"), .file("~")),
        // A name starting with ~ but holding no / stays a suite name (no one types ~USER alone).
        ("~tilde", .suite("~tilde"), .suite("~tilde")),
        ("-", .standardInput, .standardInput),
        ("-app", nil, nil),
        ("", nil, nil),
        (".hidden", nil, nil),
        ("a\u{1}b", nil, nil),
    ]

    @Test(arguments: table.indices)
    func eachFormNamesWhatItShould(index: Int) {
        let row = DomainTests.table[index]
        #expect((try? Domain(argument: row.argument)) == row.prefs, "prefs: \(row.argument)")
        #expect((try? Domain(argument: row.argument, plistNamesAreSuites: true)) == row.defaults, "defaults: \(row.argument)")
    }

    /// A path domain is the file it names when one is there, as typed when it ends in `.plist` or
    /// `.json`, and otherwise that path with `.plist` (as `defaults` takes it); `~` is the home.
    @Test(arguments: FileSystemKind.allCases)
    func aPathIsTheFileThereElseThePathWithPlist(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        let root = fixture.root
        try fixture.put("exists", [])
        try fixture.put("dir/inside.plist", [])
        let store = SuiteStore(fileSystem: fixture.fileSystem, environment: Environment(["HOME": root, "XDG_CONFIG_HOME": root + "/config", "XDG_CONFIG_DIRS": root + "/xdg"]))
        let table: [(String, String)] = [
            (root + "/exists", root + "/exists"),
            (root + "/missing", root + "/missing.plist"),
            (root + "/missing.plist", root + "/missing.plist"),
            (root + "/missing.json", root + "/missing.json"),
            (root + "/dir", root + "/dir.plist"),
            (root + "/dir/inside", root + "/dir/inside.plist"),
            ("~/exists", root + "/exists"),
            ("~/com.apple.dock", root + "/com.apple.dock.plist"),
            ("~", root + ".plist"),
        ]
        for (typed, file) in table {
            #expect(try store.location(of: .file(typed)) == .file(file), "\(typed)")
        }
        #expect(throws: PrefsError.self) { try SuiteStore(fileSystem: fixture.fileSystem, environment: Environment([:])).location(of: .file("~/x")) }
        #expect(try SuiteStore.expandingTilde("~root/x", home: nil) == "/root/x")
        #expect(throws: PrefsError.self) { try SuiteStore.expandingTilde("~no-such-user-here/x", home: nil) }
    }
}
