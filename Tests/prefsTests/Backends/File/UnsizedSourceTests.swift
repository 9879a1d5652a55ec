import Foundation
import Glibc
import Testing
@testable import PrefsCore

/// `read SOURCE KEY` where SOURCE is a pipe, a FIFO, a process substitution or standard input: their
/// size is not known before their end comes (`fstat` says 0), and the one-key read takes them whole,
/// as the whole-document read does — the key is found, whatever the format or size; a source without
/// end (`/dev/zero`) is refused at 256 MiB (BoundedInputTests).
@Suite(.runsProcesses) struct UnsizedSourceTests {
    /// `SOURCE` replaced by each kind of source giving the document at `FILE`.
    static let sources = [
        "cat FILE | prefs read - KEY",
        "cat FILE | prefs read /dev/stdin KEY",
        "prefs read <(cat FILE) KEY",
        "cat FILE > FIFO & prefs read FIFO KEY; status=$?; wait; exit $status",
    ]

    /// A small XML and binary document, and ones larger than a one-key read takes in one piece
    /// (64 KiB), which go through the streaming readers.
    static let documents: [(name: String, format: Int, entries: Int)] = [("small.xml", 0, 3), ("small.bin", 1, 3), ("large.xml", 0, 20_000), ("large.bin", 1, 20_000)]

    @Test(arguments: sources)
    func theKeyIsReadFromASourceWithoutASize(source: String) async throws {
        let sandbox = try ProcessSandbox()
        for (name, format, entries) in UnsizedSourceTests.documents {
            var contents = PrefDictionary((0..<entries).map { ("k\($0)", PrefValue.string(String(repeating: "v", count: 40))) })
            contents["wanted"] = .integer(42)
            let file = try sandbox.directory.write(name, try PropertyList.encode(.dictionary(contents), as: format == 0 ? .xml : .binary))
            let fifo = sandbox.directory.file("fifo-\(name)")
            try #require(mkfifo(fifo, 0o600) == 0)
            func line(_ key: String) -> String {
                source.replacingOccurrences(of: "FILE", with: file).replacingOccurrences(of: "FIFO", with: fifo).replacingOccurrences(of: "KEY", with: key)
            }
            let found = try await sandbox.shell(line("wanted"))
            #expect(found.status == 0 && found.outputText == "42\n", "\(line("wanted")): \(found.status) \(found.error)")
            // A key the document does not hold is still "no key" (1), after the whole source is read.
            let missing = try await sandbox.shell(line("absent"))
            #expect(missing.status == 1 && missing.error.hasSuffix(": no key absent\n"), "\(line("absent")): \(missing.status) \(missing.error)")
        }
    }
}
