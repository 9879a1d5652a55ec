import Foundation
import Glibc
import Testing
@testable import PrefsCore

/// A change that fails creates no file and no directory: the directories external storage made
/// for a blob (`prefs/`, `external/`, `SUITE/`, `KEY/`) go again with it — after a `load` whose
/// document turned out bad once a large value had been streamed, and after a write that ran out of
/// space — while those that were there before stay.
@Suite(.runsProcesses) struct FailedWriteLeavesNothingTests {
    /// Every path under `root`, directories with a trailing `/`.
    static func listing(_ root: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []).map { path in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
            return isDirectory.boolValue ? path + "/" : path
        }.sorted()
    }

    @Test func aBadDumpLeavesNoDirectoryOfTheValuesItStreamed() async throws {
        let sandbox = try ProcessSandbox()
        sandbox.extraEnvironment["PREFS_EXTERNAL_THRESHOLD"] = "1K"
        try #require(try await sandbox.prefs("write", "kept", "k", "1").status == 0)
        let large = String(repeating: "x", count: 5000)
        let streamedThenBad = #"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"# +
            #""a": {"dictionary": {"big": {"string": "\#(large)"}, "big2": {"data": "\#(Base64.encode(Array(large.utf8)))"}}}, "# +
            #""b": {"dictionary": {"big": {"string": "\#(large)"}, "bad": {"integer": 1.5}}}}}}}}"#
        let before = FailedWriteLeavesNothingTests.listing(sandbox.directory.path)
        let run = try await sandbox.prefs("load", "-", input: Array(streamedThenBad.utf8))
        #expect(run.status == 65 && run.error.contains("b: bad:"), "\(run.status) \(run.error)")
        #expect(FailedWriteLeavesNothingTests.listing(sandbox.directory.path) == before)
        // With blobs already there, those stay and only the new directories go.
        try #require(try await sandbox.prefs("write", "a", "old", String(repeating: "o", count: 2000)).status == 0)
        let withBlobs = FailedWriteLeavesNothingTests.listing(sandbox.directory.path)
        #expect(withBlobs.contains { $0.hasPrefix("data/prefs/external/a/") })
        #expect(try await sandbox.prefs("load", "-", input: Array(streamedThenBad.utf8)).status == 65)
        #expect(FailedWriteLeavesNothingTests.listing(sandbox.directory.path) == withBlobs)
    }

    /// On a full file system (a small tmpfs as `$XDG_DATA_HOME`, mounted in a private mount
    /// namespace, so it goes with the namespace whatever happens), a large value's write fails
    /// with 73 and leaves no directory, nor the suite's file; another suite's blob stays.
    @Test(.enabled(if: getuid() == 0, "needs root: unshare -m and mount -t tmpfs"))
    func aWriteThatRunsOutOfSpaceLeavesNoDirectory() async throws {
        let sandbox = try ProcessSandbox()
        let value = try sandbox.directory.write("value.bin", [UInt8](repeating: 0x5A, count: 1 << 20))
        try FileManager.default.createDirectory(atPath: sandbox.data, withIntermediateDirectories: true)
        let script = """
            mount -t tmpfs -o size=256k,mode=0700 prefs-test '\(sandbox.data)' || exit 99
            list() { (cd '\(sandbox.data)' && find . -mindepth 1 | sort); }
            prefs write s big -data @'\(value)'; echo "write $?"; list; echo --
            PREFS_EXTERNAL_THRESHOLD=1K prefs write other k "$(head -c 2000 /dev/zero | tr '\\0' o)"; echo "other $?"
            list > '\(sandbox.directory.file("before"))'
            prefs write s big -data @'\(value)'; echo "write $?"
            list | diff '\(sandbox.directory.file("before"))' - && echo same
            """
        let run = try await runProcess("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/bash", "-c", script], environment: sandbox.environment)
        #expect(run.outputText == "write 73\n--\nother 0\nwrite 73\nsame\n", "\(run.outputText) \(run.error)")
        let errors = run.error.split(separator: "\n")
        #expect(errors.count == 2 && errors.allSatisfy { $0.hasPrefix("prefs: ") && $0.lowercased().contains("no space left on device") }, "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.config + "/s.plist"))
    }
}
