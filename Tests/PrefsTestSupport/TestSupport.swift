import Foundation
import Synchronization
import PrefsCore

/// Paths of the repository and its conformance corpora (Tests/Conformance), for both test targets.
package enum Fixtures {
    /// The package root, found from this file's path (Tests/PrefsTestSupport/TestSupport.swift).
    package static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `Tests/Conformance` in the checkout (see its README for where each corpus comes from). Tests
    /// that need it fail, never skip, when it is missing.
    package static func conformance(_ relative: String = "") throws -> String {
        let base = packageRoot + "/Tests/Conformance"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: base, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TestFailure("conformance corpora not found at \(base)")
        }
        return relative.isEmpty ? base : base + "/" + relative
    }

    /// Files directly inside a conformance folder, sorted; fails when there are none.
    package static func conformanceFiles(_ folder: String, matching suffix: String = "") throws -> [String] {
        let directory = try conformance(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(suffix) }.sorted()
        guard !names.isEmpty else { throw TestFailure("no files in \(directory)") }
        return names.map { directory + "/" + $0 }
    }

    package static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    package static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: packageRoot + "/" + relative, encoding: .utf8)
    }

    /// Writes `bytes` over a file's own at `offset`, in place (the same inode and size): damage, or
    /// its mending.
    package static func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw TestFailure("cannot open \(path)") }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
    }

    /// The tree digest (`sha256-tree`, as the man page's EXTERNAL STORAGE defines it) of each file, in lowercase hex, computed by
    /// CPython's hashlib: an oracle independent of PrefsCore's SHA-256.
    package static func sha256TreeByPython(_ paths: [String]) throws -> [String] {
        try treeDigests(runProcess("/usr/bin/python3", ["-c", treeDigestScript] + paths), count: paths.count)
    }

    /// `sha256TreeByPython`, awaited (`runProcess`).
    package static func sha256TreeByPython(_ paths: [String]) async throws -> [String] {
        try treeDigests(await runProcess("/usr/bin/python3", ["-c", treeDigestScript] + paths), count: paths.count)
    }

    private static let treeDigestScript = """
        import hashlib, sys
        for path in sys.argv[1:]:
            data = open(path, 'rb').read()
            pieces = b''.join(hashlib.sha256(data[i:i + (1 << 20)]).digest() for i in range(0, len(data), 1 << 20))
            print(hashlib.sha256(pieces).hexdigest())
        """

    private static func treeDigests(_ run: ProcessResult, count: Int) throws -> [String] {
        let digests = run.outputText.split(separator: "\n").map(String.init)
        guard run.status == 0, digests.count == count else { throw TestFailure("python3: \(run.error)") }
        return digests
    }
}

package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// A fresh directory under the system temp dir, removed when the value is released.
package final class TemporaryDirectory: Sendable {
    package let path: String

    /// A directory for this test; with `forTheProcess`, one a static holds, which is never released:
    /// it is removed when the test process exits.
    package init(forTheProcess: Bool = false) throws {
        var template = Array((NSTemporaryDirectory() + "/prefs-test-XXXXXX").utf8CString)
        guard let result = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        path = String(cString: result)
        if forTheProcess { TemporaryDirectory.removeAtExit(path) }
    }

    private static let heldForTheProcess = Mutex<[String]?>(nil)

    private static func removeAtExit(_ path: String) {
        heldForTheProcess.withLock { paths in
            if paths == nil {
                atexit { for path in TemporaryDirectory.heldForTheProcess.withLock({ $0 ?? [] }) { try? FileManager.default.removeItem(atPath: path) } }
            }
            paths = (paths ?? []) + [path]
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    package func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    package func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    @discardableResult
    package func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }
}

package struct ProcessResult: Sendable {
    package let status: Int32
    package let output: [UInt8]
    package let error: String
    /// Seconds from the start of the process to its end (not counting any wait for a place to run it).
    package let elapsed: Double
    package var outputText: String { String(decoding: output, as: UTF8.self) }
}

/// How long a spawned process may run before the helpers kill it: a hang fails its test instead of
/// stalling the suite. Generous, because `swift test --parallel` loads the machine; a test that runs
/// something longer passes its own `timeout:`.
package let defaultProcessTimeout: Double = 120

/// A directory no test creates (in the checkout): `$XDG_CONFIG_DIRS` of every `prefs` a test runs
/// that did not set it, so no test reads this machine's `/etc/xdg` (managed values, system defaults).
package let unusedConfigDirectory = Fixtures.packageRoot + "/.build/no-xdg-config-dirs"

/// `environment`, with `XDG_CONFIG_DIRS` set to `unusedConfigDirectory` when it is not set.
package func isolatingConfigDirectories(_ environment: [String: String]) -> [String: String] {
    environment["XDG_CONFIG_DIRS"] == nil ? environment.merging(["XDG_CONFIG_DIRS": unusedConfigDirectory]) { $1 } : environment
}

/// Runs a program to completion, feeding `input` to its standard input. Standard input and error
/// go through temporary files so only standard output needs a pipe. A program still running after
/// `timeout` seconds is killed with its whole process group (a shell's children too) and the call
/// throws, naming the command and what it had printed.
package func runProcess(_ executable: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil,
                       timeout: Double = defaultProcessTimeout, workingDirectory: String? = nil) throws -> ProcessResult {
    let scratch = try TemporaryDirectory()
    let inputPath = try scratch.write("stdin", input)
    let errorPath = try scratch.write("stderr", [])
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = isolatingConfigDirectories(environment ?? ProcessInfo.processInfo.environment)
    if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
    let stdout = Pipe()
    process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
    process.standardOutput = stdout
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    let started = Date()
    try process.run()
    let watchdog = Watchdog(process, timeout: timeout)
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let timedOut = watchdog.finish()
    let error = String(decoding: try Fixtures.bytes(errorPath), as: UTF8.self)
    if timedOut {
        throw TestFailure("""
            \(([executable] + arguments).joined(separator: " ").prefix(300)) did not finish within \(timeout) s and was killed; \
            standard output: \(String(decoding: output.suffix(500), as: UTF8.self)); standard error: \(error.suffix(500))
            """)
    }
    return ProcessResult(status: process.terminationStatus, output: [UInt8](output), error: error, elapsed: Date().timeIntervalSince(started))
}

/// `runProcess`, awaited: the process runs on a thread of its own once one of
/// `TestConcurrency.processes`' places is free (`longProcesses` for a `timeout` above the default),
/// the task's `TestConcurrency.priority` first, and the caller's thread is not held meanwhile.
package func runProcess(_ executable: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil,
                       timeout: Double = defaultProcessTimeout, workingDirectory: String? = nil) async throws -> ProcessResult {
    try await (timeout > defaultProcessTimeout ? TestConcurrency.longProcesses : TestConcurrency.processes).run(priority: TestConcurrency.priority) {
        try await onOwnThread {
            try runProcess(executable, arguments, input: input, environment: environment, timeout: timeout, workingDirectory: workingDirectory)
        }
    }
}

/// Kills a process, and the process group it leads, once `timeout` seconds have passed without
/// `finish()` being called.
package final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var state = State.running
    private enum State { case running, finished, killed }

    package init(_ process: Process, timeout: Double) {
        let pid = process.processIdentifier
        // Foundation starts each child in a process group of its own: killing the group also kills
        // what a shell script started. Checked, so another group is never signalled.
        let leadsGroup = getpgid(pid) == pid
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
            lock.withLock {
                guard state == .running else { return }
                state = .killed
                if leadsGroup { kill(-pid, SIGKILL) }
                kill(pid, SIGKILL)
            }
        }
    }

    /// Stops the watch; true when the process was killed for running too long.
    @discardableResult
    package func finish() -> Bool {
        lock.withLock {
            if state == .running { state = .finished }
            return state == .killed
        }
    }
}

/// The absolute path of a program on PATH; fails (not skips) when it is missing.
package func requireProgram(_ name: String, install hint: String) throws -> String {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = directory + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw TestFailure("\(name) is not installed (\(hint)); .ci/run installs it")
}

/// Waits until no live process is left in process group `group` (zombies waiting to be reaped are
/// dead: they can no longer write). False when some are still running after `timeout` seconds.
package func waitForProcessGroupToEnd(_ group: pid_t, timeout: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if !processGroupHasLiveMembers(group) { return true }
        if Date() >= deadline { return false }
        usleep(1_000)
    }
}

/// `waitForProcessGroupToEnd`, awaited: checked every millisecond without holding a thread.
package func waitForProcessGroupToEnd(_ group: pid_t, timeout: Double = 10) async -> Bool {
    await eventually(timeout: timeout, interval: 0.001) { !processGroupHasLiveMembers(group) }
}

/// Whether a process that is not a zombie has process group `group`, from /proc/PID/stat.
func processGroupHasLiveMembers(_ group: pid_t) -> Bool {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return kill(-group, 0) == 0 }
    for entry in entries where entry.allSatisfy(\.isNumber) {
        // "PID (COMMAND) STATE PPID PGRP …"; COMMAND may hold spaces and parentheses.
        guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { continue }  // the process ended meanwhile
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let processGroup = pid_t(fields[2]) else { continue }
        if processGroup == group && fields[0] != "Z" && fields[0] != "X" { return true }
    }
    return false
}

extension PrefValue {
    /// The dictionary this value is, or nil: for `try #require(value?.dictionary)`.
    package var dictionary: PrefDictionary? {
        if case .dictionary(let dictionary) = self { return dictionary }
        return nil
    }

    /// The array this value is, or nil.
    package var array: [PrefValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}

/// Stops a process with SIGSTOP and returns once every thread of it has stopped. `kill` only queues
/// the signal: the kernel wakes one thread to take it, and the others stop only when that thread
/// has run. On a busy machine it may wait for a CPU while the others go on (an etcd member so
/// "stopped" committed a write and sent it down a watch 20 ms later). Only its parent can wait
/// for the stop (an etcd member's is its guardian shell), so each thread's state is read from
/// /proc until it is `T`.
package func stopProcess(_ pid: pid_t, timeout: Double = 60) throws {
    guard kill(pid, SIGSTOP) == 0 else { throw TestFailure("kill \(pid) SIGSTOP: errno \(errno)") }
    let deadline = Date().addingTimeInterval(timeout)
    while !processHasStopped(pid) {
        if Date() >= deadline { throw TestFailure("process \(pid) did not stop within \(timeout) s") }
        usleep(1_000)
    }
}

/// `stopProcess`, awaited: checked every millisecond without holding a thread.
package func stopProcess(_ pid: pid_t, timeout: Double = 60) async throws {
    guard kill(pid, SIGSTOP) == 0 else { throw TestFailure("kill \(pid) SIGSTOP: errno \(errno)") }
    guard await eventually(timeout: timeout, interval: 0.001, { processHasStopped(pid) }) else {
        throw TestFailure("process \(pid) did not stop within \(timeout) s")
    }
}

/// Whether every thread of `pid` is stopped (or gone), from /proc/PID/task/TID/stat.
func processHasStopped(_ pid: pid_t) -> Bool {
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return true }
    return threads.allSatisfy { thread in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }  // the thread ended meanwhile
        let state = stat[stat.index(after: close)...].split(separator: " ").first ?? ""
        return state == "T" || state == "t" || state == "Z" || state == "X"
    }
}
