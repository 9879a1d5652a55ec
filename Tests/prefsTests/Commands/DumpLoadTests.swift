import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `dump` and `load`: every suite backed up as one lossless document and restored, each suite all or
/// nothing, external values streamed both ways.
@Suite(.runsProcesses) struct DumpLoadTests {
    static let config = "/home/u/.config"

    /// A home holding suites stored as binary plists, which keep every type exactly.
    static func home(_ suites: [String: PrefValue]) throws -> InMemoryHome {
        let home = InMemoryHome()
        try home.fileSystem.createDirectory(config, mode: 0o700)
        for (name, contents) in suites {
            let file = name == "NSGlobalDomain" ? "/.GlobalPreferences.plist" : "/\(name).plist"
            try home.fileSystem.write(config + file, try PropertyList.encode(contents, as: .binary))
        }
        return home
    }

    static func dump(_ home: InMemoryHome, _ arguments: [String] = []) -> (status: PrefsCore.ExitStatus, bytes: [UInt8], error: String) {
        let run = prefs(["dump"] + arguments, environment: home.environment, fileSystem: home.fileSystem)
        return (run.status, run.bytes, run.error)
    }

    /// Random suites of every type (UIDs, date fractions, −0.0 and NaN, nested containers, keys of any
    /// script) come back exactly; the dump is the typed-JSON document TypedJSON writes for them.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func everyValueComesBackExactly(seed: UInt64) throws {
        var random = RandomValues(seed: seed)
        var suites: [String: PrefValue] = [:]
        for name in ["NSGlobalDomain", "com.example.app", "b", "zeta.é"] {
            // No change stores an empty top-level key.
            let contents = try #require(random.dictionary().dictionary)
            suites[name] = .dictionary(PrefDictionary(contents.filter { !$0.key.isEmpty }.map { ($0.key, $0.value) }))
        }
        let home = try DumpLoadTests.home(suites)
        let dumped = DumpLoadTests.dump(home)
        #expect(dumped.status == .success, "\(dumped.error)")
        let expected = try TypedJSON.encode(["prefs-dump": 1, "suites": .dictionary(PrefDictionary(suites.map { ($0.key, $0.value) }))])
        #expect(dumped.bytes == expected, "seed \(seed)")

        // Into suites stored as binary plists (new ones are XML, which keeps whole seconds).
        let empty = try DumpLoadTests.home(suites.mapValues { _ in [:] })
        try empty.fileSystem.write("/home/u/dump.json", dumped.bytes)
        let load = empty.run("load", "/home/u/dump.json", "--exit-code")
        let restored = suites.values.filter { $0.dictionary?.isEmpty == false }.count
        #expect(load.status == (restored > 0 ? .changed : .success), "\(load.output) \(load.error)")
        #expect(load.output.hasSuffix("\(restored) restored, \(4 - restored) unchanged, 0 failed\n"), "\(load.output)")
        for (name, contents) in suites {
            let restored = prefs(["export", name, "-", "--format", "typed-json"], environment: empty.environment, fileSystem: empty.fileSystem).bytes
            let value = try PropertyList.decode(restored).value
            #expect(firstDifference(value, contents) == "", "seed \(seed) \(name)")
        }
        // Loading again changes nothing.
        #expect(empty.run("load", "/home/u/dump.json", "--exit-code").output == """
            unchanged\tNSGlobalDomain
            unchanged\tb
            unchanged\tcom.example.app
            unchanged\tzeta.é
            0 restored, 4 unchanged, 0 failed

            """)
    }

    @Test func registeredDefaultsGoWithRegistered() throws {
        let home = try DumpLoadTests.home(["app": ["k": 1]])
        home.run("register", "app", "theme", "light")
        home.run("register", "-g", "g", "-int", "1")
        let plain = try PropertyList.decode(DumpLoadTests.dump(home).bytes).value
        #expect(plain == ["prefs-dump": 1, "suites": ["app": ["k": 1]]])
        let full = try PropertyList.decode(DumpLoadTests.dump(home, ["--registered"]).bytes).value
        #expect(full == ["prefs-dump": 1, "registered": ["NSGlobalDomain": ["g": 1], "app": ["theme": "light"]], "suites": ["app": ["k": 1]]])

        let other = InMemoryHome()
        try other.fileSystem.write("/home/u/dump.json", try TypedJSON.encode(full))
        #expect(other.run("load", "/home/u/dump.json") == (.success, """
            restored\tNSGlobalDomain (registered): 1 added, 0 replaced, 0 removed
            restored\tapp (registered): 1 added, 0 replaced, 0 removed
            restored\tapp: 1 added, 0 replaced, 0 removed
            3 restored, 0 unchanged, 0 failed

            """, ""))
        #expect(other.run("read", "app", "--origin").output.hasPrefix("stored\tk\t1\nregistered:"))
        #expect(other.run("read", "app", "theme").output == "light\n")
        #expect(other.run("read", "-g", "g").output == "1\n")
    }

    /// Each suite becomes exactly what the dump holds: keys it lacks go; suites it lacks stay.
    @Test func loadRestoresEachSuiteExactlyAndLeavesTheOthers() throws {
        let home = try DumpLoadTests.home(["app": ["a": 1, "b": 2, "c": 3], "kept": ["x": 1]])
        try home.fileSystem.write("/home/u/dump.json", try TypedJSON.encode(["prefs-dump": 1, "suites": ["app": ["a": 1, "b": 20, "d": 4]]]))
        #expect(home.run("load", "/home/u/dump.json", "--dry-run", "--exit-code") == (.changed, """
            restored\tapp: 1 added, 1 replaced, 1 removed
            dry run, nothing changed: 1 restored, 0 unchanged, 0 failed

            """, ""))
        #expect(try home.suite("app") == ["a": 1, "b": 2, "c": 3])
        #expect(home.run("load", "/home/u/dump.json").status == .success)
        #expect(try home.suite("app") == ["a": 1, "b": 20, "d": 4])
        #expect(try home.suite("kept") == ["x": 1])
    }

    /// A suite that cannot be restored is reported, with its error on standard error and its status
    /// at the end; the others are restored, and it is left exactly as it was.
    @Test func aSuiteThatFailsLeavesTheOthersRestored() throws {
        let home = try DumpLoadTests.home(["good": ["a": 1]])
        try home.fileSystem.write(DumpLoadTests.config + "/broken.plist", Array("<plist><dict>".utf8))
        try home.fileSystem.write("/home/u/dump.json", try TypedJSON.encode(["prefs-dump": 1, "suites": ["broken": ["k": 1], "good": ["a": 2]]]))
        let run = home.run("load", "/home/u/dump.json")
        #expect(run.status == .dataError)
        #expect(run.output == "failed\tbroken\nrestored\tgood: 0 added, 1 replaced, 0 removed\nnot all restored: 1 restored, 0 unchanged, 1 failed\n")
        #expect(run.error.hasPrefix("prefs: \(DumpLoadTests.config)/broken.plist: XML plist:"), "\(run.error)")
        #expect(try home.fileSystem.contents(of: DumpLoadTests.config + "/broken.plist") == Array("<plist><dict>".utf8))
        #expect(try home.suite("good") == ["a": 2])
    }

    /// A document that is not a whole, well-formed dump of this version changes nothing at all —
    /// though suites before the fault were read fine.
    @Test(arguments: [
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"app": {"dictionary": {"a": {"integer": 2}}}, "#, "the document ends"),
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 2}, "suites": {"dictionary": {}}}}}"#, "a dump of version 1"),
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"suites": {"dictionary": {}}}}}"#, "no prefs-dump version"),
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"-g": {"dictionary": {}}}}}}}"#, #""-g" does not name a suite"#),
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"a/b": {"dictionary": {}}}}}}}"#, #""a/b" does not name a suite"#),
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "other": {"dictionary": {}}}}}"#, #"unknown part "other""#),
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"app": {"dictionary": {"a": {"integer": 1.5}}}}}}}}"#, "app: a:"),
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"app": {"dictionary": {"a": {"data": "!!"}}}}}}}}"#, "app: a:"),
        (#"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {}}}}} x"#, "more after the document"),
        (#"{"app": {"a": 1}}"#, "unknown member \"app\""),
        ("", "the document ends where { was expected"),
    ])
    func aBadDocumentChangesNothing(document: String, message: String) throws {
        let home = try DumpLoadTests.home(["app": ["a": 1]])
        try home.fileSystem.write("/home/u/dump.json", Array(document.utf8))
        let before = home.fileSystem.snapshot()
        let run = home.run("load", "/home/u/dump.json")
        #expect(run.status == .dataError, "\(run.error)")
        #expect(run.output == "")
        #expect(run.error.hasPrefix("prefs: /home/u/dump.json: typed JSON: byte ") && run.error.contains(message), "\(run.error)")
        #expect(home.fileSystem.snapshot() == before)
    }

    @Test func aMissingDumpIsMissingInput() {
        #expect(InMemoryHome().run("load", "/home/u/nope.json") == (.noInput, "", "prefs: /home/u/nope.json: no such file\n"))
    }

    /// `dump FILE` replaces FILE atomically, 0600 when new; a dump that fails leaves it as it was.
    @Test func dumpToAFileIsAtomicAndPrivate() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let file = sandbox.directory.file("backup.json")
        #expect(try await sandbox.prefs("dump", file).status == 0)
        var info = stat()
        stat(file, &info)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try PropertyList.decode(try Fixtures.bytes(file)).value == ["prefs-dump": 1, "suites": ["app": ["k": "v"]]])
        // A suite that cannot be read fails the dump (65), and the backup stays as it was.
        try "<plist><dict>".write(toFile: sandbox.config + "/broken.plist", atomically: true, encoding: .utf8)
        let before = try Fixtures.bytes(file)
        let failed = try await sandbox.prefs("dump", file)
        #expect(failed.status == 65)
        #expect(failed.error.hasPrefix("prefs: \(sandbox.config)/broken.plist: XML plist:"), "\(failed.error)")
        #expect(try Fixtures.bytes(file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).filter { $0.contains("backup") } == ["backup.json"])
    }

    /// External values: a 16 MB data value and a 5 MB string go through `dump` and `load` with the
    /// process never holding them whole: its peak memory stays within three quarters of the data
    /// value's size of what a dump of a one-key suite takes (the value whole would be 16 MB, its
    /// base64 21 MB; reading a large blob takes three 2 MiB buffers, its pieces 1 MiB of base64).
    @Test func largeExternalValuesStreamThroughDumpAndLoad() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "tiny", "k", "v")
        let baseline = try await peakMemory(sandbox, ["dump"]).kilobytes
        let size = 16 << 20
        var bytes = [UInt8](repeating: 0, count: size)
        for i in stride(from: 0, to: size, by: 4093) { bytes[i] = UInt8(truncatingIfNeeded: i >> 7) }
        let source = try sandbox.directory.write("big.bin", bytes)
        let text = String(repeating: "line \"quoted\" \u{1}é\n", count: 1 << 18)
        let textFile = try sandbox.directory.write("big.txt", text)
        #expect(try await sandbox.prefs("delete", "tiny").status == 0)
        #expect(try await sandbox.prefs("write", "app", "big", "-data", "@" + source, "text", "-string-file", textFile, "small", "-int", "1", timeout: 600).status == 0)
        let dump = sandbox.directory.file("dump.json")
        // 32 MiB through a debug build: a generous hang guard, as a loaded machine needs it.
        let dumped = try await peakMemory(sandbox, ["dump", dump], timeout: 600)
        #expect(dumped.status == 0)
        #expect(dumped.kilobytes < baseline + 3 * size >> 12, "dump: peak \(dumped.kilobytes) KB, \(baseline) KB for one key")
        let value = try PropertyList.decode(try Fixtures.bytes(dump)).value
        #expect(value == ["prefs-dump": 1, "suites": ["app": ["big": .data(bytes), "small": 1, "text": .string(text)]]])

        // Into a fresh store: the values go straight into new blobs.
        let other = try ProcessSandbox()
        let loaded = try await peakMemory(other, ["load", dump], timeout: 600)
        #expect(loaded.status == 0)
        #expect(loaded.kilobytes < baseline + 3 * size >> 12, "load: peak \(loaded.kilobytes) KB, \(baseline) KB for one key")
        #expect(try await other.prefs("check", "app").outputText == "app: 2 external values OK\n")
        #expect(try await other.prefs("read", "app", "big", "--raw", timeout: 600).output == bytes)
        #expect(try await other.prefs("read", "app", "text", "--raw").outputText == text)
        // Again: nothing changes, and the blobs written meanwhile are gone.
        #expect(try await other.prefs("load", dump).outputText == "unchanged\tapp\n0 restored, 1 unchanged, 0 failed\n")
        #expect(try await other.prefs("check", "app").outputText == "app: 2 external values OK\n")
    }

    /// A dry run writes no blob and creates nothing, and reads from standard input work.
    @Test func aDryRunFromStandardInputCreatesNothing() async throws {
        let sandbox = try ProcessSandbox()
        let text = try sandbox.directory.write("big.txt", String(repeating: "x", count: 300_000))
        try await sandbox.prefs("write", "app", "big", "-string-file", text, "k", "v")
        let dump = try await sandbox.prefs("dump").output
        let other = try ProcessSandbox()
        let run = try await other.prefs("load", "-", "--dry-run", input: dump)
        #expect(run.outputText == "restored\tapp: 2 added, 0 replaced, 0 removed\ndry run, nothing changed: 1 restored, 0 unchanged, 0 failed\n")
        #expect(!FileManager.default.fileExists(atPath: other.config))
        #expect(!FileManager.default.fileExists(atPath: other.data))
        #expect(try await other.prefs("load", "-", input: dump).status == 0)
        #expect(try await other.prefs("read", "app", "k").outputText == "v\n")
        #expect(try await other.prefs("check", "app").outputText == "app: 1 external value OK\n")
    }

    /// A damaged blob fails the dump (65, naming the suite and key): a backup is never silently wrong.
    @Test func aDamagedBlobFailsTheDump() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "big", "-data", "00", "--external")
        let directory = sandbox.data + "/prefs/external/app/big"
        let blob = directory + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first))
        try Data([1]).write(to: URL(fileURLWithPath: blob))
        let run = try await sandbox.prefs("dump", sandbox.directory.file("out.json"))
        #expect(run.status == 65)
        #expect(run.error.hasPrefix("prefs: app: big: external value: blob "), "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.directory.file("out.json")))
    }
}
