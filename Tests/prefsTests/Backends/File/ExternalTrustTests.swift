import Foundation
import Testing
@testable import PrefsCore

/// External storage under attack, with real processes: symlinks planted in the store are never
/// followed (nothing written through them, nothing deleted behind them), `gc --grace 0` racing
/// writers loses no committed write, and a blob damaged in place is never served as good.
@Suite(.runsProcesses) struct ExternalTrustTests {
    static let large = ["PREFS_EXTERNAL_THRESHOLD": "1K"]

    /// A victim directory outside the store with a file two levels down, as `gc` once deleted.
    static func victim(_ sandbox: ProcessSandbox) throws -> (directory: String, file: String) {
        let directory = sandbox.directory.file("victim")
        try FileManager.default.createDirectory(atPath: directory + "/a", withIntermediateDirectories: true)
        let file = directory + "/a/b"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: file))
        // Old enough for any grace period.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: file)
        return (directory, file)
    }

    static func everything(under directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).sorted()
    }

    func run(_ sandbox: ProcessSandbox, _ arguments: String...) async throws -> ProcessResult {
        try await runProcess(Paths.binary, arguments, environment: sandbox.environment.merging(Self.large) { $1 })
    }

    @Test(arguments: ["external", "external/s", "external/s/k"])
    func aSymlinkInTheStoreIsNeverFollowed(linked: String) async throws {
        let sandbox = try ProcessSandbox()
        let (victim, file) = try Self.victim(sandbox)
        let big = try sandbox.directory.write("big", [UInt8](repeating: 7, count: 5000))
        // A real blob first, so the suite has a reference and key directories exist.
        try #require(try await run(sandbox, "write", "s", "k", "-data", "@" + big).status == 0)
        let store = sandbox.data + "/prefs/"
        let link = store + linked
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        let before = Self.everything(under: victim)
        let suite = try Fixtures.bytes(sandbox.config + "/s.plist")

        for arguments in [["gc", "--grace", "0"], ["gc", "s", "--grace", "0"], ["check"], ["check", "s"]] {
            let result = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
            #expect(result.status == 65, "\(arguments): \(result.status) \(result.outputText)\(result.error)")
            #expect((result.outputText + result.error).contains("is a symbolic link"), "\(arguments): \(result.outputText)\(result.error)")
        }
        // A write that needs the linked directory fails with 73 naming it; nothing lands behind it.
        let write = try await run(sandbox, "write", "s", "k", "-data", "@" + big, "--external")
        #expect(write.status == 73, "\(write.status) \(write.error)")
        #expect(write.error.contains(link) && write.error.contains("symbolic link"), "\(write.error)")
        // Reads that need a blob behind it fail with 65.
        for arguments in [["read", "s", "k"], ["read", "s", "k", "--raw"], ["export", "s", "-"], ["read-type", "s", "k"]] {
            let read = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
            #expect(read.status == 65, "\(arguments): \(read.status) \(read.error)")
        }
        #expect(Self.everything(under: victim) == before)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "precious")
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == suite)
        // The link itself is left for the user to look at.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == victim)
    }

    /// A blob replaced by a symlink to a file outside the store is reported and never read or removed.
    @Test func aBlobThatIsASymlinkIsNeitherReadNorRemoved() async throws {
        let sandbox = try ProcessSandbox()
        let (_, file) = try Self.victim(sandbox)
        let big = try sandbox.directory.write("big", [UInt8](repeating: 1, count: 5000))
        try #require(try await run(sandbox, "write", "s", "k", "-data", "@" + big).status == 0)
        let keyDirectory = sandbox.data + "/prefs/external/s/k"
        let blob = try #require(try FileManager.default.contentsOfDirectory(atPath: keyDirectory).first)
        try FileManager.default.removeItem(atPath: keyDirectory + "/" + blob)
        try FileManager.default.createSymbolicLink(atPath: keyDirectory + "/" + blob, withDestinationPath: file)
        try FileManager.default.createSymbolicLink(atPath: keyDirectory + "/stray", withDestinationPath: file)
        let read = try await sandbox.prefs("read", "s", "k")
        #expect(read.status == 65 && read.error.contains("symbolic link"), "\(read.status) \(read.error)")
        let gc = try await sandbox.prefs("gc", "--grace", "0")
        #expect(gc.status == 65 && gc.error.contains("stray"), "\(gc.status) \(gc.error)")
        // Overwriting the key drops its old reference; the link in its place is not removed.
        try #require(try await run(sandbox, "write", "s", "k", "small").status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "precious")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: keyDirectory + "/" + blob) == file)
    }

    /// 50 writes of 1 MB values while `gc --grace 0` runs in a loop: every write that exited 0 reads
    /// back byte for byte (gc once deleted blobs that writes were about to commit).
    @Test func gcWithNoGraceLosesNoCommittedWrite() async throws {
        let sandbox = try ProcessSandbox()
        for i in 0..<5 {
            try sandbox.directory.write("v\(i)", (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* (i + 3) >> 3) })
        }
        let script = """
            set -u
            ( while [ ! -e "$HOME/done" ]; do prefs gc --grace 0 >/dev/null 2>>"$HOME/gc-errors"; done ) &
            ( while [ ! -e "$HOME/done" ]; do prefs gc race --grace 0 >/dev/null 2>>"$HOME/gc-errors"; done ) &
            for i in $(seq 0 49); do
              if prefs write race "k$i" -data "@$HOME/v$((i % 5))" 2>>"$HOME/write-errors"; then echo "$i"; fi
            done > "$HOME/succeeded"
            touch "$HOME/done"
            wait
            """
        let result = try await sandbox.shell(script)
        try #require(result.status == 0, "\(result.error)")
        let succeeded = try String(contentsOfFile: sandbox.directory.file("succeeded"), encoding: .utf8).split(separator: "\n")
        let failures = (try? String(contentsOfFile: sandbox.directory.file("write-errors"), encoding: .utf8)) ?? ""
        #expect(succeeded.count == 50, "writes that failed: \(failures)")
        for i in succeeded {
            let index = Int(i)!
            let read = try await sandbox.prefs("read", "race", "k\(index)", "--raw")
            #expect(read.status == 0, "k\(index): \(read.error)")
            let expected = try Fixtures.bytes(sandbox.directory.file("v\(index % 5)"))
            #expect(read.output == expected, "k\(index) differs")
        }
        let check = try await sandbox.prefs("check", "race")
        #expect(check.status == 0 && check.outputText == "race: 50 external values OK\n", "\(check.outputText)\(check.error)")
    }

    /// A blob changed in place at the same size: every path that reads it fails with 65 naming the
    /// blob, `read --raw` after streaming what it had (documented), and nothing is exported. The
    /// large one (past the size where two threads read and hash it) is damaged in the middle of a
    /// piece, in its first and its last piece in turn.
    @Test func aBlobDamagedInPlaceIsNeverServedAsGood() async throws {
        let sandbox = try ProcessSandbox()
        let original = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let source = try sandbox.directory.write("v", original)
        try #require(try await sandbox.prefs("write", "s", "k", "-data", "@" + source).status == 0)
        let text = try sandbox.directory.write("text", String(repeating: "x", count: 200_000))
        try #require(try await sandbox.prefs("write", "s", "text", "-string-file", text).status == 0)
        let large = try sandbox.directory.write("large", (0..<(9 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 * 13 + $0 >> 12) })
        try #require(try await sandbox.prefs("write", "s", "large", "-data", "@" + large).status == 0)
        let sizes = ["k": 300_000, "text": 200_000, "large": (9 << 20) + 5]
        for (key, offset) in [("k", 150_000), ("text", 150_000), ("large", 5 << 19), ("large", 3), ("large", (9 << 20) + 2)] {
            let keyDirectory = sandbox.data + "/prefs/external/s/" + key
            let blob = keyDirectory + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: keyDirectory).first))
            let byte = try Fixtures.bytes(blob)[offset]
            try Fixtures.overwrite(blob, at: offset, with: [byte == 0x79 ? 0x7A : 0x79])
            for arguments in [["read", "s", key], ["read", "s", key, "--raw"], ["read-type", "s", key], ["export", "s", "-"],
                              ["export", "s", sandbox.directory.file("out.plist")], ["read", "s"], ["read", "s", key, "--json"]] {
                let read = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
                #expect(read.status == 65, "\(arguments): \(read.status)")
                // A whole-suite read stops at the first damaged value (k, damaged first).
                let named = arguments.contains(key) ? key : "k"
                #expect(read.error.contains("s: \(named): external value: blob \(named)/") && read.error.contains("is damaged"), "\(arguments): \(read.error)")
                if arguments.contains("--raw") {
                    #expect(read.output.count == sizes[key]!, "--raw streams, then fails")
                } else if arguments == ["read", "s", key] {
                    // read DOMAIN KEY streams too (data as hex): the value, then the failure, no newline.
                    #expect(read.output.count == (key == "text" ? 1 : 2) * sizes[key]!, "\(arguments) streams, then fails")
                } else {
                    #expect(read.output.isEmpty, "\(arguments) printed \(read.output.count) bytes")
                }
            }
            #expect(!FileManager.default.fileExists(atPath: sandbox.directory.file("out.plist")))
            if key == "large" {
                // Mended, for the next offset: read back whole again.
                try Fixtures.overwrite(blob, at: offset, with: [byte])
                #expect(try await sandbox.prefs("read", "s", key, "--raw").output == Fixtures.bytes(large))
            }
        }
        let check = try await sandbox.prefs("check", "s")
        #expect(check.status == 65 && check.outputText.components(separatedBy: "is damaged").count == 3, "\(check.outputText)")
    }
}
