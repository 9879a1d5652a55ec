import Foundation
import Testing
@testable import PrefsCore

/// `dump` and `load` as real processes in temp dirs: where the output goes (a full device, a symlink,
/// a FIFO), CPython's plistlib as the oracle of a round trip, awkward names, hostile documents, and
/// a load killed half-way.
@Suite(.runsProcesses) struct DumpLoadProcessTests {
    /// Writes suites with CPython's plistlib (every type XML and binary plists hold), XML or binary.
    static func writeWithPlistlib(_ config: String) async throws {
        let python = try requireProgram("python3", install: "apt-get install python3")
        let script = #"""
            import datetime, plistlib, sys
            d = sys.argv[1]
            when = datetime.datetime(2024, 2, 29, 23, 59, 58)
            suites = {
                "com.example.app": ({"timeout": 30, "ratio": 0.1, "neg": -2**63, "big": 2**63 - 1, "on": True, "off": False,
                                      "when": when, "blob": bytes(range(256)), "empty": b"", "text": "é\u2028\"<&>\n\ttab",
                                      "list": [1, "two", [3.5, {"k": None or "v"}]], "nested": {"a": {"b": {"c": [when]}}}}, plistlib.FMT_XML),
                "my suite": ({"key with spaces": "v", "line\nbreak": 1, "d": {"": "empty key"}}, plistlib.FMT_BINARY),
                ".GlobalPreferences": ({"AppleLanguages": ["en", "fr"], "AppleMetric": True}, plistlib.FMT_BINARY),
            }
            for name, (value, fmt) in suites.items():
                with open(f"{d}/{name}.plist", "wb") as f:
                    plistlib.dump(value, f, fmt=fmt, sort_keys=False)
            """#
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let run = try await runProcess(python, ["-c", script, config])
        guard run.status == 0 else { throw TestFailure("plistlib: \(run.error)") }
    }

    /// Whether plistlib reads the same value from both files.
    static func plistlibEqual(_ a: String, _ b: String) async throws -> Bool {
        let python = try requireProgram("python3", install: "apt-get install python3")
        let script = "import plistlib, sys\nprint(plistlib.load(open(sys.argv[1], 'rb')) == plistlib.load(open(sys.argv[2], 'rb')))"
        return try await runProcess(python, ["-c", script, a, b]).outputText == "True\n"
    }

    /// Suites plistlib wrote come back from dump | load equal by plistlib's reading; the dump of the
    /// restored store is byte-identical to the first, and dumping or loading a store into itself
    /// leaves every file byte-identical.
    @Test func aRoundTripIsExactByPlistlibAndByteIdentical() async throws {
        let source = try ProcessSandbox()
        try await DumpLoadProcessTests.writeWithPlistlib(source.config)
        let before = try source.files().map { try Fixtures.bytes(source.config + "/" + $0) }
        let dump = try await source.prefs("dump", "--registered")
        #expect(dump.status == 0 && dump.error == "", "\(dump.error)")

        let target = try ProcessSandbox()
        let load = try await target.prefs("load", "-", input: dump.output)
        #expect(load.outputText == """
            restored\tNSGlobalDomain: 2 added, 0 replaced, 0 removed
            restored\tcom.example.app: 12 added, 0 replaced, 0 removed
            restored\tmy suite: 3 added, 0 replaced, 0 removed
            3 restored, 0 unchanged, 0 failed

            """, "\(load.error)")
        #expect(try target.files() == source.files())
        for file in try source.files() {
            #expect(try await DumpLoadProcessTests.plistlibEqual(source.config + "/" + file, target.config + "/" + file), "\(file)")
        }
        #expect(try await target.prefs("dump", "--registered").output == dump.output)

        #expect(try await source.prefs("load", "-", input: dump.output).outputText.hasSuffix("0 restored, 3 unchanged, 0 failed\n"))
        #expect(try source.files().map { try Fixtures.bytes(source.config + "/" + $0) } == before)
    }

    /// Standard output that cannot be written is 74; a FILE that cannot be written is 73. A device,
    /// a FIFO or /dev/stdout is written to, never replaced by a regular file.
    @Test func aFullDeviceFailsAndSpecialFilesAreWrittenNotReplaced() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let expected = try await sandbox.prefs("dump").output
        let full = try await sandbox.shell("prefs dump > /dev/full")
        #expect(full.status == 74)
        #expect(full.error == "prefs: standard output: cannot write: no space left on device\n")
        let device = try await sandbox.prefs("dump", "/dev/full")
        #expect(device.status == 73)
        #expect(device.error == "prefs: /dev/full: cannot write: no space left on device\n")
        var info = stat()
        #expect(stat("/dev/full", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)

        #expect(try await sandbox.shell("prefs dump /dev/stdout | cat").output == expected)
        let fifo = sandbox.directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let piped = try await sandbox.shell("cat '\(fifo)' > '\(sandbox.directory.file("out"))' & prefs dump '\(fifo)' && wait")
        #expect(piped.status == 0, "\(piped.error)")
        #expect(try Fixtures.bytes(sandbox.directory.file("out")) == expected)
        #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    /// A symlink where dump writes is followed: its target is replaced, the link stays. One that
    /// points into a missing directory is 73 and creates nothing.
    @Test func aSymlinkWhereDumpWritesIsFollowed() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let link = sandbox.directory.file("link.json")
        let target = sandbox.directory.file("backups/real.json")
        try FileManager.default.createDirectory(atPath: sandbox.directory.file("backups"), withIntermediateDirectories: false)
        #expect(symlink("backups/real.json", link) == 0)
        #expect(try await sandbox.prefs("dump", link).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "backups/real.json")
        #expect(try Fixtures.bytes(target) == (try await sandbox.prefs("dump").output))

        let dangling = sandbox.directory.file("dangling.json")
        #expect(symlink("missing/real.json", dangling) == 0)
        let run = try await sandbox.prefs("dump", dangling)
        #expect(run.status == 73, "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.directory.file("missing")))
    }

    /// A dump written into the configuration directory itself (where the global suite, absent here,
    /// is locked through the directory) is produced with no lock held, so it takes each suite's.
    @Test func aDumpIntoTheConfigurationDirectoryWaitsForNothing() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let run = try await sandbox.shell("PREFS_LOCK_TIMEOUT=2 prefs dump \"$XDG_CONFIG_HOME/backup.json\"")
        #expect(run.status == 0, "\(run.error)")
        #expect(try Fixtures.bytes(sandbox.config + "/backup.json") == (try await sandbox.prefs("dump").output))
        #expect(try sandbox.files() == ["app.plist", "backup.json"])
    }

    /// A dump damaged anywhere — cut off inside a large value, or a bad value after suites that read
    /// fine — changes nothing: every suite file byte-identical, and no blob left from the values
    /// streamed before the fault.
    @Test(arguments: ["cut", "bad value"])
    func aCorruptDumpChangesNothing(damage: String) async throws {
        let source = try ProcessSandbox()
        let big = try source.directory.write("big.txt", String(repeating: "0123456789", count: 40_000))
        try await source.prefs("write", "a", "big", "-string-file", big, "small", "-int", "1")
        try await source.prefs("write", "b", "k", "-data", "00ff")
        var dump = try await source.prefs("dump").output
        if damage == "cut" {
            dump = Array(dump.prefix(dump.count / 2))
        } else {
            let text = String(decoding: dump, as: UTF8.self).replacingOccurrences(of: #"{"data": "AP8="}"#, with: #"{"data": "A!8="}"#)
            #expect(text.utf8.count == dump.count)
            dump = Array(text.utf8)
        }
        let target = try ProcessSandbox()
        try await target.prefs("write", "a", "old", "1")
        try await target.prefs("write", "b", "old", "2")
        let before = try target.files().map { try Fixtures.bytes(target.config + "/" + $0) }
        let run = try await target.prefs("load", "-", input: dump)
        #expect(run.status == 65, "\(run.error)")
        #expect(run.outputText == "")
        #expect(try target.files().map { try Fixtures.bytes(target.config + "/" + $0) } == before)
        let external = target.data + "/prefs/external"
        let blobs = ((try? FileManager.default.subpathsOfDirectory(atPath: external)) ?? []).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: external + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        #expect(blobs.isEmpty, "blobs left: \(blobs)")
    }

    /// This machine's ByHost suites (`-currentHost`) go in `suitesByHost`, under the host ID, and
    /// come back to that host's files on any machine; other hosts' files are not this machine's.
    @Test func byHostSuitesGoUnderTheirHost() async throws {
        let source = try ProcessSandbox()
        let onHost = "PREFS_HOST_ID=host-1 prefs"
        let setup = try await source.shell("\(onHost) write app k v && \(onHost) -currentHost write app k here && \(onHost) -currentHost write -g g -int 1"
                                     + " && \(onHost) -host other-2 write app k there")
        #expect(setup.status == 0, "\(setup.error)")
        let dump = try await source.shell("\(onHost) dump")
        #expect(dump.status == 0, "\(dump.error)")
        #expect(try PropertyList.decode(dump.output).value == ["prefs-dump": 1, "suites": ["app": ["k": "v"]],
                                                                "suitesByHost": ["host-1": ["NSGlobalDomain": ["g": 1], "app": ["k": "here"]]]])
        let target = try ProcessSandbox()
        let file = try target.directory.write("dump.json", dump.output)
        let load = try await target.shell("PREFS_HOST_ID=host-9 prefs load '\(file)'")
        #expect(load.outputText == """
            restored\tapp: 1 added, 0 replaced, 0 removed
            restored\tNSGlobalDomain (ByHost host-1): 1 added, 0 replaced, 0 removed
            restored\tapp (ByHost host-1): 1 added, 0 replaced, 0 removed
            3 restored, 0 unchanged, 0 failed

            """, "\(load.error)")
        #expect(try await target.shell("PREFS_HOST_ID=host-9 prefs -host host-1 read app k").outputText == "here\n")
        #expect(FileManager.default.fileExists(atPath: target.config + "/ByHost/.GlobalPreferences.host-1.plist"))
        let bad = try target.directory.write("bad.json", #"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suitesByHost": {"dictionary": {"../x": {"dictionary": {"app": {"dictionary": {}}}}}}}}}"#)
        let refused = try await target.prefs("load", bad)
        #expect(refused.status == 65 && refused.error.contains(#"for host "../x""#), "\(refused.error)")
    }

    /// Names with spaces and newlines go through; a file whose name is not UTF-8 is left out and said
    /// so; a dump naming a suite no DOMAIN can name changes nothing.
    @Test func awkwardNames() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "my suite", "a\nb", "-string", "line\nbreak", "tab\tkey", "-int", "1")
        let raw = Array(sandbox.config.utf8) + [UInt8(ascii: "/"), 0xFF] + Array(".plist".utf8)
        let nonUTF8 = raw.withUnsafeBufferPointer { buffer in
            let path = UnsafeMutablePointer<CChar>.allocate(capacity: buffer.count + 1)
            defer { path.deallocate() }
            for (i, byte) in buffer.enumerated() { path[i] = CChar(bitPattern: byte) }
            path[buffer.count] = 0
            return open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        }
        #expect(nonUTF8 >= 0)
        close(nonUTF8)
        let dump = try await sandbox.prefs("dump")
        #expect(dump.status == 0)
        #expect(dump.error.contains("the name is not UTF-8; skipped"), "\(dump.error)")

        let other = try ProcessSandbox()
        #expect(try await other.prefs("load", "-", input: dump.output).outputText.hasPrefix("restored\tmy suite: 2 added"))
        #expect(try await other.prefs("read", "my suite", "a\nb").outputText == "line\nbreak\n")
        #expect(try await other.prefs("read", "my suite", "tab\tkey").outputText == "1\n")

        let bad = try other.directory.write("bad.json", #"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"ok": {"dictionary": {}}, "line\nbreak": {"dictionary": {}}}}}}}"#)
        let before = try other.files()
        let run = try await other.prefs("load", bad)
        #expect(run.status == 65)
        #expect(run.error.contains(#""line"#) && run.error.contains("does not name a suite"), "\(run.error)")
        #expect(try other.files() == before)
    }

    /// A document nested far deeper than any suite may be is refused (65) quickly, changing nothing.
    @Test func aDeeplyNestedDocumentIsRefused() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "a", "-int", "1")
        let depth = 200_000
        let document = #"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"app": {"dictionary": {"a": "#
            + String(repeating: #"{"array": ["#, count: depth) + #"{"integer": 2}"# + String(repeating: "]}", count: depth) + "}}}}}}"
        let file = try sandbox.directory.write("deep.json", document)
        let run = try await sandbox.prefs("load", file, timeout: 60)
        #expect(run.status == 65)
        #expect(run.error.contains("app: a:") && run.error.contains("nested deeper than"), "\(run.error)")
        #expect(try sandbox.suite("app") == ["a": 1])
    }

    /// A suite of 50,000 keys loads, and one more key given again is refused, in linear time: it
    /// took over ten minutes when each key was looked for among those read before it.
    @Test func aSuiteOfFiftyThousandKeysLoads() async throws {
        let sandbox = try ProcessSandbox()
        try FileManager.default.createDirectory(atPath: sandbox.config, withIntermediateDirectories: true)
        var contents = PrefDictionary()
        for i in 0..<50_000 { contents[String(format: "k%06d", i)] = .integer(Int64(i)) }
        try Data(try PropertyList.encode(.dictionary(contents), as: .binary)).write(to: URL(fileURLWithPath: sandbox.config + "/big.plist"))
        let dump = try await sandbox.prefs("dump").outputText
        let duplicated = dump.replacingOccurrences(of: #""k049999": {"integer": 49999}"#, with: #""k049999": {"integer": 49999}, "k000001": {"integer": 7}"#)
        #expect(duplicated != dump)
        let other = try ProcessSandbox()
        let refused = try await other.prefs("load", "-", input: Array(duplicated.utf8), timeout: 60)
        #expect(refused.status == 65 && refused.error.contains(#"in big, "k000001" is given twice"#), "\(refused.error)")
        #expect(try other.suite("big") == nil)
        let load = try await other.prefs("load", "-", input: Array(dump.utf8), timeout: 60)
        #expect(load.outputText == "restored\tbig: 50000 added, 0 replaced, 0 removed\n1 restored, 0 unchanged, 0 failed\n", "\(load.error)")
        #expect(try other.suite("big") == .dictionary(contents))
    }

    /// A load killed (SIGKILL) half-way leaves each suite whole: either exactly as it was or exactly
    /// as dumped, never a mix; loading again finishes the job.
    @Test func aLoadKilledHalfWayLeavesEachSuiteWhole() async throws {
        let source = try ProcessSandbox()
        let target = try ProcessSandbox()
        try FileManager.default.createDirectory(atPath: source.config, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: target.config, withIntermediateDirectories: true)
        let count = 600
        let names = (0..<count).map { String(format: "s%04d", $0) }
        for (i, name) in names.enumerated() {
            let new: PrefValue = ["gen": 1, "n": .integer(Int64(i)), "list": .array((0..<20).map { .integer($0) })]
            try Data(try PropertyList.encode(new, as: .xml)).write(to: URL(fileURLWithPath: source.config + "/\(name).plist"))
            try Data(try PropertyList.encode(["gen": 0, "old": true], as: .binary)).write(to: URL(fileURLWithPath: target.config + "/\(name).plist"))
        }
        let dump = source.directory.file("dump.json")
        #expect(try await source.prefs("dump", dump).status == 0)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.binary)
        process.arguments = ["load", dump]
        process.environment = target.environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait for the first suite restored, then kill.
        _ = await eventually(timeout: 60, interval: 0.0005) { (try? target.suite(names[0]))?.dictionary?["gen"] == 1 }
        kill(process.processIdentifier, SIGKILL)
        await process.exited()
        #expect(process.terminationReason == .uncaughtSignal, "the load ended before it was killed")

        var restored = 0
        for (i, name) in names.enumerated() {
            let value = try target.suite(name)
            let new: PrefValue = ["gen": 1, "n": .integer(Int64(i)), "list": .array((0..<20).map { .integer($0) })]
            #expect(value == ["gen": 0, "old": true] || value == new, "\(name): \(String(describing: value))")
            if value == new { restored += 1 }
        }
        #expect(restored > 0 && restored < count, "\(restored) of \(count) restored when killed")
        let again = try await target.prefs("load", dump, timeout: 300)
        #expect(again.outputText.hasSuffix("\(count - restored) restored, \(restored) unchanged, 0 failed\n"), "\(again.outputText)")
        #expect(try target.files().filter { $0.hasPrefix(".") } == [])
    }
}
