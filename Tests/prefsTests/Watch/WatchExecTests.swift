import Foundation
import Synchronization
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `watch --exec COMMAND` and `watch S -- COMMAND [ARG...]`: COMMAND runs (through /bin/sh for
/// --exec) once per committed change, the change in PREFS_SUITE, PREFS_KEYS, and for one key
/// PREFS_KEY, PREFS_OLD and PREFS_NEW (never in COMMAND's text); runs never overlap, changes during
/// a run are coalesced per key into the next, and a failing run is reported while the watch goes on.
@Suite(.runsProcesses) struct WatchExecTests {
    /// A script that records what it was given (NUL-separated, `(absent)` for an unset variable)
    /// and says so on standard output.
    static func reporter(_ work: TemporaryDirectory) throws -> String {
        try work.write("report.sh", """
            printf '%s\\0' "${PREFS_SUITE-(absent)}" "${PREFS_KEY-(absent)}" "${PREFS_OLD-(absent)}" "${PREFS_NEW-(absent)}" "${PREFS_KEYS-(absent)}" > "$1/out"
            echo ran

            """)
    }

    static func check(_ run: ProcessResult) throws {
        guard run.status == 0 else { throw TestFailure(run.error) }
    }

    /// Waits (at most 10 s) until the watch's standard error holds `text`.
    static func waitForError(_ watch: WatchProcess, _ text: String) async -> Bool {
        await watch.waitForError(timeout: 10) { $0.contains(text) }
    }

    static func recorded(_ work: TemporaryDirectory) throws -> [String] {
        try Fixtures.bytes(work.file("out")).split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    /// Hostile keys and values reach COMMAND exactly, as `read` prints them, and nothing in them runs,
    /// whichever shell reads them (bash, dash).
    @Test(arguments: ["/bin/bash", "/bin/dash"])
    func hostileChangesReachTheCommandAndRunNothing(shell: String) async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let script = try WatchExecTests.reporter(work)
        try await sandbox.prefs("write", "s", "ready", "1")
        // Inherited variables of the same names never leak into a run.
        let watch = try WatchProcess(sandbox, ["s", "--initial", "--exec", "cd \(work.path) && \(shell) \(script) \(work.path)"],
                                     environment: ["PREFS_OLD": "inherited", "PREFS_NEW": "inherited"])
        // --initial: a first run for the current value, once the watch is set up.
        #expect(await watch.nextLine(timeout: 30) == "ran")
        #expect(try WatchExecTests.recorded(work) == ["s", "ready", "(absent)", "1", "ready"])
        let changes: [(key: String, write: [String], old: String, new: String)] = [
            ("$(touch pwned)", ["-string", "`touch pwned` 'q' \"d\"\nline2\\"], "(absent)", "`touch pwned` 'q' \"d\"\nline2\\"),
            ("$(touch pwned)", ["-string", "$(touch pwned); touch pwned"], "`touch pwned` 'q' \"d\"\nline2\\", "$(touch pwned); touch pwned"),
            ("key with spaces\nand a line", ["-int", "7"], "(absent)", "7"),
            ("flag", ["-bool", "yes"], "(absent)", "true"),
            ("window", ["-dict", "w", "-int", "640"], "(absent)", "{\n    w = 640;\n}"),
        ]
        for change in changes {
            try WatchExecTests.check(await runProcess(Paths.binary, ["write", "s", change.key] + change.write, environment: sandbox.environment))
            #expect(await watch.nextLine() == "ran")
            #expect(try WatchExecTests.recorded(work) == ["s", change.key, change.old, change.new, WatchOutput.oneLine(change.key)], "\(change.key)")
        }
        try await sandbox.prefs("delete", "s", "flag")
        #expect(await watch.nextLine() == "ran")
        #expect(try WatchExecTests.recorded(work) == ["s", "flag", "true", "(absent)", "flag"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted() == ["out", "report.sh"], "something ran")
        #expect(watch.errorText.isEmpty, "\(watch.errorText)")
    }

    /// A FIFO the test holds open for reading and writing, so that neither the test's open nor a
    /// run's waits for the other: a run's `read line < FIFO` waits for the test's line, and the test
    /// waits for a run's line (`nextLine`), each on the event, never on a clock.
    final class Channel: @unchecked Sendable {
        let path: String
        private let descriptor: Int32
        private var pending: [UInt8] = []

        init(_ path: String) throws {
            guard mkfifo(path, 0o600) == 0 else { throw TestFailure("mkfifo \(path): errno \(errno)") }
            self.path = path
            descriptor = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
        }

        deinit { close(descriptor) }

        func send(_ line: String) {
            _ = (line + "\n").withCString { write(descriptor, $0, strlen($0)) }
        }

        /// The next line written to the FIFO; nil when none came within `timeout` (a bound on a
        /// failure, not the time a line takes). Waited for on a thread of its own (`poll` blocks),
        /// one caller at a time.
        func nextLine(timeout: Double = 20) async -> String? {
            (try? await onOwnThread { self.waitForLine(timeout: timeout) }) ?? nil
        }

        private func waitForLine(timeout: Double) -> String? {
            let end = Date().addingTimeInterval(timeout)
            while true {
                if let newline = pending.firstIndex(of: 0x0A) {
                    defer { pending.removeFirst(newline + 1) }
                    return String(decoding: pending[..<newline], as: UTF8.self)
                }
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let left = Int32(max(0, end.timeIntervalSinceNow) * 1000)
                guard poll(&ready, 1, left) > 0 else { return nil }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 { pending += buffer[..<count] }
            }
        }
    }

    /// What a run was given, on one line: `KEYS|KEY|OLD|NEW` (PREFS_KEYS' lines joined by commas,
    /// `(unset)` for a variable not set).
    static let given = #"printf '%s|%s|%s|%s\n' "$(printf %s "$PREFS_KEYS" | tr '\n' ,)" "${PREFS_KEY-(unset)}" "${PREFS_OLD-(unset)}" "${PREFS_NEW-(unset)}""#

    /// One run per committed change, and coalescing exactly: a change of several keys is one run
    /// (PREFS_KEYS names them; PREFS_KEY, PREFS_OLD and PREFS_NEW are for a change of one key), and
    /// the changes that come while a run holds are merged per key, from the value before the first
    /// to the value after the last (a key back where it was is left out), into one run once the run
    /// in progress ends; `stop` says what it stopped and dropped. Submitted in process, so the test
    /// knows they are all queued when it lets the held run end.
    @Test func oneRunPerChangeAndChangesDuringARunAreCoalescedPerKey() async throws {
        let work = try TemporaryDirectory()
        let started = try Channel(work.file("started")), go = try Channel(work.file("go"))
        let command = "\(WatchExecTests.given) > \(started.path); read line < \(go.path)"
        let reports = Mutex<[String]>([])
        let runner = ExecRunner(command: command, suite: "s", report: { line in reports.withLock { $0.append(line) } })
        try runner.start()
        runner.submit([WatchChange(key: "a", old: 0, new: 1), WatchChange(key: "z", old: nil, new: 9)])
        #expect(await started.nextLine() == "a,z|(unset)|(unset)|(unset)")
        runner.submit([WatchChange(key: "a", old: 1, new: 2), WatchChange(key: "b", old: nil, new: "x")])
        runner.submit([WatchChange(key: "a", old: 2, new: 3)])
        runner.submit([WatchChange(key: "b", old: "x", new: nil), WatchChange(key: "c", old: nil, new: 5)])
        go.send("go")
        #expect(await started.nextLine() == "a,c|(unset)|(unset)|(unset)", "b, back where it was, is left out")
        runner.submit([WatchChange(key: "b", old: nil, new: "y")])
        go.send("go")
        #expect(await started.nextLine() == "b|b|(unset)|y")
        runner.submit([WatchChange(key: "d", old: nil, new: 1), WatchChange(key: "e", old: nil, new: 2)])
        // SIGKILL: the test process's runs may inherit SIGTERM blocked (the watch's own are checked by
        // aSignalReachesTheRunAndEndsTheWatch).
        #expect(runner.stop(SIGKILL) == "the running COMMAND (s: b) was stopped; 2 queued changes were not run")
        runner.finish()
        #expect(await started.nextLine(timeout: 0) == nil, "a dropped change ran")
        #expect(reports.withLock { $0 }.isEmpty)
    }

    /// The watch hands the changes written while a run holds to the runs that follow, which never
    /// overlap: how the writes fall into runs depends on when the watch reads them
    /// (`oneRunPerChangeAndChangesDuringARunAreCoalescedPerKey` checks the merging), but the last
    /// write's key runs once, and no run names a key that did not change.
    @Test func changesDuringARunWaitAndRunsNeverOverlap() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let go = try Channel(work.file("go"))
        try await sandbox.prefs("write", "s", "a", "0")
        // Each run holds until the test sends a line; a second run at once would find `busy`.
        let command = "mkdir \(work.path)/busy || echo OVERLAP; echo \"start $(printf %s \"$PREFS_KEYS\" | tr '\\n' ,) ${PREFS_NEW-}\"; "
            + "read line < \(go.path); rmdir \(work.path)/busy"
        let watch = try WatchProcess(sandbox, ["s", "--initial", "--exec", command])
        #expect(await watch.nextLine(timeout: 30) == "start a 0")
        go.send("go")
        try await sandbox.prefs("write", "s", "a", "1")
        #expect(await watch.nextLine() == "start a 1")
        for arguments in [["write", "s", "a", "2"], ["write", "s", "b", "x"], ["write", "s", "a", "3"], ["delete", "s", "b"], ["write", "s", "c", "5"]] {
            try WatchExecTests.check(await runProcess(Paths.binary, arguments, environment: sandbox.environment))
        }
        var runs: [String] = []
        while !runs.contains(where: { $0.hasPrefix("start ") && $0.split(separator: " ")[1].split(separator: ",").contains("c") }) {
            go.send("go")
            guard let line = await watch.nextLine() else { break }
            runs.append(line)
        }
        let keys = runs.map { $0.split(separator: " ")[1].split(separator: ",").map(String.init) }
        #expect(keys.filter { $0.contains("c") }.count == 1 && keys.allSatisfy { Set($0).isSubset(of: ["a", "b", "c"]) }, "\(runs)")
        #expect(keys.count <= 5, "\(runs)")
        go.send("go")
        try await sandbox.prefs("write", "s", "d", "1")
        #expect(await watch.nextLine() == "start d 1")
        go.send("go")
        #expect(!watch.unread.contains("OVERLAP"))
    }

    /// One write of two keys is one committed change: COMMAND runs once for it, on files and on
    /// etcd, by --exec and by `-- COMMAND [ARG...]` (the next change, of one key, is the next run).
    @Test(arguments: [false, true], [false, true])
    func aWriteOfTwoKeysRunsCommandOnce(onEtcd: Bool, dashes: Bool) async throws {
        let fleet = onEtcd ? try FleetSandbox(try await SharedCluster.oneMember.get()) : nil
        let sandbox = try fleet?.sandbox ?? ProcessSandbox()
        let environment = fleet.map { ["PREFS_STORE": $0.url, "PREFS_ETCD_TIMEOUT": "5"] } ?? [:]
        let prefs = { (words: [String]) async throws in
            try WatchExecTests.check(await runProcess(Paths.binary, words, environment: sandbox.environment.merging(environment) { $1 }))
        }
        try await prefs(["write", "s", "ready", "1"])
        let command = dashes ? ["--", "/bin/sh", "-c", WatchExecTests.given] : ["--exec", WatchExecTests.given]
        let watch = try WatchProcess(sandbox, ["s", "--initial"] + command, environment: environment)
        #expect(await watch.nextLine(timeout: 30) == "ready|ready|(unset)|1")
        try await prefs(["write", "s", "a", "1", "b", "2"])
        #expect(await watch.nextLine() == "a,b|(unset)|(unset)|(unset)")
        try await prefs(["write", "s", "c", "3"])
        #expect(await watch.nextLine() == "c|c|(unset)|3", "the write of a and b ran COMMAND more than once")
        #expect(watch.errorText.isEmpty, "\(watch.errorText)")
    }

    /// `watch S [KEY...] -- COMMAND [ARG...]` runs COMMAND's words themselves (found on $PATH, no
    /// shell in between: its arguments reach it as given, options after `--` too); the watch's own
    /// options come before `--`.
    @Test func dashesRunTheCommandsWords() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "s", "k", "v", "other", "1")
        // --initial: the first run, for the value there, says the watch is set up before the writes.
        let watch = try WatchProcess(sandbox, ["s", "k", "--initial", "--", "sh", "-c", #"echo "$0|$1|$PREFS_KEY=$PREFS_NEW""#, "$(touch pwned)", "--json"])
        #expect(await watch.nextLine(timeout: 30) == "$(touch pwned)|--json|k=v")
        try await sandbox.prefs("write", "s", "other", "2")
        try await sandbox.prefs("write", "s", "k", "w")
        #expect(await watch.nextLine(timeout: 30) == "$(touch pwned)|--json|k=w")
        #expect(watch.errorText.isEmpty, "\(watch.errorText)")
    }

    /// No COMMAND after `--`, a word that cannot be a command name there (an option or key put
    /// after it by mistake, an empty word, a line break), or a COMMAND with --exec or --json: 64,
    /// one line, before anything is watched. A COMMAND not found is 127, one not runnable 126, as
    /// `exec`.
    @Test func aBadCommandAfterDashesIsRefusedAtOnce() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        try await sandbox.prefs("write", "s", "k", "v")
        let usage = "usage: prefs watch DOMAIN [KEY...] [--initial] [--once] [--timeout SECONDS] -- COMMAND [ARG...]"
        let plain = try work.write("plain", "echo ran\n")
        let cases: [(words: [String], status: Int32, error: String)] = [
            (["s", "--"], 64, "prefs: watch: no COMMAND after -- (\(usage))\n"),
            (["s", "k", "--"], 64, "prefs: watch: no COMMAND after -- (\(usage))\n"),
            (["--", "true"], 64, "prefs: watch: no DOMAIN given (\(usage))\n"),
            (["s", "--", "--json"], 64, "prefs: watch: \"--json\" after -- is not a command name (\(usage))\n"),
            (["s", "--", "-k"], 64, "prefs: watch: \"-k\" after -- is not a command name (\(usage))\n"),
            (["s", "--", ""], 64, "prefs: watch: \"\" after -- is not a command name (\(usage))\n"),
            (["s", "--", "rm\n-rf"], 64, "prefs: watch: \"rm\\n-rf\" after -- is not a command name (\(usage))\n"),
            (["s", "--exec", "true", "--", "true"], 64, "prefs: watch: --exec COMMAND and -- COMMAND cannot be combined; give one\n"),
            (["s", "--json", "--", "true"], 64, "prefs: watch: -- COMMAND runs COMMAND instead of printing: --json and --compact do not go with it\n"),
            (["s", "--", "prefs-no-such-command", "x"], 127, "prefs: watch: prefs-no-such-command: command not found\n"),
            (["s", "--", "./no-such-file"], 127, "prefs: watch: ./no-such-file: command not found\n"),
            (["s", "--", plain], 126, "prefs: watch: \(plain): cannot run: permission denied\n"),
            (["s", "--", work.path], 126, "prefs: watch: \(work.path): cannot run: permission denied\n"),
        ]
        for given in cases {
            let run = try await runProcess(Paths.binary, ["watch", "--timeout", "60"] + given.words, environment: sandbox.environment)
            #expect(run.status == given.status && run.error == given.error && run.output.isEmpty, "\(given.words): \(run.status) \(run.error)")
        }
    }

    /// A failing run is reported on standard error, naming the key, and the watch goes on.
    @Test func aFailingCommandIsReportedAndTheWatchGoesOn() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "s", "k", "0")
        let watch = try WatchProcess(sandbox, ["s", "k", "--initial", "--exec", "[ \"$PREFS_NEW\" != bad ] || exit 7; [ \"$PREFS_NEW\" != killed ] || kill -KILL $$; echo \"ok $PREFS_NEW\""])
        #expect(await watch.nextLine(timeout: 30) == "ok 0")
        try await sandbox.prefs("write", "s", "k", "bad")
        #expect(await WatchExecTests.waitForError(watch, "prefs: watch: COMMAND exited with status 7 (s: k); watching on\n"))
        try await sandbox.prefs("write", "s", "k", "killed")
        #expect(await WatchExecTests.waitForError(watch, "prefs: watch: COMMAND was killed by signal 9 (s: k); watching on\n"))
        try await sandbox.prefs("write", "s", "k", "good")
        #expect(await watch.nextLine() == "ok good")
        #expect(watch.errorText == """
            prefs: watch: COMMAND exited with status 7 (s: k); watching on
            prefs: watch: COMMAND was killed by signal 9 (s: k); watching on

            """)
    }

    /// `--once` exits 0 once the run for the first change has ended; `--initial` runs for the current values.
    @Test func onceAndInitial() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "s", "k", "v")
        let watch = try WatchProcess(sandbox, ["s", "--exec", "echo \"$PREFS_KEY=$PREFS_NEW\"", "--initial", "--once"])
        #expect(await watch.nextLine(timeout: 30) == "k=v")
        try await sandbox.prefs("write", "s", "k", "w")
        #expect(await watch.nextLine() == "k=w")
        #expect(await watch.wait() == 0)
    }

    /// On etcd too: each change, from any writer, runs COMMAND with the change.
    @Test func worksOnEtcd() async throws {
        let fleet = try FleetSandbox(try await SharedCluster.oneMember.get())
        try #require(await fleet.prefs("write", "s", "k", "v").status == 0)
        let watch = try WatchProcess(fleet.sandbox, ["s", "--initial", "--exec", "printf '%s|%s|%s\\n' \"$PREFS_KEY\" \"$PREFS_OLD\" \"$PREFS_NEW\""],
                                     environment: ["PREFS_STORE": fleet.url, "PREFS_ETCD_TIMEOUT": "5"])
        #expect(await watch.nextLine(timeout: 30) == "k||v")
        let hostile = try await fleet.prefs("write", "s", "k", "-string", "$(touch pwned)")
        try #require(hostile.status == 0, "\(hostile.error)")
        #expect(await watch.nextLine() == "k|v|$(touch pwned)")
        try #require(await fleet.prefs("write", "s", "k", "w").status == 0)
        #expect(await watch.nextLine() == "k|$(touch pwned)|w")
    }

    /// Keys named as variables a shell obeys (BASH_ENV, ENV) reach COMMAND only as PREFS_KEY and
    /// PREFS_NEW: the variables themselves are never set, whichever shell COMMAND starts.
    @Test(arguments: ["/bin/bash", "/bin/dash"])
    func keysNamedAsShellVariablesSetNothing(shell: String) async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let evil = try work.write("evil.sh", "touch \(work.file("ran"))\n")
        try await sandbox.prefs("write", "s", "ready", "1")
        // bash reads $BASH_ENV for a script, dash $ENV only when interactive.
        let start = shell.hasSuffix("dash") ? "\(shell) -i -c : </dev/null 2>/dev/null" : "\(shell) -c :"
        let watch = try WatchProcess(sandbox, ["s", "--initial", "--exec", "env -0 > \(work.path)/env.$PREFS_KEY; \(start); echo \"ran $PREFS_KEY\""])
        #expect(await watch.nextLine(timeout: 30) == "ran ready")
        for key in ["BASH_ENV", "ENV"] {
            try await sandbox.prefs("write", "s", key, "-string", evil)
            #expect(await watch.nextLine() == "ran \(key)")
            let environment = ExecTests.environment(try Fixtures.bytes(work.file("env.\(key)")))
            #expect(environment["PREFS_KEY"] == key && environment["PREFS_NEW"] == evil)
            #expect(environment["BASH_ENV"] == nil && environment["ENV"] == nil, "\(key)")
        }
        #expect(!FileManager.default.fileExists(atPath: work.file("ran")), "a start-up file ran")
    }

    /// A value too large for an environment variable is reported, naming the key, and COMMAND does
    /// not run for it; the watch goes on.
    @Test func anOversizedValueIsReportedAndTheWatchGoesOn() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        try await sandbox.prefs("write", "s", "k", "0")
        let watch = try WatchProcess(sandbox, ["s", "--initial", "--exec", "echo \"ok $PREFS_KEY $PREFS_NEW\""])
        #expect(await watch.nextLine(timeout: 30) == "ok k 0")
        let big = try work.write("big.json", #"{"big": "\#(String(repeating: "x", count: 200_000))"}"#)
        try await sandbox.prefs("import", "s", big)
        #expect(await WatchExecTests.waitForError(watch, "\n"))
        #expect(watch.errorText == "prefs: watch: s: big: PREFS_NEW would be 200011 bytes, more than one environment variable can hold (128 KiB); COMMAND not run\n")
        try await sandbox.prefs("write", "s", "k", "1")
        #expect(await watch.nextLine() == "ok k 1")
    }

    /// The processes of process group `group` still alive (zombies not counted), from /proc.
    static func liveMembers(of group: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return false }
            // After the command's name: state, parent, process group.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 2 && fields[0] != "Z" && fields[2] == "\(group)"
        }
    }

    /// A run's first line, `started KEY PID` (PID: its shell, the leader of its process group).
    static func started(_ watch: WatchProcess) async throws -> (key: String, group: pid_t) {
        let line = try #require(await watch.nextLine(timeout: 30), "no run started: \(watch.errorText)")
        let words = line.split(separator: " ")
        guard words.count == 3, words[0] == "started", let group = pid_t(words[2]) else { throw TestFailure("unexpected line \(line)") }
        return (String(words[1]), group)
    }

    /// --timeout holds while COMMAND runs: the watch ends, exiting 0, with the run's whole process
    /// group gone (SIGTERM; SIGKILL after 5 s when it ignores that), and says it stopped the run and
    /// that it stopped the run (--initial: the current values, two keys, one run).
    @Test(arguments: [false, true])
    func theTimeoutHoldsWhileACommandRuns(ignoringTerm: Bool) async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "s", "a", "1", "b", "2")
        let trap = ignoringTerm ? "trap '' TERM; " : ""
        let watch = try WatchProcess(sandbox, ["s", "--initial", "--timeout", "10", "--exec", trap + "echo \"started $(printf %s \"$PREFS_KEYS\" | tr '\\n' ,) $$\"; sleep 1000"])
        let run = try await WatchExecTests.started(watch)
        #expect(await watch.wait(timeout: 60) == 0 && watch.process.terminationReason == .exit)
        #expect(await eventually(timeout: 10) { WatchExecTests.liveMembers(of: run.group).isEmpty }, "\(WatchExecTests.liveMembers(of: run.group))")
        let stopped = ignoringTerm ? "did not end within 5 s and was killed" : "was stopped"
        #expect(run.key == "a,b")
        #expect(watch.errorText == "prefs: watch: --timeout reached: the running COMMAND (s: a, b) \(stopped)\n")
    }

    /// SIGTERM, SIGINT and SIGHUP (the terminal went away) reach the run's whole process group (its
    /// shell's trap runs, its background child goes too); the watch waits for it, says what it
    /// stopped, and exits 128+N.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aSignalReachesTheRunAndEndsTheWatch(signal: Int32) async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        try await sandbox.prefs("write", "s", "a", "1", "b", "2")
        let command = "trap 'echo trapped > \(work.path)/trapped; exit 3' INT TERM HUP; echo \"started $(printf %s \"$PREFS_KEYS\" | tr '\\n' ,) $$\"; sleep 1000 & wait"
        let watch = try WatchProcess(sandbox, ["s", "--initial", "--exec", command])
        let run = try await WatchExecTests.started(watch)
        kill(watch.process.processIdentifier, signal)
        #expect(await watch.wait(timeout: 60) == 128 + signal && watch.process.terminationReason == .exit)
        #expect(run.key == "a,b")
        #expect((try? String(contentsOfFile: work.file("trapped"), encoding: .utf8)) == "trapped\n")
        #expect(await eventually(timeout: 10) { WatchExecTests.liveMembers(of: run.group).isEmpty }, "\(WatchExecTests.liveMembers(of: run.group))")
        let name = signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "SIGINT" : "SIGHUP"
        #expect(watch.errorText == "prefs: watch: \(name): the running COMMAND (s: a, b) was stopped\n")
    }

    @Test(arguments: ["--json", "--compact"])
    func printingOptionsDoNotGoWithExec(option: String) async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "s", "k", "v")
        let run = try await sandbox.prefs("watch", "s", "--exec", "true", option)
        #expect(run.status == 64)
        #expect(run.error == "prefs: watch: --exec runs COMMAND instead of printing: --json and --compact do not go with it\n")
    }
}
