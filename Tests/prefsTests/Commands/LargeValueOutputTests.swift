import Foundation
import Testing
@testable import PrefsCore

/// The largest resident set of one process, in kilobytes (from `wait4`'s rusage, measured by a
/// python wrapper so that no other process of the test run counts), with its output discarded.
func peakMemory(_ sandbox: ProcessSandbox, _ arguments: [String], output: String = "/dev/null", timeout: Double = defaultProcessTimeout) async throws -> (status: Int32, kilobytes: Int) {
    let python = try requireProgram("python3", install: "apt-get install python3")
    let script = """
        import os, resource, subprocess, sys
        with open(sys.argv[1], 'wb') as out:
            status = subprocess.run(sys.argv[2:], stdout=out).returncode
        print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        """
    let run = try await runProcess(python, ["-c", script, output, Paths.binary] + arguments, environment: sandbox.environment, timeout: timeout)
    let fields = run.outputText.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    guard fields.count == 2 else { throw TestFailure("peak memory: \(run.outputText) \(run.error)") }
    return (Int32(fields[0]), fields[1])
}

@Suite(.runsProcesses) struct LargeValueOutputTests {
    /// `read S K` of a large external data value prints its hex streamed from the blob: the process
    /// never holds the value, let alone its hex: its peak memory exceeds that of reading a small key
    /// (the binary's own footprint, large for a debug build) by less than half the value's size
    /// (the fixed read-ahead buffers of a verified read are 6 MiB).
    @Test func aLargeExternalDataValuePrintsItsHexWithBoundedMemory() async throws {
        let sandbox = try ProcessSandbox()
        let size = 24 << 20
        var bytes = [UInt8](repeating: 0, count: size)
        for i in stride(from: 0, to: size, by: 4096) { bytes[i] = UInt8(truncatingIfNeeded: i >> 12) }
        bytes[size - 1] = 0xAB
        let source = try sandbox.directory.write("big.bin", bytes)
        #expect(try await sandbox.prefs("write", "app", "big", "-data", "@" + source).status == 0)
        #expect(try await sandbox.prefs("write", "app", "small", "-int", "1").status == 0)
        let baseline = try await peakMemory(sandbox, ["read", "app", "small"])
        #expect(baseline.status == 0)
        let out = sandbox.directory.file("out.hex")
        let (status, kilobytes) = try await peakMemory(sandbox, ["read", "app", "big"], output: out)
        #expect(status == 0)
        #expect(kilobytes - baseline.kilobytes < (size >> 11),
                "peak \(kilobytes) KB, \(baseline.kilobytes) KB for a small key, for a \(size >> 10) KB value")
        let hex = try Fixtures.bytes(out)
        #expect(hex.count == size * 2 + 1)
        #expect(hex.suffix(3) == Array("ab\n".utf8))
        #expect(hex.prefix(8194).suffix(2) == Array("01".utf8))
        // The same bytes as the whole value read in memory (an inline copy of it, through --json's base64).
        let json = try await sandbox.prefs("read", "app", "big", "--json")
        #expect(json.outputText == "\"" + Data(bytes).base64EncodedString() + "\"\n")
    }

    /// A damaged blob still fails (65, naming the key) when its hex is streamed.
    @Test func aDamagedBlobFailsWhileStreamingItsHex() async throws {
        let sandbox = try ProcessSandbox()
        let source = try sandbox.directory.write("v.bin", [UInt8](repeating: 7, count: 200_000))
        #expect(try await sandbox.prefs("write", "app", "v", "-data", "@" + source).status == 0)
        let blobs = try FileManager.default.subpathsOfDirectory(atPath: sandbox.data + "/prefs/external/app").filter { !$0.hasSuffix("v") && $0.contains("/") }
        let blob = sandbox.data + "/prefs/external/app/" + (try #require(blobs.first))
        try Fixtures.overwrite(blob, at: 100, with: [8])
        let run = try await sandbox.prefs("read", "app", "v")
        #expect(run.status == 65)
        #expect(run.error.hasPrefix("prefs: app: v: external value: blob "), "\(run.error)")
    }

    /// An external string prints as it is, streamed too.
    @Test func aLargeExternalStringPrintsAsItIs() async throws {
        let sandbox = try ProcessSandbox()
        let text = String(repeating: "line of text\n", count: 20_000)
        let source = try sandbox.directory.write("t.txt", text)
        #expect(try await sandbox.prefs("write", "app", "t", "-string-file", source).status == 0)
        #expect(try await sandbox.prefs("read", "app", "t").outputText == text + "\n")
        #expect(try await sandbox.prefs("read", "app", "t", "--origin").outputText == "stored\t" + text + "\n")
    }
}

/// A whole suite shows data over 64 bytes abbreviated, as `defaults read` prints NSData; the value
/// itself (`read S K`, `--raw`, `--json`) is whole.
@Suite struct AbbreviatedDataTests {
    static let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
    static let abbreviated = "{length = 300, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 24252627 28292a2b }"

    @Test func aWholeSuiteAbbreviatesLargeData() throws {
        let home = InMemoryHome()
        let hex = Hex.encode(AbbreviatedDataTests.bytes)
        let sixtyFour = Hex.encode(Array(AbbreviatedDataTests.bytes.prefix(64)))
        home.run("write", "app", "big", "-data", hex, "edge", "-data", sixtyFour, "nested", "-array", "-data", hex)
        #expect(home.run("read", "app").output == """
            {
                big = \(AbbreviatedDataTests.abbreviated);
                edge = <\(sixtyFour)>;
                nested = (
                    \(AbbreviatedDataTests.abbreviated)
                );
            }

            """)
        #expect(home.run("read").output.contains("big = \(AbbreviatedDataTests.abbreviated);"))
        #expect(home.run("read", "app", "--origin").output.contains("stored\tbig\t\(AbbreviatedDataTests.abbreviated)\n"))
        // The value itself is whole.
        #expect(home.run("read", "app", "big").output == hex + "\n")
        #expect(home.run("read", "app", "nested").output == "(\n    <\(hex)>\n)\n")
        #expect(home.run("read", "app", "--json").output.contains(Data(AbbreviatedDataTests.bytes).base64EncodedString()))
        #expect(prefs(["read", "app", "big", "--raw"], environment: home.environment, fileSystem: home.fileSystem).bytes == AbbreviatedDataTests.bytes)
    }
}
