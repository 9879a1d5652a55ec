import Foundation
import Glibc
import Testing
@testable import PrefsCore

/// Every input read whole has a bound, enforced while it is read — on a regular file, a device, a
/// pipe, a FIFO and standard input alike — so a source that never ends (`/dev/zero`) is refused
/// with 65 and one line naming the bound instead of being read for ever: 4 MiB for a schema,
/// 256 MiB for any other document. Nothing is changed.
@Suite(.runsProcesses) struct BoundedInputTests {
    /// `SOURCE` in each command is replaced by a file, a device, a pipe, a FIFO or standard input,
    /// each giving zero bytes without end (the file: one byte more than the bound, sparse). `read -`
    /// is standard input as a domain, `read /dev/zero` a file domain (`read /dev/zero k` too: a one-key
    /// read takes the whole source, since `fstat` tells no size).
    static let commands: [(command: String, what: String, limit: Int)] = [
        ("prefs write s g 1 --schema SOURCE", "schema", Schema.maximumSize),
        ("prefs register s --schema SOURCE", "schema", Schema.maximumSize),
        ("prefs import s SOURCE", "document", DocumentInput.maximumSize),
        ("prefs migrate s SOURCE --from ini", "document", DocumentInput.maximumSize),
        ("prefs migrate s SOURCE --from env", "document", DocumentInput.maximumSize),
        ("prefs lint SOURCE", "document", DocumentInput.maximumSize),
        ("prefs read SOURCE", "document", DocumentInput.maximumSize),
        ("prefs read SOURCE k", "document", DocumentInput.maximumSize),
    ]

    static let sources = ["file", "device", "pipe", "fifo", "stdin"]

    /// One command at a time: each reads hundreds of MiB before it stops.
    @Test(.serialized, arguments: commands)
    func aSourceWithoutEndIsRefusedAtItsBound(command: String, what: String, limit: Int) async throws {
        let sandbox = try ProcessSandbox()
        try #require(try await sandbox.prefs("write", "kept", "k", "1").status == 0)
        let before = try sandbox.files()
        let large = sandbox.directory.file("large")
        try #require(FileManager.default.createFile(atPath: large, contents: nil) && truncate(large, off_t(limit + 1)) == 0)
        let size = "\(limit >> 20) MiB"
        // A regular file named as a suite (`read FILE`) is read whole whatever its size: its end is known.
        // `write --schema` takes a file, not standard input.
        for source in BoundedInputTests.sources where !(source == "file" && command.hasPrefix("prefs read"))
            && !(["pipe", "stdin"].contains(source) && command.hasPrefix("prefs write")) {
            let fifo = sandbox.directory.file("fifo-\(source)")
            let (line, name): (String, String)
            switch source {
            case "file": (line, name) = (command.replacingOccurrences(of: "SOURCE", with: large), large)
            case "device": (line, name) = (command.replacingOccurrences(of: "SOURCE", with: "/dev/zero"), "/dev/zero")
            case "pipe": (line, name) = ("cat /dev/zero | " + command.replacingOccurrences(of: "SOURCE", with: "-"), "standard input")
            case "fifo":
                try #require(mkfifo(fifo, 0o600) == 0)
                // The writer ends on SIGPIPE once prefs has closed the FIFO.
                (line, name) = ("cat /dev/zero > '\(fifo)' & " + command.replacingOccurrences(of: "SOURCE", with: fifo), fifo)
            default: (line, name) = (command.replacingOccurrences(of: "SOURCE", with: "-") + " < /dev/zero", "standard input")
            }
            let run = try await sandbox.shell(line + "; status=$?; wait; exit $status")
            #expect(run.status == 65, "\(line): \(run.status) \(run.error)")
            #expect(run.error == "prefs: \(name): \(what): larger than \(size)\n", "\(line): \(run.error)")
            try? FileManager.default.removeItem(atPath: fifo)
        }
        #expect(try sandbox.files() == before)
        #expect(!FileManager.default.fileExists(atPath: sandbox.data + "/prefs/schemas"))
    }

    /// `-data @FILE` streams a suite's large value into its blob with no bound, but a value kept
    /// inline (registered defaults, `--inline`) is held in memory, and bounded as a document is.
    @Test(.serialized, arguments: ["prefs register s k -data @SOURCE", "prefs write s k -data @SOURCE --inline", "prefs write s k -string-file SOURCE --inline"])
    func aValueKeptInlineIsBounded(command: String) async throws {
        let sandbox = try ProcessSandbox()
        for (source, name) in [("/dev/zero", "/dev/zero"), ("- < /dev/zero", "standard input")] {
            let run = try await sandbox.shell(command.replacingOccurrences(of: "SOURCE", with: source))
            #expect(run.status == 65 && run.error == "prefs: \(name): value kept inline: larger than 256 MiB\n", "\(command) \(source): \(run.status) \(run.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.config) && !FileManager.default.fileExists(atPath: sandbox.data))
    }

    /// `load` streams its document, but a part it holds in memory — a value that is not a suite's
    /// large string or data, a registered default, a name — is bounded as a document is.
    @Test func whatLoadHoldsIsBounded() async throws {
        let sandbox = try ProcessSandbox()
        let head = #"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"app": {"dictionary": {"k": {"array": [{"string": ""#
        let tail = #""}]}}}}}}}}"#
        // Its reading goes byte by byte through 256 MiB: a watchdog for a loaded machine, not a limit.
        let run = try await sandbox.shell("{ printf '%s' '\(head)'; head -c \(DocumentInput.maximumSize + 1) /dev/zero | tr '\\0' a; printf '%s' '\(tail)'; } | prefs load -",
                                timeout: 900)
        #expect(run.status == 65 && run.error.hasPrefix("prefs: standard input: typed JSON: byte ") && run.error.hasSuffix(": a value larger than 256 MiB held in memory\n"),
                "\(run.status) \(run.error)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.config) && !FileManager.default.fileExists(atPath: sandbox.data))
    }

    /// At the bound exactly, a document is read (and here refused for what it holds, not its size).
    @Test func aSchemaOfExactlyTheBoundIsRead() async throws {
        let sandbox = try ProcessSandbox()
        var document = Array("{\"keys\": {}}".utf8)
        document += [UInt8](repeating: 0x20, count: Schema.maximumSize - document.count)
        let file = try sandbox.directory.write("schema.json", document)
        let run = try await sandbox.prefs("register", "s", "--schema", file)
        #expect(run.status == 0, "\(run.error)")
        let piped = try await runProcess(Paths.binary, ["register", "t", "--schema", "-"], input: document, environment: sandbox.environment)
        #expect(piped.status == 0, "\(piped.error)")
        document.append(0x20)
        let over = try await runProcess(Paths.binary, ["register", "u", "--schema", "-"], input: document, environment: sandbox.environment)
        #expect(over.status == 65 && over.error == "prefs: standard input: schema: larger than 4 MiB\n", "\(over.error)")
    }
}
