import Foundation
import Synchronization
import Testing
@testable import PrefsCore
@testable import prefs

/// `watch --exec COMMAND`: COMMAND runs through /bin/sh after each change, the change in
/// PREFS_SUITE, PREFS_KEY, PREFS_OLD and PREFS_NEW (never in COMMAND's text), runs never overlap,
/// changes during a run are coalesced per key, and a failing run is reported while the watch goes on.
@Suite(.runsProcesses) struct WatchExecTests {
    /// A script that records what it was given (NUL-separated, `(absent)` for an unset variable)
    /// and says so on standard output.
    static func reporter(_ work: TemporaryDirectory) throws -> String {
        try work.write("report.sh", """
            printf '%s\\0' "${PREFS_SUITE-(absent)}" "${PREFS_KEY-(absent)}" "${PREFS_OLD-(absent)}" "${PREFS_NEW-(absent)}" > "$1/out"
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
        #expect(try WatchExecTests.recorded(work) == ["s", "ready", "(absent)", "1"])
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
            #expect(try WatchExecTests.recorded(work) == ["s", change.key, change.old, change.new], "\(change.key)")
        }
        try await sandbox.prefs("delete", "s", "flag")
        #expect(await watch.nextLine() == "ran")
        #expect(try WatchExecTests.recorded(work) == ["s", "flag", "true", "(absent)"])
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

    /// Coalescing exactly: changes that come while a run holds are merged per key, from the value
    /// before the first to the value after the last (a key back where it was runs nothing), and run
    /// in the order their keys came once the run in progress ends. Submitted in process, so the test
    /// knows they are all queued when it lets the held run end.
    @Test func changesDuringARunAreCoalescedPerKey() async throws {
        let work = try TemporaryDirectory()
        let started = try Channel(work.file("started")), go = try Channel(work.file("go"))
        let command = "echo \"$PREFS_KEY ${PREFS_OLD-(absent)} ${PREFS_NEW-(absent)}\" > \(started.path); read line < \(go.path)"
        let reports = Mutex<[String]>([])
        let runner = ChangeCommand(command: command, suite: "s", report: { line in reports.withLock { $0.append(line) } })
        try runner.start()
        runner.submit([WatchChange(key: "a", old: 0, new: 1)])
        #expect(await started.nextLine() == "a 0 1")
        runner.submit([WatchChange(key: "a", old: 1, new: 2), WatchChange(key: "b", old: nil, new: "x")])
        runner.submit([WatchChange(key: "a", old: 2, new: 3)])
        runner.submit([WatchChange(key: "b", old: "x", new: nil), WatchChange(key: "c", old: nil, new: 5)])
        for expected in ["a 1 3", "c (absent) 5"] {
            go.send("go")
            #expect(await started.nextLine() == expected)
        }
        go.send("go")
        runner.finish()
        #expect(await started.nextLine(timeout: 0) == nil, "b, back where it was, ran")
        #expect(reports.withLock { $0 }.isEmpty)
    }

    /// The watch hands the changes written while a run holds to the runs that follow, which never
    /// overlap: each key's last run shows its last value (how the writes fall into runs depends on
    /// when the watch reads them; `changesDuringARunAreCoalescedPerKey` checks the merging).
    @Test func changesDuringARunWaitAndRunsNeverOverlap() async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        let go = try Channel(work.file("go"))
        try await sandbox.prefs("write", "s", "a", "0")
        // Each run holds until the test sends a line; a second run at once would find `busy`.
        let command = "mkdir \(work.path)/busy || echo OVERLAP; echo \"start $PREFS_KEY ${PREFS_NEW-(absent)}\"; "
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
        while !(runs.contains("start a 3") && runs.contains("start c 5")) {
            go.send("go")
            guard let line = await watch.nextLine() else { break }
            runs.append(line)
        }
        let a = runs.filter { $0.hasPrefix("start a ") }, b = runs.filter { $0.hasPrefix("start b ") }
        #expect(a.last == "start a 3" && a == a.sorted() && runs.filter { $0.hasPrefix("start c ") } == ["start c 5"], "\(runs)")
        #expect(b.isEmpty || b == ["start b x", "start b (absent)"], "\(runs)")
        #expect(Set(runs).isSubset(of: ["start a 2", "start a 3", "start b x", "start b (absent)", "start c 5"]), "\(runs)")
        go.send("go")
        try await sandbox.prefs("write", "s", "d", "1")
        #expect(await watch.nextLine() == "start d 1")
        go.send("go")
        #expect(!watch.unread.contains("OVERLAP"))
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
    /// dropped the change still waiting (two keys, --initial: one runs, one waits).
    @Test(arguments: [false, true])
    func theTimeoutHoldsWhileACommandRuns(ignoringTerm: Bool) async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "s", "a", "1", "b", "2")
        let trap = ignoringTerm ? "trap '' TERM; " : ""
        let watch = try WatchProcess(sandbox, ["s", "--initial", "--timeout", "10", "--exec", trap + "echo \"started $PREFS_KEY $$\"; sleep 1000"])
        let run = try await WatchExecTests.started(watch)
        #expect(await watch.wait(timeout: 60) == 0 && watch.process.terminationReason == .exit)
        #expect(await eventually(timeout: 10) { WatchExecTests.liveMembers(of: run.group).isEmpty }, "\(WatchExecTests.liveMembers(of: run.group))")
        let stopped = ignoringTerm ? "did not end within 5 s and was killed" : "was stopped"
        #expect(watch.errorText == "prefs: watch: --timeout reached: the running COMMAND (s: \(run.key)) \(stopped); 1 queued change was not run\n")
    }

    /// SIGTERM, SIGINT and SIGHUP (the terminal went away) reach the run's whole process group (its
    /// shell's trap runs, its background child goes too); the watch waits for it, says what it
    /// dropped, and exits 128+N.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aSignalReachesTheRunAndEndsTheWatch(signal: Int32) async throws {
        let sandbox = try ProcessSandbox()
        let work = try TemporaryDirectory()
        try await sandbox.prefs("write", "s", "a", "1", "b", "2")
        let command = "trap 'echo trapped > \(work.path)/trapped.$PREFS_KEY; exit 3' INT TERM HUP; echo \"started $PREFS_KEY $$\"; sleep 1000 & wait"
        let watch = try WatchProcess(sandbox, ["s", "--initial", "--exec", command])
        let run = try await WatchExecTests.started(watch)
        kill(watch.process.processIdentifier, signal)
        #expect(await watch.wait(timeout: 60) == 128 + signal && watch.process.terminationReason == .exit)
        #expect((try? String(contentsOfFile: work.file("trapped.\(run.key)"), encoding: .utf8)) == "trapped\n")
        #expect(await eventually(timeout: 10) { WatchExecTests.liveMembers(of: run.group).isEmpty }, "\(WatchExecTests.liveMembers(of: run.group))")
        let name = signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "SIGINT" : "SIGHUP"
        #expect(watch.errorText == "prefs: watch: \(name): the running COMMAND (s: \(run.key)) was stopped; 1 queued change was not run\n")
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
