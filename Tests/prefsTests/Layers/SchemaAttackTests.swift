import Foundation
import Testing
@testable import PrefsCore

/// Schemas that try to break prefs, run through the built binary: malformed, huge or deeply nested
/// documents, a default that breaks its own range, key names with NUL or bytes that are not UTF-8,
/// a FIFO where a schema should be, symlinked schema directories. Each is refused with one line and
/// a clear status, or followed as a directory link is, and nothing hangs or is half-installed.
@Suite(.runsProcesses) struct SchemaAttackTests {
    static let good = #"{"keys": {"n": {"type": "integer", "max": 9}}}"#

    /// What `register --schema` is given, and what its one error line must say.
    static let malformed: [(name: String, bytes: [UInt8], says: String)] = [
        ("not a dictionary", Array("[1, 2]".utf8), "the root is an array, not a dictionary"),
        ("not JSON or a plist", Array("{keys: ".utf8), "OpenStep"),
        ("empty", [], "empty document"),
        ("a default out of its own range", Array(#"{"keys": {"n": {"type": "integer", "min": 1, "max": 9, "default": 10}}}"#.utf8),
         "key n: the default breaks the key's own rule: expected an integer from 1 to 9, not 10"),
        ("a default not among its choices", Array(#"{"keys": {"n": {"type": "string", "choices": ["a"], "default": "b"}}}"#.utf8),
         "key n: the default breaks the key's own rule"),
        ("a misspelt member", Array(#"{"keys": {"n": {"type": "integer", "mxa": 9}}}"#.utf8), "key n: unknown member \"mxa\""),
        ("a NUL in a key name", Array(#"{"keys": {"a\u0000b": {"type": "integer"}}}"#.utf8), "a key name cannot contain NUL"),
        ("a key name that is not UTF-8", Array(#"{"keys": {"a"#.utf8) + [0xFF, 0xFE] + Array(#"": {"type": "integer"}}}"#.utf8), "not valid UTF-8"),
        ("deeply nested", Array(String(repeating: "[", count: 100_000).utf8), "nested deeper than 512 levels"),
        ("deeply nested in a default", Array((#"{"keys": {"n": {"type": "array", "default": "# + String(repeating: "[", count: 600)
                                              + String(repeating: "]", count: 600) + "}}}").utf8), "nested deeper than 512 levels"),
        ("huge", Array((#"{"keys": {"n": {"type": "string", "description": ""# + String(repeating: "x", count: 4 << 20) + #""}}}"#).utf8),
         "schema: larger than 4 MiB"),
        ("huge once installed", Array((#"{"keys": {"# + (0..<120_000).map { #""k\#($0)": {"type": "string"}"# }.joined(separator: ",") + "}}").utf8),
         "schema: larger than 4 MiB once installed as a property list"),
    ]

    /// A malformed schema is 65 with one line naming the file, and the schema installed before is
    /// left byte for byte.
    @Test(arguments: malformed.indices)
    func aMalformedSchemaIsRefusedAndNothingInstalled(index: Int) async throws {
        let (name, bytes, says) = SchemaAttackTests.malformed[index]
        let sandbox = try ProcessSandbox()
        let good = try sandbox.directory.write("good.json", SchemaAttackTests.good)
        #expect(try await sandbox.prefs("register", "app", "--schema", good).status == 0)
        let installed = sandbox.data + "/prefs/schemas/app.plist"
        let before = try Fixtures.bytes(installed)
        let file = try sandbox.directory.write("schema.json", bytes)
        for source in [file, "-"] {
            let run = try await runProcess(Paths.binary, ["register", "app", "--schema", source], input: source == "-" ? bytes : [], environment: sandbox.environment)
            #expect(run.status == 65, "\(name): \(run.status) \(run.error)")
            #expect(run.error.hasPrefix("prefs: \(source == "-" ? "standard input" : file): ") && run.error.contains(says),
                    "\(name): \(run.error)")
            #expect(run.error.split(separator: "\n").count == 1, "\(name): \(run.error)")
            #expect(try Fixtures.bytes(installed) == before, "\(name) changed the installed schema")
        }
        #expect(try await sandbox.prefs("write", "app", "n", "10").status == 65, "the installed schema still applies")
    }

    /// A schema file someone put in place by hand that is malformed fails every write of its suite
    /// (65, naming it) until it is fixed or `--no-schema` is given; reads of the other layers too,
    /// as a malformed registered-defaults file does, and `--stored` still reads.
    @Test func aMalformedInstalledSchemaFailsWritesNamingIt() async throws {
        let sandbox = try ProcessSandbox()
        try FileManager.default.createDirectory(atPath: sandbox.data + "/prefs/schemas", withIntermediateDirectories: true)
        let path = sandbox.data + "/prefs/schemas/app.json"
        try Data(#"{"keys": {"n": {"type": "integer", "min": 5, "max": 1}}}"#.utf8).write(to: URL(fileURLWithPath: path))
        let write = try await sandbox.prefs("write", "app", "n", "-int", "3")
        #expect(write.status == 65 && write.error == "prefs: \(path): schema: key n: min 5 is above max 1\n", "\(write.error)")
        #expect(try sandbox.suite("app") == nil)
        #expect(try await sandbox.prefs("write", "app", "n", "-int", "3", "--no-schema").status == 0)
        #expect(try await sandbox.prefs("read", "app", "n").status == 65)
        #expect(try await sandbox.prefs("read", "app", "n", "--stored").outputText == "3\n")
        #expect(try await sandbox.prefs("check", "app").status == 65)
    }

    /// A FIFO where a package's schema should be would block every write that reads it: it is
    /// refused without being opened.
    @Test func aFIFOForASchemaIsRefusedNotRead() async throws {
        let sandbox = try ProcessSandbox()
        try FileManager.default.createDirectory(atPath: sandbox.packages + "/prefs/schemas", withIntermediateDirectories: true)
        let fifo = sandbox.packages + "/prefs/schemas/app.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try await sandbox.prefs("write", "app", "n", "1", timeout: 20)
        #expect(run.status == 65 && run.error == "prefs: \(fifo): schema: not a regular file\n", "\(run.error)")
        #expect(try await sandbox.prefs("write", "app", "n", "1", "--no-schema", timeout: 20).status == 0)
    }

    /// A symlinked schemas directory is followed, for reading and installing (the link stays); a
    /// dangling one means no schema, and installing through it cannot write (73); a loop is an
    /// error (74), never a hang.
    @Test func aSymlinkedSchemasDirectoryIsFollowed() async throws {
        let sandbox = try ProcessSandbox()
        let elsewhere = sandbox.directory.file("dotfiles")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: sandbox.data + "/prefs", withIntermediateDirectories: true)
        let link = sandbox.data + "/prefs/schemas"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)
        let good = try sandbox.directory.write("good.json", SchemaAttackTests.good)
        #expect(try await sandbox.prefs("register", "app", "--schema", good).status == 0)
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/app.plist"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == elsewhere)
        #expect(try await sandbox.prefs("write", "app", "n", "10").status == 65)

        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sandbox.directory.file("gone"))
        #expect(try await sandbox.prefs("write", "app", "n", "10").status == 0, "no schema behind a dangling link")
        #expect(try await sandbox.prefs("register", "app", "--schema", good).status == 73)

        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: link)
        let loop = try await sandbox.prefs("write", "app", "n", "11", timeout: 20)
        #expect(loop.status == 74 && loop.error.contains("too many levels of symbolic links"), "\(loop.error)")
        #expect(try await sandbox.prefs("register", "app", "--schema", good, timeout: 20).status == 74)
    }

    /// A schema of 10,000 keys (under the size limit) works, and a write checked against it stays quick.
    @Test func aLargeSchemaWorks() async throws {
        let sandbox = try ProcessSandbox()
        let keys = (0..<10_000).map { #""k\#($0)": {"type": "integer", "min": 0, "max": \#($0), "description": "key \#($0)"}"# }
        let file = try sandbox.directory.write("big.json", #"{"allowUndeclaredKeys": false, "keys": {"# + keys.joined(separator: ", ") + "}}")
        #expect(try await sandbox.prefs("register", "app", "--schema", file).status == 0)
        let writes = [try await sandbox.prefs("write", "app", "k9999", "9999"), try await sandbox.prefs("write", "app", "k5", "6"),
                      try await sandbox.prefs("write", "app", "k10000", "1")]
        #expect(writes.map(\.status) == [0, 65, 65])
        #expect(writes.map(\.elapsed).reduce(0, +) < 30)
        #expect(try await sandbox.prefs("describe", "app", "k42").outputText == "k42\n  type: integer\n  range: 0 to 42\n  description: key 42\n  origin: (none)\n")
    }

    /// A schema given on the command line may be a pipe (`--schema <(…)`); only installed and
    /// shipped ones must be regular files.
    @Test func aSchemaOnTheCommandLineMayBeAPipe() async throws {
        let sandbox = try ProcessSandbox()
        let run = try await sandbox.shell(#"prefs write app n 10 --schema <(printf '%s' '\#(SchemaAttackTests.good)')"#)
        #expect(run.status == 65 && run.error.contains("expected an integer of at most 9, not 10"), "\(run.error)")
    }
}
