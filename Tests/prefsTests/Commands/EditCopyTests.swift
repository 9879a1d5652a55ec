import Foundation
import Glibc
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// What an editor may leave in the place of `edit`'s copy: a new file renamed over it (how vim and
/// emacs save) is read; a symlink or a hard link (to another file's text), a FIFO or a file over
/// 256 MiB is refused (65, nothing stored, no hang, nothing large read); the copy's directory goes
/// with whatever the editor left in it. A SIGINT or SIGQUIT to the terminal's process group is the editor's: prefs
/// still applies what the editor saves afterwards. The editors are shell scripts, in `$TMPDIR` of
/// their own so that what is left there can be seen.
@Suite(.runsProcesses) struct EditCopyTests {
    /// `edit s` (s holds n = 1) with an editor script run in `work`; the run, the sandbox's suite
    /// after it, what is left in `$TMPDIR`, and `work`. With `asFromATerminal`, prefs starts with no
    /// signal blocked and SIGPIPE at its default, as a shell at a terminal starts it.
    static func edit(script: String, asFromATerminal: Bool = false) async throws -> (run: ProcessResult, suite: PrefDictionary?, left: [String], work: TemporaryDirectory) {
        let (sandbox, work) = try await EditTests.sandbox()
        let temporary = work.file("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        let editor = try work.write("editor.sh", script)
        let environment = sandbox.environment.merging(["EDITOR": "/bin/sh \(editor)", "VISUAL": "", "TMPDIR": temporary]) { $1 }
        let clean = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); signal.signal(signal.SIGPIPE, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
        let (program, arguments) = asFromATerminal ? ("/usr/bin/python3", ["-c", clean, Paths.binary, "edit", "s"]) : (Paths.binary, ["edit", "s"])
        let run = try await runProcess(program, arguments, environment: environment, timeout: 60, workingDirectory: work.path)
        let left = try FileManager.default.subpathsOfDirectory(atPath: temporary).sorted()
        return (run, try sandbox.suite("s")?.dictionary, left, work)
    }

    /// The edit as it would be stored: n = 2, written to `$2` (the copy is `$1`).
    static let edited = #"sed 's/"integer": 1/"integer": 2/' "$1" > "$2""#

    @Test func aNewFileRenamedOverTheCopyIsReadAndBackupsGoWithTheDirectory() async throws {
        // As vim saves with 'backup' on, and leaves a swap file beside it.
        let script = #"set -e; cp "$1" "$1~"; touch "$(dirname "$1")/.s.json.swp"; mkdir "$(dirname "$1")/sub"; touch "$(dirname "$1")/sub/x"; "#
            + EditCopyTests.edited.replacingOccurrences(of: "\"$2\"", with: "\"$1.new\"") + #"; mv "$1.new" "$1""#
        let (run, suite, left, _) = try await EditCopyTests.edit(script: script)
        #expect(run.status == 0, "\(run.error)")
        #expect(suite?["n"] == .integer(2))
        #expect(left == [], "the copy's directory and all in it are removed: \(left)")
    }

    /// The editor puts a symlink to another file in the copy's place: nothing is read through it.
    @Test func aSymlinkInTheCopysPlaceIsRefused() async throws {
        let script = EditCopyTests.edited.replacingOccurrences(of: "\"$2\"", with: "\"$PWD/elsewhere.json\"") + #"; rm "$1"; ln -s "$PWD/elsewhere.json" "$1""#
        let (run, suite, left, _) = try await EditCopyTests.edit(script: script)
        #expect(run.status == 65, "\(run.error)")
        #expect(run.error.contains(".json: not a regular file (the editor left a symlink there); nothing is read through it; the edited copy is kept: "), "\(run.error)")
        #expect(suite?["n"] == .integer(1), "nothing stored")
        #expect(left.count == 2, "the copy is kept, as after any failure: \(left)")
    }

    /// A hard link to another file in the copy's place: its text is not stored either.
    @Test func aHardLinkInTheCopysPlaceIsRefused() async throws {
        let script = EditCopyTests.edited.replacingOccurrences(of: "\"$2\"", with: "\"$PWD/elsewhere.json\"") + #"; rm "$1"; ln "$PWD/elsewhere.json" "$1""#
        let (run, suite, _, _) = try await EditCopyTests.edit(script: script)
        #expect(run.status == 65 && run.error.contains(".json: not a regular file (the editor left a hard link there)"), "\(run.error)")
        #expect(suite?["n"] == .integer(1), "nothing stored")
    }

    /// A FIFO in the copy's place is refused at once (its reading would wait for a writer for ever).
    @Test func aFIFOInTheCopysPlaceIsRefusedWithoutWaiting() async throws {
        let (run, suite, _, _) = try await EditCopyTests.edit(script: #"rm "$1"; mkfifo "$1""#)
        #expect(run.status == 65 && run.error.contains("not a regular file (the editor left a FIFO, socket or device there)"), "\(run.error)")
        #expect(suite?["n"] == .integer(1))
    }

    /// A copy grown past 256 MiB (sparse: nothing is written to disk) is refused from its size,
    /// before anything is read.
    @Test func aCopyLargerThanADocumentIsRefused() async throws {
        let (run, suite, _, _) = try await EditCopyTests.edit(script: #"truncate -s 300M "$1""#)
        #expect(run.status == 65 && run.error.contains(".json: document: larger than 256 MiB; the edited copy is kept: "), "\(run.error)")
        #expect(suite?["n"] == .integer(1))
    }

    /// SIGINT and SIGQUIT sent to the whole process group (as a terminal's ^C and ^\ are) while the
    /// editor runs; the editor handles them (as vim does) and saves afterwards: the save is applied.
    /// The shell between prefs and the editor does not end on them either. Foundation starts prefs
    /// in a process group of its own, so `kill 0` reaches prefs, the shell and the editor only; it
    /// starts it with the test thread's signal mask, which blocks both signals, so prefs is started
    /// as a terminal starts it: through a program that unblocks every signal (and sets SIGPIPE back
    /// to its default) before it execs prefs.
    @Test func aSignalFromTheTerminalLeavesTheEditorsSaveToBeApplied() async throws {
        let script = #"trap '' INT QUIT; kill -INT 0; kill -QUIT 0; "# + EditCopyTests.edited.replacingOccurrences(of: "\"$2\"", with: "\"$1.new\"")
            + #"; mv "$1.new" "$1""#
        let (run, suite, left, _) = try await EditCopyTests.edit(script: script, asFromATerminal: true)
        #expect(run.status == 0, "\(run.status) \(run.error)")
        #expect(suite?["n"] == .integer(2))
        #expect(left == [])
    }

    /// An editor that the signal ends (the default action) changes nothing, and prefs says so.
    @Test func anEditorEndedBySIGINTChangesNothing() async throws {
        let (run, suite, left, _) = try await EditCopyTests.edit(script: #"kill -INT $$; sed -i 's/"integer": 1/"integer": 2/' "$1""#)
        #expect(run.status == 126 && run.error == "prefs: edit: the editor exited with status 130; nothing changed\n", "\(run.status) \(run.error)")
        #expect(suite?["n"] == .integer(1))
        #expect(left == [])
    }
}
