import Foundation
import Testing
@testable import PrefsCore

/// A running `prefs watch`, read line by line as it prints. It is killed, and the test fails, if it
/// is still running `limit` seconds after it started. The waits are awaited, woken by each piece of
/// output and by the end of the process.
final class WatchProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var buffer = Data()
    private var errors = Data()
    /// The pipes that reached their end (0, 1 or 2).
    private var ended = 0
    private var watchdog: Watchdog?
    /// Notified on output, on errors and at the end of the process.
    private let changes = ChangeSignal()
    private let output = Pipe(), errorOutput = Pipe()

    init(_ sandbox: ProcessSandbox, _ arguments: [String], environment extra: [String: String] = [:], limit: Double = defaultProcessTimeout) throws {
        process.executableURL = URL(fileURLWithPath: Paths.binary)
        process.arguments = ["watch"] + arguments
        process.environment = sandbox.environment.merging(extra) { $1 }
        process.standardOutput = output
        process.standardError = errorOutput
        process.standardInput = FileHandle.nullDevice
        let changes = changes
        // At the end of the output (no data), the handler stops: it would be called again and again.
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            self?.lock.withLock { self?.buffer.append(data); if data.isEmpty { self?.ended += 1 } }
            changes.notify()
        }
        errorOutput.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            self?.lock.withLock { self?.errors.append(data); if data.isEmpty { self?.ended += 1 } }
            changes.notify()
        }
        process.terminationHandler = { _ in changes.notify() }
        try process.run()
        watchdog = Watchdog(process, timeout: limit)
    }

    /// The next whole line, or nil when none came within `timeout` seconds.
    func nextLine(timeout: Double = 10) async -> String? {
        var line: String?
        _ = await changes.wait(timeout: timeout) {
            line = lock.withLock {
                guard let newline = buffer.firstIndex(of: 0x0A) else { return nil }
                let text = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return text
            }
            return line != nil
        }
        return line
    }

    /// The next `count` lines (fewer when they stop coming).
    func lines(_ count: Int, timeout: Double = 10) async -> [String] {
        var lines: [String] = []
        while lines.count < count, let line = await nextLine(timeout: timeout) { lines.append(line) }
        return lines
    }

    /// The lines printed since the last one read, up to and including the first that `isLast`
    /// accepts; waits for it at most `timeout` seconds (then gives what came, for the message).
    func lines(until isLast: (String) -> Bool, timeout: Double = 10) async -> (lines: [String], found: Bool) {
        let end = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while let line = await nextLine(timeout: end.timeIntervalSinceNow) {
            lines.append(line)
            if isLast(line) { return (lines, true) }
        }
        return (lines, false)
    }

    /// Whatever is printed but not read yet.
    var unread: String { lock.withLock { String(decoding: buffer, as: UTF8.self) } }

    var errorText: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }

    /// Waits until what the watch printed on standard error satisfies `condition` (by default: it
    /// printed something); false after `timeout` seconds.
    func waitForError(timeout: Double = 10, until condition: (String) -> Bool = { !$0.isEmpty }) async -> Bool {
        await changes.wait(timeout: timeout) { condition(errorText) }
    }

    /// Waits for the process to end (killing it after `timeout` seconds) and gives its status.
    func wait(timeout: Double = 10) async -> Int32? {
        guard await changes.wait(timeout: timeout, until: { !process.isRunning }) else {
            process.interrupt()
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        if watchdog?.finish() == true { Issue.record("the watch ran past its limit and was killed") }
        // What it wrote last may still be in the pipes: read to their end (a process started
        // meanwhile may hold a copy of them open: then what came within 1 s, read in ms).
        _ = await changes.wait(timeout: 1) { lock.withLock { ended == 2 } }
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// Whether the process has installed a handler for `signal` (from /proc/PID/status), so that
    /// sending it no longer kills it outright.
    func catches(_ signal: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        watchdog?.finish()
        // Stopped before the handles go (a run crashed in libdispatch's event loop as a watch ended).
        output.fileHandleForReading.readabilityHandler = nil
        errorOutput.fileHandleForReading.readabilityHandler = nil
    }
}

/// `prefs watch` with the real binary: writers in other processes (prefs, Foundation's UserDefaults,
/// a plain file copy), exactly one line per change and in order; rapid writes; --once, --timeout,
/// SIGTERM and a closed pipe.
@Suite(.runsProcesses) struct WatchTests {
    /// Writes a suite file the way an editor or `cp` would: in place, the same inode.
    static func copyOver(_ sandbox: ProcessSandbox, _ suite: String, _ value: PrefValue) throws {
        let path = sandbox.config + "/" + suite + ".plist"
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(try PropertyList.encode(value, as: .xml)))
        try handle.close()
    }

    @Test func everyWriterGivesExactlyOneLinePerChangeInOrder() async throws {
        let sandbox = try ProcessSandbox()
        try #require(await sandbox.prefs("write", "app", "ready", "-int", "1").status == 0)
        let watch = try WatchProcess(sandbox, ["app", "--initial"])
        #expect(await watch.nextLine() == "ready (absent) -> 1")

        try await sandbox.prefs("write", "app", "k", "one")
        #expect(await watch.nextLine() == "k (absent) -> one")
        // A write that changes nothing prints nothing: the next line is the next real change.
        try await sandbox.prefs("write", "app", "k", "one")
        try await sandbox.prefs("write", "app", "k", "-int", "2")
        #expect(await watch.nextLine() == "k one -> 2")

        // Foundation's UserDefaults, writing the file in place.
        let helper = try await runProcess(Paths.userDefaultsHelper, ["write", "app"], environment: sandbox.environment)
        try #require(helper.status == 0, "\(helper.error)")
        #expect(await watch.lines(8) == [
            "array (absent) -> (a, b)", "boolean (absent) -> true", "data (absent) -> 0a0bff", "date (absent) -> 2026-01-01T03:04:05Z",
            "dictionary (absent) -> { title = main; width = 640; }", "double (absent) -> 1.5", "integer (absent) -> 42",
            "string (absent) -> hello world",
        ])

        // A plain copy over the file.
        var contents = try #require(try sandbox.suite("app")?.dictionary, "no suite")
        contents["string"] = "copied"
        try WatchTests.copyOver(sandbox, "app", .dictionary(contents))
        #expect(await watch.nextLine() == "string hello world -> copied")

        // The global suite and registered defaults count when they change what the app sees.
        try await sandbox.prefs("write", "-g", "AppleLocale", "en_GB")
        #expect(await watch.nextLine() == "AppleLocale (absent) -> en_GB")
        try await sandbox.prefs("register", "app", "theme", "dark", "k", "-int", "0")
        #expect(await watch.nextLine() == "theme (absent) -> dark")

        // A corrupt file: one error line, no change; the watch goes on from the last good values.
        try Data("{ unterminated".utf8).write(to: URL(fileURLWithPath: sandbox.directory.path + "/bad"))
        #expect(rename(sandbox.directory.path + "/bad", sandbox.config + "/app.plist") == 0)
        _ = await watch.waitForError(timeout: 10)
        contents["string"] = "fixed"
        try WatchTests.copyOver(sandbox, "app", .dictionary(contents))
        #expect(await watch.nextLine() == "string copied -> fixed")
        #expect(watch.errorText.split(separator: "\n").count == 1 && watch.errorText.hasPrefix("prefs: \(sandbox.config)/app.plist: "), "\(watch.errorText)")

        // Deleted and created again: followed. The registered k shows once the stored one is gone.
        try FileManager.default.removeItem(atPath: sandbox.config + "/app.plist")
        let removed = await watch.lines(10)
        #expect(removed.contains("k 2 -> 0") && removed.contains("ready 1 -> (removed)") && removed.count == 10, "\(removed)")
        try await sandbox.prefs("write", "app", "ready", "-int", "2")
        #expect(await watch.nextLine() == "ready (absent) -> 2")

        watch.process.terminate()
        #expect(await watch.wait() == 0)
        #expect(watch.unread.isEmpty)
    }

    @Test func rapidWritesEndAtTheLastValue() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "n", "-int", "0")
        let watch = try WatchProcess(sandbox, ["app", "n", "--initial", "--json"], limit: 400)
        #expect(await watch.nextLine() == #"{"suite":"app","key":"n","old":null,"new":0}"#)
        let writers = try await sandbox.shell("for i in $(seq 1 1000); do prefs write app n -int $i || exit 1; done", timeout: 300)
        try #require(writers.status == 0, "\(writers.error)")
        var last: Int64 = 0
        while let line = await watch.nextLine(timeout: 10) {
            guard case .dictionary(let event) = try PropertyList.decode(Array(line.utf8)).value,
                  case .integer(let old)? = event["old"], case .integer(let new)? = event["new"] else {
                Issue.record("bad line \(line)")
                break
            }
            #expect(old == last && new > old, "\(line)")
            last = new
            if new == 1000 { break }
        }
        #expect(last == 1000)
        watch.process.interrupt()
        #expect(await watch.wait() == 0)
    }

    @Test func onceAndTimeout() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "flags", "deploy", "-bool", "false")
        let watch = try WatchProcess(sandbox, ["flags", "deploy", "--initial", "--once"])
        #expect(await watch.nextLine() == "deploy (absent) -> false")
        try await sandbox.prefs("write", "flags", "other", "x")
        try await sandbox.prefs("write", "flags", "deploy", "-bool", "true")
        #expect(await watch.nextLine() == "deploy false -> true")
        #expect(await watch.wait() == 0)

        let quiet = try await sandbox.prefs("watch", "flags", "deploy", "--once", "--timeout", "0.3")
        #expect(quiet.status == 1 && quiet.outputText.isEmpty)
        #expect(quiet.elapsed < 5)
        #expect(try await sandbox.prefs("watch", "flags", "--timeout", "soon").status == 64)
        #expect(try await sandbox.prefs("watch", "-").status == 64)
    }

    @Test func aMissingSuiteShowsWhatAnAppSeesAndACorruptOneAtTheStartIsAnError() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "-g", "timeout", "-int", "5")
        try await sandbox.prefs("write", "app", "timeout", "-int", "1")
        let watch = try WatchProcess(sandbox, ["app", "--initial", "timeout", "timeout"])
        #expect(await watch.nextLine() == "timeout (absent) -> 1")
        try FileManager.default.removeItem(atPath: sandbox.config + "/app.plist")
        #expect(await watch.nextLine() == "timeout 1 -> 5")
        // Exactly one line for a key named twice: the next line is the next change's.
        try await sandbox.prefs("write", "app", "timeout", "-int", "7")
        #expect(await watch.nextLine() == "timeout 5 -> 7")
        watch.process.terminate()
        #expect(await watch.wait() == 0)
        let all = try WatchProcess(sandbox, ["nosuch", "--initial", "--once", "--timeout", "0.2"])
        #expect(await all.nextLine() == "timeout (absent) -> 5")
        #expect(await all.wait() == 1)

        try Data("<plist><dict>".utf8).write(to: URL(fileURLWithPath: sandbox.config + "/app.plist"))
        let corrupt = try await sandbox.prefs("watch", "app", "--once", "--timeout", "5")
        #expect(corrupt.status == 65 && corrupt.error.hasPrefix("prefs: \(sandbox.config)/app.plist: "), "\(corrupt.error)")
    }

    /// A large file rewritten in place (`cp` truncates, then writes in chunks) is read only once its
    /// writer has closed it: never a half-written file taken for removed keys, never an error. The
    /// last copy (flag 3) marks the end: everything before it has been seen once its line comes.
    @Test func inPlaceRewritesOfALargeFileAreNeverSeenHalfWritten() async throws {
        let sandbox = try ProcessSandbox()
        let big = String(repeating: "x", count: 3_000_000)
        let a = sandbox.directory.path + "/a.plist", b = sandbox.directory.path + "/b.plist", c = sandbox.directory.path + "/c.plist"
        try Data(try PropertyList.encode(["k1": .string(big), "flag": 1], as: .xml)).write(to: URL(fileURLWithPath: a))
        try Data(try PropertyList.encode(["k1": .string(big), "flag": 2], as: .xml)).write(to: URL(fileURLWithPath: b))
        try Data(try PropertyList.encode(["k1": .string(big), "flag": 3], as: .xml)).write(to: URL(fileURLWithPath: c))
        try await sandbox.prefs("write", "app", "seed", "1")
        let watch = try WatchProcess(sandbox, ["app", "seed", "flag", "k1", "--initial"])
        #expect(await watch.nextLine() == "seed (absent) -> 1")
        let run = try await sandbox.shell("for i in $(seq 1 5); do cp \"\(b)\" \"$XDG_CONFIG_HOME/app.plist\"; cp \"\(a)\" \"$XDG_CONFIG_HOME/app.plist\"; done")
        try #require(run.status == 0, "\(run.error)")
        // A slow writer: truncates, writes half, pauses well past the quiet period, writes the rest.
        let slow = try await sandbox.shell("""
            python3 - "\(b)" "$XDG_CONFIG_HOME/app.plist" <<'PY'
            import sys, time
            data = open(sys.argv[1], 'rb').read()
            with open(sys.argv[2], 'r+b') as f:
                f.truncate(0); f.flush()
                time.sleep(0.1)
                f.write(data[:len(data) // 2]); f.flush()
                time.sleep(0.3)
                f.write(data[len(data) // 2:])
            PY
            cp "\(a)" "$XDG_CONFIG_HOME/app.plist"
            cp "\(c)" "$XDG_CONFIG_HOME/app.plist"
            """)
        try #require(slow.status == 0, "\(slow.error)")
        let (seen, ended) = await watch.lines(until: { $0.hasPrefix("flag ") && $0.hasSuffix(" -> 3") }, timeout: 20)
        watch.process.terminate()
        #expect(await watch.wait() == 0)
        let lines = seen.map { String($0.prefix(60)) }
        #expect(ended, "the last copy was never reported: \(lines)")
        // seed goes once (the copies do not hold it); flag and k1 are never seen removed.
        #expect(lines.first == "seed 1 -> (removed)", "\(lines)")
        #expect(lines.filter { $0.contains("(removed)") }.count == 1, "\(lines)")
        #expect(watch.errorText.isEmpty, "\(watch.errorText)")
    }

    /// A writer rewriting the file in place as fast as it can (truncate, write, close): the watch
    /// never takes a half-written file for a change, and ends at the last value.
    /// (On a loaded machine this once printed "n 0 -> (removed)", then "n (absent) -> 378": the
    /// writer's open had truncated the file, then slept in the kernel, waiting for the disk, before
    /// the truncation's event was queued, and the read saw an empty file and no event.)
    @Test func aBusyInPlaceWriterNeverShowsAHalfWrittenFile() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "n", "-int", "0", "pad", String(repeating: "p", count: 100_000))
        let watch = try WatchProcess(sandbox, ["app", "n", "--initial"])
        #expect(await watch.nextLine() == "n (absent) -> 0")
        let run = try await sandbox.shell("""
            python3 - "$XDG_CONFIG_HOME/app.plist" <<'PY'
            import sys, plistlib, time
            pad = "p" * 100000
            end = time.time() + 3
            i = 0
            while time.time() < end:
                i += 1
                with open(sys.argv[1], 'wb') as f:
                    f.write(plistlib.dumps({"n": i, "pad": pad}))
            print(i)
            PY
            """)
        try #require(run.status == 0, "\(run.error)")
        let last = run.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        // The watch may lag the writer on a loaded machine: it is given time to catch up (a lost
        // last change still fails), and the loop ends as soon as the last value comes.
        var lines: [String] = []
        while let line = await watch.nextLine(timeout: 15) {
            lines.append(line)
            if line.hasSuffix("-> \(last)") { break }
        }
        watch.process.terminate()
        #expect(await watch.wait() == 0)
        #expect(lines.last?.hasSuffix("-> \(last)") == true, "\(lines.suffix(3))")
        #expect(!lines.contains { $0.contains("(removed)") || $0.contains("(absent)") }, "\(lines.filter { $0.contains("(") })")
        #expect(watch.errorText.isEmpty, "\(watch.errorText)")
    }

    /// One writer holds the file open mid-write (truncated, nothing written yet) while another opens
    /// it for writing and closes it: that close does not make the file whole, so the watch waits for
    /// the first writer to close it, and never shows the empty file.
    @Test func aWriterStillHoldingTheFileIsWaitedForWhenAnotherClosesIt() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "one")
        let watch = try WatchProcess(sandbox, ["app", "--initial"])
        #expect(await watch.nextLine() == "k (absent) -> one")
        let path = sandbox.config + "/app.plist", truncated = sandbox.directory.path + "/truncated"
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        writer.arguments = ["-c", """
            import sys, time, plistlib
            with open(sys.argv[1], 'wb') as f:
                open(sys.argv[2], 'w').close()
                time.sleep(1)
                f.write(plistlib.dumps({"k": "two"}))
            """, path, truncated]
        try writer.run()
        let watchdog = Watchdog(writer, timeout: 30)
        defer {
            writer.terminate()
            watchdog.finish()
        }
        _ = await eventually(timeout: 10, interval: 0.002) { FileManager.default.fileExists(atPath: truncated) || !writer.isRunning }
        try #require(FileManager.default.fileExists(atPath: truncated), "the writer never truncated the file")
        let other = try #require(FileHandle(forWritingAtPath: path))
        try other.close()
        #expect(await watch.nextLine() == "k one -> two")
        watch.process.terminate()
        #expect(await watch.wait() == 0)
        #expect(watch.unread.isEmpty && watch.errorText.isEmpty, "\(watch.unread) \(watch.errorText)")
    }

    /// Waiting for writers hides no real removal: a key deleted, the suite emptied in place (truncated
    /// and closed: an empty suite), the suite deleted; whole suites and single keys (read the fast
    /// way) alike.
    @Test func aKeyRemovedOrTheSuiteEmptiedOrDeletedIsReportedRemoved() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "a", "-int", "1")
        try await sandbox.prefs("write", "app", "b", "-int", "2")
        let watches = [try WatchProcess(sandbox, ["app", "--initial"]), try WatchProcess(sandbox, ["app", "a", "b", "c", "--initial"])]
        for watch in watches { #expect(await watch.lines(2) == ["a (absent) -> 1", "b (absent) -> 2"]) }
        try await sandbox.prefs("delete", "app", "a")
        for watch in watches { #expect(await watch.nextLine() == "a 1 -> (removed)") }
        let emptied = try #require(FileHandle(forWritingAtPath: sandbox.config + "/app.plist"))
        try emptied.truncate(atOffset: 0)
        try emptied.close()
        for watch in watches { #expect(await watch.nextLine() == "b 2 -> (removed)") }
        try await sandbox.prefs("write", "app", "c", "-int", "3")
        for watch in watches { #expect(await watch.nextLine() == "c (absent) -> 3") }
        try FileManager.default.removeItem(atPath: sandbox.config + "/app.plist")
        for watch in watches {
            #expect(await watch.nextLine() == "c 3 -> (removed)")
            watch.process.terminate()
            #expect(await watch.wait() == 0)
            #expect(watch.unread.isEmpty && watch.errorText.isEmpty, "\(watch.unread) \(watch.errorText)")
        }
    }

    /// What the watch asks the kernel after each read: whether any process has the file open for
    /// writing (a reader does not count).
    /// (Every descriptor is opened close-on-exec: a process another test forks meanwhile, an etcd
    /// member that lives for the whole run say, must not inherit a writer.)
    @Test func whetherAFileIsOpenForWritingComesFromTheKernel() throws {
        let sandbox = try ProcessSandbox()
        let path = sandbox.directory.path + "/file.plist"
        #expect(InotifyFeed.isOpenForWriting(path) == false)
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(created >= 0 && write(created, "x", 1) == 1)
        close(created)
        #expect(InotifyFeed.isOpenForWriting(path) == false)
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        try #require(reader >= 0)
        #expect(InotifyFeed.isOpenForWriting(path) == false)
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        #expect(InotifyFeed.isOpenForWriting(path) == true)
        close(writer)
        #expect(InotifyFeed.isOpenForWriting(path) == false)
        close(reader)
    }

    /// --timeout ends the watch on time even while a writer keeps the file open mid-write.
    @Test func theTimeoutHoldsWhileAWriterKeepsTheFileOpen() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let ready = sandbox.directory.path + "/writing"
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        writer.arguments = ["-c", "import sys, time\nf = open(sys.argv[1], 'r+b'); f.write(b'<?xml'); f.flush(); open(sys.argv[2], 'w').close(); time.sleep(8)",
                            sandbox.config + "/app.plist", ready]
        try writer.run()
        let watchdog = Watchdog(writer, timeout: 30)
        defer {
            writer.terminate()
            watchdog.finish()
        }
        // Wait until the writer holds the file open mid-write.
        _ = await eventually(timeout: 10, interval: 0.002) { FileManager.default.fileExists(atPath: ready) || !writer.isRunning }
        try #require(FileManager.default.fileExists(atPath: ready), "the writer never opened the file")
        let watch = try WatchProcess(sandbox, ["app", "--timeout", "1"])
        #expect(await watch.wait(timeout: 4) == 0)
    }

    @Test func aChangeIsAlwaysOneLineAndAKeyPathThroughAScalarIsRemoved() async throws {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "a", "-dict", "b", "-int", "1")
        let watch = try WatchProcess(sandbox, ["app", ":a:b", "s", "--initial"])
        #expect(await watch.nextLine() == ":a:b (absent) -> 1")
        try await sandbox.prefs("write", "app", "s", "-string", "line1\nfake 1 -> 2")
        #expect(await watch.nextLine() == "s (absent) -> \"line1\\nfake 1 -> 2\"")
        try await sandbox.prefs("write", "app", "a", "-int", "5")
        #expect(await watch.nextLine() == ":a:b 1 -> (removed)")
        #expect(watch.errorText.isEmpty)
        watch.process.terminate()
        #expect(await watch.wait() == 0)
    }

    @Test func sigtermAndAClosedPipeEndTheWatchWithZero() async throws {
        let sandbox = try ProcessSandbox()
        let watch = try WatchProcess(sandbox, ["app"])
        // SIGTERM before the watch has set up its handler would kill it outright: wait for that.
        _ = await eventually(timeout: 10, interval: 0.002) { watch.catches(SIGTERM) || !watch.process.isRunning }
        try #require(watch.catches(SIGTERM), "the watch never set up its SIGTERM handler")
        kill(watch.process.processIdentifier, SIGTERM)
        #expect(await watch.wait() == 0)
        // The reader goes away after one line (the current value, --initial); the watch notices
        // without another write.
        try #require(await sandbox.prefs("write", "app", "k", "v").status == 0)
        let run = try await sandbox.shell("""
            prefs watch app --initial | head -n 1 >/dev/null
            echo "${PIPESTATUS[0]}"
            """, timeout: 30)
        #expect(run.outputText == "0\n", "\(run.outputText) \(run.error)")
    }
}
