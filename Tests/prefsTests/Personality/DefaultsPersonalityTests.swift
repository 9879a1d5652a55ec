import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// prefs run as `defaults` (a symlink to the built binary), against the facts of macOS `defaults`:
/// a `.macos`-style script of `defaults write` lines — every type flag, every domain form, both host
/// options, the escapes — leaves in the files exactly the values macOS stores (read back by CPython's
/// plistlib), and reads, messages and exit statuses are those of `defaults`.
@Suite(.runsProcesses) struct DefaultsPersonalityTests {
    static let host = "3d1219c7c4c5404aaa1f6d2a48adfda4"

    /// A sandbox with `defaults` (and `prefs`) linked to the built binary; HOME is the sandbox and
    /// `~/Library/Preferences` exists, as on a Mac.
    final class Mac {
        let sandbox: ProcessSandbox
        var home: String { sandbox.directory.path }

        init() throws {
            sandbox = try ProcessSandbox()
            sandbox.extraEnvironment["PREFS_HOST_ID"] = DefaultsPersonalityTests.host
            try FileManager.default.createSymbolicLink(atPath: sandbox.directory.file("defaults"), withDestinationPath: Paths.binary)
            try FileManager.default.createDirectory(atPath: home + "/Library/Preferences", withIntermediateDirectories: true)
        }

        /// Runs `program` (defaults or prefs) with `$HOME` in the arguments replaced by the home.
        func run(_ arguments: [String], as program: String = "defaults", input: [UInt8] = []) async throws -> ProcessResult {
            let executable = program == "defaults" ? sandbox.directory.file("defaults") : Paths.binary
            return try await runProcess(executable, arguments.map { $0.replacingOccurrences(of: "$HOME", with: home) }, input: input,
                                  environment: sandbox.environment)
        }
    }

    /// Checks with plistlib that each line left its value; fails naming every difference.
    static func checkWithPlistlib(_ lines: [Line], home: String, config: String) async throws {
        let python = try requireProgram("python3", install: "python3")
        var program = """
            import datetime, plistlib, struct, sys
            HOME = \(pythonString(home))
            def f32(x): return struct.unpack('>f', struct.pack('>f', x))[0]
            def same(a, b):
                if type(a) is not type(b): return False
                if isinstance(a, dict): return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
                if isinstance(a, list): return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
                return a == b
            failures = 0
            def check(path, key, expected):
                global failures
                try:
                    with open(path, 'rb') as f: root = plistlib.load(f)
                except Exception as e:
                    print(f'{path}: {e}'); failures += 1; return
                got = root if key is None else root.get(key, '<missing>')
                if not same(got, expected):
                    print(f'{path} {key}: {got!r} != {expected!r}'); failures += 1

            """
        for line in lines {
            let path = line.file.replacingOccurrences(of: "$CONFIG", with: config).replacingOccurrences(of: "$HOME", with: home)
            let file = path.hasPrefix("/") ? path : home + "/" + path
            program += "check(\(pythonString(file)), \(line.key.map(pythonString) ?? "None"), \(line.python))\n"
        }
        program += "sys.exit(1 if failures else 0)\n"
        let checked = try await runProcess(python, ["-c", program])
        #expect(checked.status == 0, "\(checked.outputText)\(checked.error)")
    }

    static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    @Test func aDefaultsScriptStoresWhatMacOSStores() async throws {
        let mac = try Mac()
        for line in DefaultsPersonalityTests.script {
            let run = try await mac.run(line.arguments)
            #expect(run.status == 0 && run.output.isEmpty && run.error.isEmpty, "defaults \(line.arguments): \(run.status) \(run.error)")
        }
        try await DefaultsPersonalityTests.checkWithPlistlib(DefaultsPersonalityTests.script, home: mac.home, config: mac.sandbox.config)
    }

    /// The lines that do not depend on the personality store the same through prefs itself.
    @Test func prefsStoresTheSameForTheLinesItShares() async throws {
        let mac = try Mac()
        let shared = DefaultsPersonalityTests.script.filter(\.prefsToo)
        for line in shared {
            let run = try await mac.run(line.arguments, as: "prefs")
            #expect(run.status == 0 && run.output.isEmpty && run.error.isEmpty, "prefs \(line.arguments): \(run.status) \(run.error)")
        }
        try await DefaultsPersonalityTests.checkWithPlistlib(shared, home: mac.home, config: mac.sandbox.config)
    }

    // MARK: What a script reading through `defaults` sees

    /// What one command prints and exits with: standard output exactly, and the message NSLog
    /// writes on standard error after its `DATE TIME defaults[PID:TID] ` prefix.
    struct Expected: Sendable {
        let arguments: [String]
        var output = ""
        var logged: String? = nil
        var status: Int32 = 0
    }

    static let usage = DefaultsMessages.usage

    static let reads: [Expected] = [
        Expected(arguments: ["read", "com.apple.dock", "autohide"], output: "1\n"),
        Expected(arguments: ["read", "com.apple.dock", "tilesize"], output: "36\n"),
        Expected(arguments: ["read", "com.apple.dock", "autohide-time-modifier"], output: "0.1\n"),
        Expected(arguments: ["read", "com.apple.dock", "autohide-delay"], output: "0\n"),
        Expected(arguments: ["read", "com.apple.dock", "orientation"], output: "left\n"),
        Expected(arguments: ["read", "com.apple.dock", "recent"], output: "(\n    a,\n    b,\n    2\n)\n"),
        Expected(arguments: ["read", "com.apple.dock", "persistent-apps"], output: "(\n)\n"),
        Expected(arguments: ["read", "com.example", "when"], output: "2026-01-02 03:04:05 +0000\n"),
        Expected(arguments: ["read", "com.example", "blob"], output: "{length = 3, bytes = 0x0a0b0c}\n"),
        Expected(arguments: ["read", "com.example", "escapes"], output: "line\nbreak\tA\n"),
        Expected(arguments: ["read", "com.apple.mail", "NSUserKeyEquivalents"], output: "{\n    Archive = \"@$\\\\U2190\";\n    Send = \"@\\\\U21a9\";\n}\n"),
        Expected(arguments: ["read", "com.example.replace"], output: "{\n    a = 1;\n    b =     (\n        x\n    );\n}\n"),
        Expected(arguments: ["read", "-g", "AppleInterfaceStyle"], output: "Dark\n"),
        Expected(arguments: ["read", "Apple Global Domain", "KeyRepeat"], output: "2\n"),
        Expected(arguments: ["Read", "$HOME/Library/Preferences/com.apple.loginwindow", "GuestEnabled"], output: "0\n"),
        Expected(arguments: ["read", "$HOME/Library/Preferences/com.apple.loginwindow.plist", "GuestEnabled"], output: "0\n"),
        Expected(arguments: ["read", "com.apple.bare.plist", "k"], output: "v\n"),
        Expected(arguments: ["-currentHost", "read", "com.apple.screensaver", "idleTime"], output: "0\n"),
        Expected(arguments: ["-host", "studio", "read", "com.apple.screensaver"], output: "{\n    askForPassword = 1;\n}\n"),
        Expected(arguments: ["read-type", "com.apple.dock", "autohide"], output: "Type is boolean\n"),
        Expected(arguments: ["read-type", "com.apple.dock", "tilesize"], output: "Type is integer\n"),
        Expected(arguments: ["read-type", "com.apple.dock", "autohide-delay"], output: "Type is float\n"),
        Expected(arguments: ["read-type", "com.apple.dock", "orientation"], output: "Type is string\n"),
        Expected(arguments: ["read-type", "com.example", "when"], output: "Type is date\n"),
        Expected(arguments: ["read-type", "com.example", "blob"], output: "Type is data\n"),
        Expected(arguments: ["read-type", "com.example", "list"], output: "Type is array\n"),
        Expected(arguments: ["read-type", "com.example", "window"], output: "Type is dictionary\n"),
        Expected(arguments: ["domains"], output: """
            com.apple.BluetoothAudioAgent, com.apple.Safari, com.apple.bare.plist, com.apple.dock, com.apple.finder, com.apple.mail, \
            com.apple.screencapture, com.apple.spotlight, com.apple.terminal, com.example, com.example.replace

            """),
        Expected(arguments: ["-currentHost", "domains"], output: "com.apple.screensaver\n"),
        Expected(arguments: ["find", "includedevelop"], output: "Found 1 keys in domain 'com.apple.Safari': {\n    IncludeDevelopMenu = 1;\n}\n"),
        Expected(arguments: ["find", "SAFARI"], output: """
            Found 2 keys in domain 'com.apple.Safari': {
                IncludeDevelopMenu = 1;
                ProxiesInBookmarksBar =     (
                );
            }

            """),
        Expected(arguments: ["read", "com.apple.spotlight", "orderedItems"], output: """
            (
                    {
                    enabled = 1;
                    name = APPLICATIONS;
                },
                    {
                    enabled = 0;
                    name = "MENU_WEBSEARCH";
                }
            )

            """),
        Expected(arguments: ["find", "Nlsv"], output: "Found 1 keys in domain 'com.apple.finder': {\n    FXPreferredViewStyle = Nlsv;\n}\n"),
        Expected(arguments: ["find", "Apps"], output: """
            Found 2 keys in domain 'com.apple.dock': {
                "persistent-apps" =     (
                );
                "persistent-others" =     (
                            {
                        "tile-data" =             {
                            "file-label" = Apps;
                        };
                        "tile-type" = "directory-tile";
                    }
                );
            }

            """),
        Expected(arguments: ["find", "zzqq"], logged: "No domain, key, nor value containing 'zzqq'"),
        // Stored values only: the global suite does not answer for a suite, as it does in prefs.
        Expected(arguments: ["read", "com.apple.dock", "AppleInterfaceStyle"],
                 logged: "\nThe domain/default pair of (com.apple.dock, AppleInterfaceStyle) does not exist\n", status: 1),
        Expected(arguments: ["read", "com.apple.screensaver", "idleTime"],
                 logged: "\nThe domain/default pair of (com.apple.screensaver, idleTime) does not exist\n", status: 1),
        Expected(arguments: ["read", "-g", "nokey"], logged: "\nThe domain/default pair of (kCFPreferencesAnyApplication, nokey) does not exist\n", status: 1),
        Expected(arguments: ["read-type", "com.example", "nokey"], logged: "\nThe domain/default pair of (com.example, nokey) does not exist\n", status: 1),
        Expected(arguments: ["read", "com.nothing"], logged: "\nDomain com.nothing does not exist\n", status: 1),
        Expected(arguments: ["read", "$HOME/nothing"], logged: "\nDomain $HOME/nothing does not exist\n", status: 1),
        Expected(arguments: ["export", "com.nothing", "-"], logged: "\nThe domain com.nothing does not exist\n", status: 1),
        Expected(arguments: ["delete", "com.nothing"], logged: "\nDomain (com.nothing) not found.\nDefaults have not been changed.\n", status: 1),
        Expected(arguments: ["delete", "com.example", "nokey"], logged: "\nDomain (com.example) not found.\nDefaults have not been changed.\n", status: 1),
        Expected(arguments: ["delete", "-g", "nokey"], logged: "\nDomain (kCFPreferencesAnyApplication) not found.\nDefaults have not been changed.\n", status: 1),
        Expected(arguments: ["rename", "com.example", "nokey", "x"], logged: "Key nokey does not exist in domain com.example; leaving defaults unchanged", status: 1),
        Expected(arguments: ["rename", "-g", "nokey", "x"], logged: "Key nokey does not exist in domain Apple Global Domain; leaving defaults unchanged", status: 1),
        Expected(arguments: ["write", "com.example", "k", "v", "extra"], logged: "Unexpected argument extra; leaving defaults unchanged.", status: 1),
        Expected(arguments: ["write", "com.apple.dock", "orientation", "-array-add", "x"],
                 logged: "Value for key orientation is not an array; cannot append.  Leaving defaults unchanged.", status: 1),
        Expected(arguments: ["write", "com.apple.dock", "orientation", "-dict-add", "x", "y"],
                 logged: "Value for key orientation is not a dictionary; cannot append.  Leaving defaults unchanged.", status: 1),
        Expected(arguments: ["write", "com.example", "k", "-array", "-dict"], logged: "Cannot nest composite types (arrays and dictionaries); exiting", status: 1),
        Expected(arguments: ["write", "com.example", "k", "-dict", "a"], logged: "Key a lacks a corresponding value", status: 1),
        Expected(arguments: ["write", "com.example", "k", "Main (1)"], logged: "Could not parse: Main (1).  Try single-quoting it.", status: 1),
        Expected(arguments: ["write", "com.example", "k"], logged: "\nRep argument is not a dictionary\nDefaults have not been changed.\n", status: 1),
        Expected(arguments: ["import", "com.example"], logged: "\nNeed a path to read from", status: 1),
        Expected(arguments: ["import", "com.example", "$HOME/nothing.plist"], logged: "Could not read data from $HOME/nothing.plist", status: 1),
        Expected(arguments: ["export", "com.example"], logged: "\nNeed a path to write to", status: 1),
        Expected(arguments: ["write", "com.example", "k", "-bool", "maybe"], output: usage, status: 255),
        Expected(arguments: ["write", "com.example", "k", "-int"], output: usage, status: 255),
        Expected(arguments: ["rename", "com.example", "a"], output: usage, status: 255),
        Expected(arguments: ["frobnicate", "com.example"], output: usage, status: 255),
        Expected(arguments: ["-host"], output: usage, status: 255),
        Expected(arguments: [], output: usage, status: 255),
        Expected(arguments: ["help"], output: usage),
        Expected(arguments: ["HELP", "me"], output: usage),
        Expected(arguments: ["printHostIdentifier"], output: host + "\n"),
    ]

    static func run(_ mac: Mac, _ expected: Expected) async throws {
        let run = try await mac.run(expected.arguments)
        let home = { (text: String) in text.replacingOccurrences(of: "$HOME", with: mac.home) }
        #expect(run.status == expected.status, "\(expected.arguments): \(run.status) \(run.error)")
        #expect(run.outputText == home(expected.output), "\(expected.arguments)")
        guard let logged = expected.logged else {
            #expect(run.error.isEmpty, "\(expected.arguments): \(run.error)")
            return
        }
        let prefix = try #require(run.error.prefixMatch(of: #/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} defaults\[\d+:\d+\] /#), "\(expected.arguments): \(run.error)")
        let message = home(logged)
        #expect(String(run.error[prefix.range.upperBound...]) == message + (message.hasSuffix("\n") ? "" : "\n"), "\(expected.arguments)")
    }

    @Test func aScriptReadingThroughDefaultsSeesWhatMacOSShows() async throws {
        let mac = try Mac()
        for line in DefaultsPersonalityTests.script { try #require(try await mac.run(line.arguments).status == 0) }
        for expected in DefaultsPersonalityTests.reads { try await DefaultsPersonalityTests.run(mac, expected) }
    }

    /// Run as prefs, the same binary and suites are prefs: every layer, its own text.
    @Test func invokedAsPrefsNothingChanges() async throws {
        let mac = try Mac()
        for line in DefaultsPersonalityTests.script.prefix(20) { try #require(try await mac.run(line.arguments).status == 0) }
        #expect(try await mac.run(["read", "com.apple.dock", "autohide"], as: "prefs").outputText == "true\n")
        #expect(try await mac.run(["read", "com.apple.dock", "AppleInterfaceStyle"], as: "prefs").outputText == "Dark\n")
        #expect(try await mac.run(["read", "com.apple.dock", "autohide"]).outputText == "1\n")
        #expect(try await mac.run(["read-type", "com.apple.dock", "autohide"], as: "prefs").outputText == "boolean\n")
        #expect(try await mac.run(["READ", "com.apple.dock"], as: "prefs").status == 64)
        #expect(try await mac.run(["domains"], as: "prefs").outputText.split(separator: "\n").count > 1)
    }

    @Test func changesKeepTheirMeaning() async throws {
        let mac = try Mac()
        for line in DefaultsPersonalityTests.script { try #require(try await mac.run(line.arguments).status == 0) }
        for expected in [
            Expected(arguments: ["remove", "com.example", "upper"]),
            Expected(arguments: ["read", "com.example", "upper"], logged: "\nThe domain/default pair of (com.example, upper) does not exist\n", status: 1),
            Expected(arguments: ["rename", "com.example", "quoted", "renamed"]),
            Expected(arguments: ["read", "com.example", "renamed"], output: "two words\n"),
            Expected(arguments: ["delete", "com.example.replace"]),
            Expected(arguments: ["read", "com.example.replace"], logged: "\nDomain com.example.replace does not exist\n", status: 1),
            Expected(arguments: ["-currentHost", "delete", "com.apple.screensaver", "idleTime"]),
            Expected(arguments: ["read", "-app", "Safari"], logged: "Couldn't find an application named \"Safari\"; defaults unchanged "
                     + "(there are no application bundles on Linux: name the domain instead)", status: 1),
        ] { try await DefaultsPersonalityTests.run(mac, expected) }
        #expect(try mac.sandbox.suite("com.example.replace") == nil)
        let byHost = mac.sandbox.config + "/ByHost/com.apple.screensaver.\(DefaultsPersonalityTests.host).plist"
        #expect(try PropertyList.decode(try Fixtures.bytes(byHost)).value == [:])
    }

    /// `export D FILE` writes a binary plist, `export D -` XML; `import` merges a plist (not JSON).
    @Test func exportAndImportAsMacOSDoes() async throws {
        let mac = try Mac()
        for line in DefaultsPersonalityTests.script.prefix(10) { try #require(try await mac.run(line.arguments).status == 0) }
        let dock = try #require(try mac.sandbox.suite("com.apple.dock"))
        let xml = try await mac.run(["export", "com.apple.dock", "-"])
        #expect(xml.status == 0 && xml.outputText.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist"))
        #expect(try PropertyList.decode(xml.output) == (dock, .xml))
        #expect(try await mac.run(["export", "com.apple.dock", "$HOME/dock.plist"]).status == 0)
        #expect(try PropertyList.decode(try Fixtures.bytes(mac.home + "/dock.plist")) == (dock, .binary))
        try mac.sandbox.directory.write("in.plist", try PropertyList.encode(["tilesize": 64, "magnification": true], as: .xml))
        #expect(try await mac.run(["import", "com.apple.dock", "$HOME/in.plist"]).status == 0)
        var merged = try #require(dock.dictionary)
        merged["tilesize"] = 64
        merged["magnification"] = true
        #expect(try mac.sandbox.suite("com.apple.dock") == .dictionary(merged))
        let fromInput = try await mac.run(["import", "com.apple.dock", "-"], input: Array("{ orientation = bottom; }".utf8))
        #expect(fromInput.status == 0)
        #expect(try mac.sandbox.suite("com.apple.dock")?.dictionary?["orientation"] == "bottom")
        try mac.sandbox.directory.write("in.json", "{\"tilesize\": 1}")
        let json = try await mac.run(["import", "com.apple.dock", "$HOME/in.json"])
        #expect(json.status == 1 && json.error.contains("Could not parse property list from \(mac.home)/in.json due to "))
        #expect(try mac.sandbox.suite("com.apple.dock")?.dictionary?["tilesize"] == 64)
    }
}
