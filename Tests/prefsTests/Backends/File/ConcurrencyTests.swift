import Foundation
import Testing
@testable import PrefsCore

/// What only real processes show: writers in processes of their own meet on the suite's file lock
/// and lose nothing, readers in others never see a partial file, a lock held by another process
/// ends in 75, and a writer killed at any moment leaves a suite that parses, and a history without
/// a version of a change that did not happen. What threads show as well (N writers, exact counters,
/// compare-and-set loops, readers of whole changes only, a held suite) is the contract's, on every
/// backend (`BackendContractTests+Concurrency`, `aHeldSuiteTimesOutItsWritersOnly`).
@Suite(.serialized, .runsProcesses) struct ConcurrencyTests {
    /// Four processes write 25 keys each, and each write also counts with `-int-add` (the
    /// lost-update test every peer fails: read, add in the shell, write back): no key is lost, and
    /// the counter ends at exactly 100, so every add read the value under the file's lock, which
    /// only another process takes as these do. The reader checks every read it makes: before the
    /// suite's file first appears a read may only say the suite does not exist (exit 1, that one
    /// line); once the file is there, every read must exit 0 and print nothing on stderr. A partial
    /// or missing file would show as exit 65 or 1.
    @Test func writersInProcessesLoseNothingNorAnIncrementAndReadersNeverSeeAPartialFile() async throws {
        let sandbox = try ProcessSandbox()
        // What is checked is that no write is lost, not how long one waits: with both cores busy, a
        // writer waited out the 10 s default behind the others and exited 75.
        let script = """
            export PREFS_LOCK_TIMEOUT=300
            writers=""
            for w in 1 2 3 4; do
              ( for i in $(seq 1 25); do prefs write shared "k$w-$i" -int "$i" hits -int-add 1 >/dev/null || echo "writer $w failed at $i" >&2; done ) &
              writers="$writers $!"
            done
            : > "$HOME/read-errors"
            ( reads=0; good=0
              while [ ! -e "$HOME/stop" ]; do
                existed=no
                [ -e "$XDG_CONFIG_HOME/shared.plist" ] && existed=yes
                prefs read shared >/dev/null 2>"$HOME/read-stderr"
                status=$?
                reads=$((reads + 1))
                stderr=$(cat "$HOME/read-stderr")
                case "$status:$existed:$stderr" in
                  0:yes: | 0:no:) good=$((good + 1)) ;;
                  "1:no:prefs: shared: no such suite") ;;
                  *) echo "read $reads: exit $status, file there before the read: $existed, stderr: $stderr" >>"$HOME/read-errors" ;;
                esac
              done
              echo "$reads $good" >"$HOME/reads" ) &
            reader=$!
            wait $writers
            touch "$HOME/stop"
            wait $reader
            """
        let run = try await sandbox.shell(script, timeout: 300)
        #expect(run.status == 0)
        #expect(run.error.isEmpty, "\(run.error.prefix(500))")
        let suite = try #require(try sandbox.suite("shared")?.dictionary, "no suite")
        #expect(suite.count == 101)
        #expect(suite["hits"] == .integer(100))
        for w in 1...4 {
            for i in 1...25 { #expect(suite["k\(w)-\(i)"] == .integer(Int64(i)), "k\(w)-\(i)") }
        }
        let readErrors = try String(contentsOfFile: sandbox.directory.path + "/read-errors", encoding: .utf8)
        #expect(readErrors.isEmpty, "\(readErrors.prefix(1000))")
        // Proof that the reader ran while the writers did, and read the suite they were writing.
        let counts = try String(contentsOfFile: sandbox.directory.path + "/reads", encoding: .utf8).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(counts.count == 2)
        #expect(counts[1] >= 1, "reads, and reads that found the suite: \(counts)")
        #expect(try sandbox.files() == ["shared.plist"])
    }

    @Test func aHeldLockEndsIn75AndChangesNothing() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let before = try Fixtures.bytes(sandbox.config + "/app.plist")
        // A writer locks the suite's file itself.
        let directory = open(sandbox.config + "/app.plist", O_RDONLY)
        defer { close(directory) }
        try #require(flock(directory, LOCK_EX) == 0)
        var environment = sandbox.environment
        environment["PREFS_LOCK_TIMEOUT"] = "0.3"
        let blocked = try await runProcess(Paths.binary, ["write", "app", "k", "changed"], environment: environment)
        #expect(blocked.status == 75)
        #expect(blocked.error == "prefs: \(sandbox.config)/app.plist: another writer held the lock for 0.3 s; try again (or set PREFS_LOCK_TIMEOUT)\n")
        #expect(try Fixtures.bytes(sandbox.config + "/app.plist") == before)
        // Reading needs no lock.
        #expect(try await runProcess(Paths.binary, ["read", "app", "k"], environment: environment).outputText == "v\n")
        flock(directory, LOCK_UN)
        #expect(try await runProcess(Paths.binary, ["write", "app", "k", "changed"], environment: environment).status == 0)
    }

    /// A 240-byte suite name, too long for `.NAME.plist.prefs-RANDOM` in a file name: it is written
    /// and rewritten, and the temporary file of a writer killed in the middle of a write (an 8 MB
    /// value kept in the suite) is removed by the next write.
    @Test func aLongSuiteNameIsWrittenAndAKilledWritersTemporaryRemoved() async throws {
        let sandbox = try ProcessSandbox()
        sandbox.extraEnvironment["PREFS_EXTERNAL_THRESHOLD"] = "1G"
        let name = String(repeating: "n", count: 240)
        for value in ["1", "2"] {
            let run = try await sandbox.prefs("write", name, "k", value)
            #expect(run.status == 0 && run.error.isEmpty, "\(run.status) \(run.error)")
        }
        #expect(try await sandbox.prefs("read", name, "k").outputText == "2\n")
        // A writer killed while its temporary file exists; one that finished before it was seen
        // (a loaded machine) is undone and tried again.
        var temporaries: [String] = []
        for attempt in 0..<5 where temporaries.isEmpty {
            let big = try sandbox.directory.write("big", [UInt8](repeating: 0x41 + UInt8(attempt), count: 8_000_000))
            let writer = Process()
            writer.executableURL = URL(fileURLWithPath: Paths.binary)
            writer.arguments = ["write", name, "big", "-data", "@" + big]
            writer.environment = sandbox.environment
            try writer.run()
            for _ in 0..<20_000 where temporaries.isEmpty && writer.isRunning {
                temporaries = try sandbox.files().filter { $0.hasPrefix(".") }
                if temporaries.isEmpty { try await Task.sleep(for: .microseconds(500)) }
            }
            kill(writer.processIdentifier, SIGKILL)
            await writer.exited()
            if temporaries.isEmpty { _ = try await sandbox.prefs("delete", name, "big") }
        }
        try #require(temporaries.count == 1 && temporaries[0].utf8.count <= 255, "no temporary file seen: \(temporaries)")
        let left = try sandbox.files()
        try #require(left == [temporaries[0], name + ".plist"].sorted(), "\(left)")
        #expect(try await sandbox.prefs("write", name, "k", "3").status == 0)
        #expect(try sandbox.files() == [name + ".plist"])
        let suite = try sandbox.suite(name)
        #expect(suite == ["k": "3"], "\(String(describing: suite))")
    }

    /// A loop of writes, each setting a counter and a large value derived from it in one write,
    /// killed with SIGKILL at a random moment after its first write landed: the suite always parses,
    /// always holds a counter with its own value (never half of a write), and the temporary files a
    /// killed writer leaves are removed by the next write. Every fourth round runs prefs under
    /// strace, which holds each rename 200 ms, and is killed once a temporary file is there: so
    /// some kills surely land between a write's temporary file and its rename. (Random kills alone
    /// missed that window in all 200 rounds of a loaded run, on tmpfs where it lasts microseconds.)
    /// Fifty rounds: twelve of them surely inside a write.
    static let killRounds = 50

    @Test func killedWritersLeaveAParsableSuite() async throws {
        let sandbox = try ProcessSandbox()
        let strace = try requireProgram("strace", install: "Debian: strace")
        try #require(await sandbox.prefs("write", "crash", "counter", "-int", "0", "payload", "-string", String(repeating: "0", count: 1000)).status == 0)
        // Only prefs is forked in the loop, so most kills land inside a write.
        let writer = """
            i=$START
            while [ "$SECONDS" -lt 60 ]; do
              printf -v payload "$i %.0s" {1..200}
              $TRACE prefs write crash counter -int "$i" payload -string "$payload" || exit 1
              i=$((i + 1))
            done
            """
        var maximumTemporaries = 0
        var killsInsideAWrite = 0
        for round in 1...Self.killRounds {
            let held = round % 4 == 0
            var environment = sandbox.environment
            environment["START"] = String(round * 1000)
            environment["TRACE"] = held ? "\(strace) -qq -o /dev/null -e trace=rename -e inject=rename:delay_enter=200000" : ""
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", writer]
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Foundation starts the child in a process group of its own; killing the group kills
            // the prefs process the loop is running, wherever it is.
            try #require(getpgid(process.processIdentifier) == process.processIdentifier)
            // Wait for this round's first write, however loaded the machine, then kill at random.
            var waited = 0
            while try sandbox.counter() < Int64(round * 1000) && process.isRunning && waited < 10_000 {
                try await Task.sleep(for: .milliseconds(1))
                waited += 1
            }
            let wrote = try sandbox.counter() >= Int64(round * 1000)
            if held {
                // The next write's temporary file, held there until its rename.
                waited = 0
                while try !sandbox.files().contains(where: { $0.hasPrefix(".crash.plist.prefs-") }) && process.isRunning && waited < 10_000 {
                    try await Task.sleep(for: .milliseconds(1))
                    waited += 1
                }
            } else {
                try await Task.sleep(for: .microseconds(Int.random(in: 0...20_000)))
            }
            kill(-process.processIdentifier, SIGKILL)
            await process.exited()
            try #require(wrote, "round \(round): the writer never wrote")
            // The group's last process may still be dying: wait until none can write any more.
            try #require(await waitForProcessGroupToEnd(process.processIdentifier), "round \(round): the writers outlived SIGKILL")
            let suite = try #require(try sandbox.suite("crash")?.dictionary, "round \(round): no suite")
            guard case .integer(let counter)? = suite["counter"], case .string(let payload)? = suite["payload"] else {
                Issue.record("round \(round): the suite lost a key: \(suite)")
                return
            }
            #expect(payload == String(repeating: "\(counter) ", count: 200), "round \(round): payload of another write")
            // The history holds no version of a change that did not happen: its newest version's
            // counter is the suite's, or one it held before (a writer killed between its rename
            // and its version's append leaves its version out).
            let log = VersionLog(try [UInt8](Data(contentsOf: URL(fileURLWithPath: sandbox.directory.path + "/.local/state/prefs/history/crash/versions.log"))))
            if let newest = log.records.last {
                let version = try log.version(newest, path: "versions.log")
                guard case .integer(let recorded)? = version.changes?.first(where: { $0.key == "counter" })?.new else {
                    Issue.record("round \(round): version \(version.number) without the counter")
                    return
                }
                #expect(recorded <= counter, "round \(round): version \(version.number) says \(recorded), the suite \(counter)")
            }
            let temporaries = try sandbox.files().filter { $0.hasPrefix(".crash.plist.prefs-") }.count
            if temporaries > 0 { killsInsideAWrite += 1 }
            maximumTemporaries = max(maximumTemporaries, temporaries)
        }
        try #require(await sandbox.prefs("write", "crash", "after", "-bool", "true").status == 0)
        #expect(try sandbox.files() == ["crash.plist"])
        #expect(maximumTemporaries <= 1, "a write left more than its own temporary file")
        // Proof that the kills hit writes in the middle, not just the shell between them: at least
        // the held rounds did.
        #expect(killsInsideAWrite >= Self.killRounds / 4, "\(killsInsideAWrite) kills inside a write")
    }
}

private extension ProcessSandbox {
    /// The counter of the suite the crash test writes; -1 before there is one.
    func counter() throws -> Int64 {
        guard case .dictionary(let suite)? = try suite("crash"), case .integer(let counter)? = suite["counter"] else { return -1 }
        return counter
    }
}
