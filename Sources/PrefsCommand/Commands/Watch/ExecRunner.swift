import Glibc
import PrefsCore

/// What `watch` runs for each committed change: `--exec COMMAND` through `/bin/sh -c`, or `watch
/// DOMAIN [KEY…] -- COMMAND [ARG…]` as its words (the program found on `$PATH` when the watch
/// starts, as `exec` finds it). One run per committed change — a write of several keys is one
/// change (etcd: one revision; files: one rewrite of the file) — on a thread of its own, in a
/// process group of its own, with the change in its environment — never in COMMAND's text:
/// `PREFS_SUITE`, `PREFS_KEYS` (the keys changed, one per line, as `watch` prints them), and when
/// one key changed `PREFS_KEY`, and `PREFS_OLD` and `PREFS_NEW` as `read` prints the values (each
/// absent when there is no value). Two runs never overlap: changes that arrive meanwhile wait,
/// coalesced per key (from the value before the first to the value after the last; a key back
/// where it was is dropped), and run as one when the run in progress ends. A run that fails is
/// reported on standard error; the watch goes on. `stop` ends it all: the run in progress gets a
/// signal (its whole group; SIGKILL after `grace`), and what waits is dropped and said.
final class ExecRunner: @unchecked Sendable {
    /// The variables COMMAND gets (prefs reads none of them).
    static let variableNames = ["PREFS_SUITE", "PREFS_KEYS", "PREFS_KEY", "PREFS_OLD", "PREFS_NEW"]
    /// How long a stopped run has to end after its signal before its process group is killed.
    static let grace = 5.0

    /// What is spawned: the program's path and its words (`argv`).
    let program: String
    let words: [String]
    let suite: String
    let report: @Sendable (String) -> Void
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Broadcast on every change of the state below.
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// A change of one key: its value before (nil: none) and after.
    struct Change {
        let key: String
        let old: PrefValue?
        let new: PrefValue?
    }

    /// Changes not run yet, one per key, in the order they came: the next run's.
    private var pending: [Change] = []
    private var finishing = false, stopping = false, done = false
    /// The run in progress: its process, the leader of its own group, not yet collected.
    private var running: (pid: pid_t, changes: [Change])?
    /// The signal that is ending prefs, once one is.
    private var signalled: Int32 = 0
    private var thread: pthread_t?

    /// `--exec COMMAND`: COMMAND through `/bin/sh -c`.
    convenience init(command: String, suite: String, report: @escaping @Sendable (String) -> Void) {
        self.init(program: "/bin/sh", words: ["/bin/sh", "-c", command], suite: suite, report: report)
    }

    /// `-- COMMAND [ARG…]`: `program` (COMMAND as found) run with `words`.
    init(program: String, words: [String], suite: String, report: @escaping @Sendable (String) -> Void) {
        self.program = program
        self.words = words
        self.suite = suite
        self.report = report
        pthread_mutex_init(lock, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(changed, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        changed.deallocate()
    }

    /// Starts the thread that runs COMMAND.
    func start() throws {
        var thread = pthread_t()
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<ExecRunner>.fromOpaque(context!).takeUnretainedValue().work()
            return nil
        }, context)
        guard started == 0 else { throw PrefsError.internalError("watch --exec: cannot start a thread (\(PrefsError.describe(errno: started)))") }
        self.thread = thread
    }

    /// Queues one committed change (its keys' changes), each key merged with a change of the same
    /// key still waiting: what waits runs as one.
    func submit(_ changes: [WatchChange]) {
        locked {
            for change in changes {
                if let i = pending.firstIndex(where: { $0.key.utf8.elementsEqual(change.key.utf8) }) {
                    pending[i] = Change(key: change.key, old: pending[i].old, new: change.new)
                } else {
                    pending.append(Change(key: change.key, old: change.old, new: change.new))
                }
            }
        }
    }

    /// Runs what is waiting, then ends the thread; what is still running or waiting at `deadline`
    /// (monotonic seconds, `--timeout`) is stopped as `stop` does, and said.
    func finish(until deadline: Double? = nil) {
        pthread_mutex_lock(lock)
        finishing = true
        pthread_cond_broadcast(changed)
        var late = false
        while !done && !late { late = !waitForChange(until: deadline) }
        pthread_mutex_unlock(lock)
        if late, let what = stop(SIGTERM) { report("watch: --timeout reached: \(what)") }
        if let thread { pthread_join(thread, nil) }
        thread = nil
        // A signal is ending prefs (`stopOnSignal`): that thread exits, not this one.
        pthread_mutex_lock(lock)
        while signalled != 0 { pthread_cond_wait(changed, lock) }
        pthread_mutex_unlock(lock)
    }

    /// SIGINT, SIGTERM or SIGHUP: stops as `stop` does with that signal, says what was stopped, and
    /// ends prefs with 128 + the signal. Never returns.
    func stopOnSignal(_ signal: Int32) -> Never {
        locked { signalled = signal }
        let name = switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
        if let what = stop(signal) { report("watch: \(name): \(what)") }
        _exit(128 + signal)
    }

    /// Drops the changes waiting and sends `signal` to the run in progress's process group; waits
    /// until it has ended (killing the group after `grace`). Says what it stopped and dropped, or
    /// nil when nothing was.
    func stop(_ signal: Int32) -> String? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        stopping = true
        finishing = true
        let dropped = pending.filter { $0.old != $0.new }.count
        pending = []
        let stopped = running?.changes
        if let running { kill(-running.pid, signal) }
        let deadline = MonotonicClock.now() + ExecRunner.grace
        var killed = false
        while let running {
            if !killed && !waitForChange(until: deadline) {
                kill(-running.pid, SIGKILL)
                killed = true
            } else if killed {
                pthread_cond_wait(changed, lock)
            }
        }
        pthread_cond_broadcast(changed)
        var what: [String] = []
        if let stopped {
            what.append("the running COMMAND (\(ExecRunner.describe(stopped, suite: suite))) " + (killed ? "did not end within \(Int(ExecRunner.grace)) s and was killed" : "was stopped"))
        }
        if dropped > 0 { what.append("\(dropped) queued change\(dropped == 1 ? " was" : "s were") not run") }
        return what.isEmpty ? nil : what.joined(separator: "; ")
    }

    private func work() {
        while let changes = next() { run(changes) }
    }

    /// The changes of the next run: all that wait (a key back where it was left out); nil once
    /// finishing or stopping and nothing waits. The run is started under the lock, so `stop` sees it.
    private func next() -> [Change]? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while true {
            while pending.isEmpty && !finishing { pthread_cond_wait(changed, lock) }
            guard !stopping, !pending.isEmpty else {
                done = true
                pthread_cond_broadcast(changed)
                return nil
            }
            let changes = pending.filter { $0.old != $0.new }
            pending = []
            if !changes.isEmpty { return changes }
        }
    }

    /// The variables of a run for `changes`: `PREFS_SUITE`, `PREFS_KEYS`, and for one key
    /// `PREFS_KEY`, `PREFS_OLD` and `PREFS_NEW` (each left out when there is no value).
    static func variables(_ changes: [Change], suite: String) -> [(String, String)] {
        var variables = [("PREFS_SUITE", suite), ("PREFS_KEYS", changes.map { WatchOutput.oneLine($0.key) }.joined(separator: "\n"))]
        guard changes.count == 1, let change = changes.first else { return variables }
        variables.append(("PREFS_KEY", change.key))
        for (name, value) in [("PREFS_OLD", change.old), ("PREFS_NEW", change.new)] {
            guard let value else { continue }
            variables.append((name, ExecRunner.text(value)))
        }
        return variables
    }

    /// `SUITE: KEY, KEY…`, for what is said of a run.
    static func describe(_ changes: [Change], suite: String) -> String {
        "\(suite): " + changes.map(\.key).joined(separator: ", ")
    }

    /// One run for one committed change (or those coalesced while a run held): spawned, waited
    /// for, and reported unless it exits 0 or was stopped.
    private func run(_ changes: [Change]) {
        let variables = ExecRunner.variables(changes, suite: suite)
        let what = ExecRunner.describe(changes, suite: suite)
        if let refusal = ExecRunner.refusal(variables) {
            report("watch: \(what): \(refusal); COMMAND not run")
            return
        }
        guard let started = launch(changes, variables) else { return }
        let outcome: Spawn.Outcome
        switch started {
        case .failure(let failure): outcome = .failed(failure.code)
        case .success(let pid):
            Spawn.awaitEnd(pid)
            // Stopped: whatever the run left in its group goes too (its ID is still held).
            let wasStopped = locked {
                if stopping { kill(-pid, SIGKILL) }
                running = nil
                return stopping
            }
            outcome = Spawn.collect(pid)
            if wasStopped { return }
        }
        switch outcome {
        case .exited(0): return
        case .exited(let status): report("watch: COMMAND exited with status \(status) (\(what)); watching on")
        case .signalled(let signal): report("watch: COMMAND was killed by signal \(signal) (\(what)); watching on")
        case .failed(let code): report("watch: cannot run \(program): \(PrefsError.describe(errno: code)); watching on")
        }
    }

    /// Starts the run, recorded as the run in progress; nil when stopping.
    private func launch(_ changes: [Change], _ variables: [(String, String)]) -> Result<pid_t, Spawn.Failure>? {
        locked {
            guard !stopping else { return nil }
            let started = Spawn.start(words, path: program, environment: variables, clearing: ExecRunner.variableNames, ownGroup: true)
            if case .success(let pid) = started { running = (pid, changes) }
            return started
        }
    }

    /// Why these variables cannot be given (a NUL byte; more than one variable can hold), or nil.
    static func refusal(_ variables: [(String, String)]) -> String? {
        if let bad = variables.first(where: { $0.1.utf8.contains(0) }) {
            return "\(bad.0) would hold a NUL byte, which no environment value can hold"
        }
        for (name, value) in variables {
            let size = name.utf8.count + value.utf8.count + 2
            if size > EnvironmentPolicy.variableLimit {
                return "\(name) would be \(size) bytes, more than one environment variable can hold (128 KiB)"
            }
        }
        return nil
    }

    /// A value as `read` prints it, without the final newline.
    static func text(_ value: PrefValue) -> String {
        let bytes = ValueOutput.text(value)
        return String(decoding: bytes.last == 0x0A ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }

    /// `body` under the lock; every change it makes is broadcast.
    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer {
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(lock)
        }
        return body()
    }

    /// Waits (the lock held) for a broadcast; false once `deadline` (monotonic seconds) has passed.
    private func waitForChange(until deadline: Double?) -> Bool {
        guard let deadline else {
            pthread_cond_wait(changed, lock)
            return true
        }
        guard MonotonicClock.now() < deadline else { return false }
        var end = MonotonicClock.absolute(deadline)
        return pthread_cond_timedwait(changed, lock, &end) != ETIMEDOUT || MonotonicClock.now() < deadline
    }
}
