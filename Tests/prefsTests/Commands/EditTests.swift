import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `prefs edit DOMAIN`: the suite in $EDITOR as typed JSON (0600), checked and stored in one locked
/// write; a concurrent change is never lost; a bad result changes nothing and keeps the copy.
/// The editors here are shell scripts that edit the file as a person would.
@Suite(.runsProcesses) struct EditTests {
    static func sandbox() async throws -> (ProcessSandbox, TemporaryDirectory) {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let write = try await runProcess(Paths.binary, ["write", "s", "n", "-int", "1", "hostile", "-string", "$(touch pwned) `x` 'q' \"d\"\nline\\",
                                                  "other", "-bool", "yes"], environment: sandbox.environment)
        guard write.status == 0 else { throw TestFailure(write.error) }
        return (sandbox, work)
    }

    /// Runs `edit s` with EDITOR set to a script (given the copy's path as $1), in `work`.
    static func edit(_ sandbox: ProcessSandbox, _ work: TemporaryDirectory, script: String) async throws -> ProcessResult {
        let editor = try work.write("editor.sh", "cp \"$1\" \(work.path)/seen; stat -c %a \"$1\" > \(work.path)/mode\n" + script)
        return try await runProcess(Paths.binary, ["edit", "s"], environment: sandbox.environment.merging(["EDITOR": "/bin/sh \(editor)", "VISUAL": ""]) { $1 },
                              workingDirectory: work.path)
    }

    static func copyPath(_ error: String) -> String? {
        error.components(separatedBy: "the edited copy is kept: ").last?.trimmingCharacters(in: .newlines)
    }

    @Test func anEditIsStoredTypedAndTheCopyIsPrivateAndGone() async throws {
        let (sandbox, work) = try await EditTests.sandbox()
        let run = try await EditTests.edit(sandbox, work, script: #"sed -i 's/"integer": 1/"integer": 42/; s/"boolean": true/"boolean": false/' "$1""#)
        #expect(run.status == 0, "\(run.error)")
        #expect(try String(contentsOfFile: work.file("mode"), encoding: .utf8) == "600\n")
        let suite = try #require(try sandbox.suite("s")?.dictionary)
        #expect(suite["n"] == .integer(42) && suite["other"] == .bool(false))
        #expect(suite["hostile"] == .string("$(touch pwned) `x` 'q' \"d\"\nline\\"))
        let seen = try String(contentsOfFile: work.file("seen"), encoding: .utf8)
        #expect(seen.contains(#""prefs-typed-json": 1"#))
        // The copy and its directory are gone; nothing in a value ran.
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted() == ["editor.sh", "mode", "seen"])
        #expect(!FileManager.default.fileExists(atPath: NSTemporaryDirectory() + "/" + "pwned"))
    }

    @Test func noChangeWritesNothing() async throws {
        let (sandbox, work) = try await EditTests.sandbox()
        let path = sandbox.config + "/s.plist"
        let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        let bytes = try Fixtures.bytes(path)
        try await Task.sleep(for: .milliseconds(10))
        // Rewritten with the same values (reformatted): still no change.
        let run = try await EditTests.edit(sandbox, work, script: "python3 -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); json.dump(d, open(p, \"w\"))' \"$1\"")
        #expect(run.status == 0 && run.error.isEmpty, "\(run.error)")
        #expect(try Fixtures.bytes(path) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == before)
    }

    /// A document that does not parse, or a value of the wrong type: 65, the error named, nothing
    /// changed, the copy kept (and named).
    @Test(arguments: [
        (#"printf '{"prefs-typed-json": 1, "value": ' > "$1""#, "prefs: /"),
        (#"printf '[1, 2]' > "$1""#, "the document is not a dictionary of keys"),
    ])
    func aBadDocumentChangesNothingAndKeepsTheCopy(script: String, message: String) async throws {
        let (sandbox, work) = try await EditTests.sandbox()
        let bytes = try Fixtures.bytes(sandbox.config + "/s.plist")
        let run = try await EditTests.edit(sandbox, work, script: script)
        #expect(run.status == 65)
        #expect(run.error.contains(message) && run.error.split(separator: "\n").count == 1, "\(run.error)")
        let copy = try #require(EditTests.copyPath(run.error))
        #expect(FileManager.default.fileExists(atPath: copy))
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == bytes)
        try? FileManager.default.removeItem(atPath: (copy as NSString).deletingLastPathComponent)
    }

    /// Someone else changes another key while the editor is open: both changes are kept, and said so.
    @Test func aConcurrentChangeToAnotherKeyIsMerged() async throws {
        let (sandbox, work) = try await EditTests.sandbox()
        let run = try await EditTests.edit(sandbox, work, script: #"prefs write s other -bool no; prefs write s added x; sed -i 's/"integer": 1/"integer": 2/' "$1""#)
        #expect(run.status == 0)
        #expect(run.error == "prefs: warning: edit: s: added, other changed meanwhile; the edit changed other keys only, and was merged key by key\n")
        let suite = try #require(try sandbox.suite("s")?.dictionary)
        #expect(suite["n"] == .integer(2) && suite["other"] == .bool(false) && suite["added"] == .string("x"))
    }

    /// Both change the same key: nothing changes (exit 4), the other writer's value stays, the copy is kept.
    @Test func aConcurrentChangeToTheSameKeyIsRefused() async throws {
        let (sandbox, work) = try await EditTests.sandbox()
        let run = try await EditTests.edit(sandbox, work, script: #"prefs write s n -int 7; sed -i 's/"integer": 1/"integer": 2/' "$1""#)
        #expect(run.status == 4)
        #expect(run.error.hasPrefix("prefs: edit: s: n changed meanwhile, and the edit changed them too; nothing changed; the edited copy is kept: "))
        #expect(try sandbox.suite("s")?.dictionary?["n"] == .integer(7))
        let copy = try #require(EditTests.copyPath(run.error))
        #expect(try String(contentsOfFile: copy, encoding: .utf8).contains(#""integer": 2"#))
        try? FileManager.default.removeItem(atPath: (copy as NSString).deletingLastPathComponent)
    }

    /// A value the suite's schema refuses: 65, nothing changed.
    @Test func theSchemaIsChecked() async throws {
        let (sandbox, work) = try await EditTests.sandbox()
        let schema = try work.write("schema.json", #"{"keys": {"n": {"type": "integer", "max": 10}, "hostile": {"type": "string"}, "other": {"type": "boolean"}}}"#)
        let register = try await runProcess(Paths.binary, ["register", "s", "--schema", schema], environment: sandbox.environment)
        try #require(register.status == 0, "\(register.error)")
        let run = try await EditTests.edit(sandbox, work, script: #"sed -i 's/"integer": 1/"integer": 99/' "$1""#)
        #expect(run.status == 65, "\(run.error)")
        #expect(run.error.hasPrefix("prefs: s: n: "), "\(run.error)")
        #expect(try sandbox.suite("s")?.dictionary?["n"] == .integer(1))
        if let copy = EditTests.copyPath(run.error) { try? FileManager.default.removeItem(atPath: (copy as NSString).deletingLastPathComponent) }
    }

    /// A value over 64 KiB (an external one of 1.3 MB, an inline one) shows as its type, size and
    /// SHA-256, not its text: left alone it stays exactly as stored (the reference to its blob, the
    /// inline text) while another key changes; an edited summary changes nothing (65); a key
    /// renamed takes its value along; a key deleted goes.
    @Test func largeValuesAreSummarisedAndKeptAsTheyWere() async throws {
        let (sandbox, work) = try await EditTests.sandbox()
        let photo = (0..<1_300_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }
        let notes = String(repeating: "a line of notes\n", count: 10_000)
        let photoFile = try work.write("photo.bin", photo), notesFile = try work.write("notes.txt", notes)
        try #require(await sandbox.prefs("write", "s", "photo", "-data", "@" + photoFile).status == 0)
        try #require(await sandbox.prefs("write", "s", "notes", "-string-file", notesFile, "--inline").status == 0)
        let stored = try #require(try sandbox.suite("s")?.dictionary)
        let reference = try #require(stored["photo"])
        try #require(reference.dictionary?[ExternalReference.marker] != nil && stored["notes"] == .string(notes))

        let run = try await EditTests.edit(sandbox, work, script: #"sed -i 's/"integer": 1/"integer": 2/' "$1""#)
        #expect(run.status == 0, "\(run.error)")
        let seen = try String(contentsOfFile: work.file("seen"), encoding: .utf8)
        #expect(seen.utf8.count < 1000, "\(seen.utf8.count) bytes")
        #expect(seen.contains(#""photo": {"summary": "<data: 1300000 bytes, sha256 \#(Hex.encode(SHA256.hash(photo)))>"}"#), "\(seen)")
        #expect(seen.contains(#""notes": {"summary": "<string: 160000 bytes of UTF-8, sha256 \#(Hex.encode(SHA256.hash(Array(notes.utf8))))>"}"#))
        let after = try #require(try sandbox.suite("s")?.dictionary)
        #expect(after["n"] == .integer(2) && after["photo"] == reference && after["notes"] == .string(notes))

        let bytes = try Fixtures.bytes(sandbox.config + "/s.plist")
        let edited = try await EditTests.edit(sandbox, work, script: #"sed -i 's/"integer": 2/"integer": 3/; s/<data: 1300000 bytes/<data: 1300001 bytes/' "$1""#)
        #expect(edited.status == 65)
        #expect(edited.error.contains(": typed JSON: at :photo: a summary of a large value was changed: it stands for the value as it was, and cannot be edited"),
                "\(edited.error)")
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == bytes)
        if let copy = EditTests.copyPath(edited.error) { try? FileManager.default.removeItem(atPath: (copy as NSString).deletingLastPathComponent) }

        let moved = try await EditTests.edit(sandbox, work, script: #"sed -i 's/"photo":/"picture":/; /"notes":/d' "$1""#)
        #expect(moved.status == 0, "\(moved.error)")
        let last = try #require(try sandbox.suite("s")?.dictionary)
        #expect(last["photo"] == nil && last["notes"] == nil && last["n"] == .integer(2))
        #expect(try await sandbox.prefs("read", "s", "picture", "--raw").output == photo)
    }

    /// On etcd too: the edit and a concurrent writer's change to another key both stay.
    @Test func worksOnEtcd() async throws {
        let fleet = try FleetSandbox(try await SharedCluster.oneMember.get())
        let work = try TemporaryDirectory()
        try #require(await fleet.prefs("write", "s", "n", "-int", "1", "other", "x").status == 0)
        let editor = try work.write("editor.sh", #"prefs write s other y && sed -i 's/"integer": 1/"integer": 2/' "$1""# + "\n")
        let run = try await fleet.prefs(["edit", "s"], environment: ["EDITOR": "/bin/sh \(editor)"])
        #expect(run.status == 0, "\(run.error)")
        #expect(try await fleet.prefs("read", "s", "n").outputText == "2\n")
        #expect(try await fleet.prefs("read", "s", "other").outputText == "y\n")
    }

    /// An editor that fails (exits non-zero) changes nothing: 126; one not found: 127.
    @Test func aFailingEditorChangesNothing() async throws {
        let (sandbox, work) = try await EditTests.sandbox()
        let bytes = try Fixtures.bytes(sandbox.config + "/s.plist")
        let failed = try await EditTests.edit(sandbox, work, script: "echo '{}' > \"$1\"; exit 3")
        #expect(failed.status == 126 && failed.error == "prefs: edit: the editor exited with status 3; nothing changed\n")
        let missing = try await runProcess(Paths.binary, ["edit", "s"], environment: sandbox.environment.merging(["VISUAL": "no-such-editor-\(getpid())"]) { $1 })
        #expect(missing.status == 127, "\(missing.error)")
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == bytes)
    }
}
