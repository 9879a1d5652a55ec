import Glibc
import PrefsCore

/// `watch --exec COMMAND`: COMMAND runs through `/bin/sh -c` once per changed key, on a thread of
/// its own, with the change in its environment (`PREFS_SUITE`, `PREFS_KEY`, and `PREFS_OLD` and
/// `PREFS_NEW` as `read` prints the values, each absent when there is no value) — never in COMMAND's
/// text. Two runs never overlap: changes that arrive meanwhile wait, coalesced per key (from the
/// value before the first to the value after the last; a key back where it was runs nothing), and
/// run when the run in progress ends. A run that fails is reported on standard error; the watch
/// goes on.
final class ChangeCommand: @unchecked Sendable {
    /// The variables COMMAND gets (prefs reads none of them).
    static let variableNames = ["PREFS_SUITE", "PREFS_KEY", "PREFS_OLD", "PREFS_NEW"]

    let command: String
    let suite: String
    let report: @Sendable (String) -> Void
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// A change of one key: its value before (nil: none) and after.
    struct Change {
        let key: String
        let old: PrefValue?
        let new: PrefValue?
    }

    /// Changes not run yet, one per key, in the order they came.
    private var pending: [Change] = []
    private var finishing = false
    private var thread: pthread_t?

    init(command: String, suite: String, report: @escaping @Sendable (String) -> Void) {
        self.command = command
        self.suite = suite
        self.report = report
        pthread_mutex_init(lock, nil)
        pthread_cond_init(wake, nil)
    }

    deinit {
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        wake.deallocate()
    }

    /// Starts the thread that runs COMMAND.
    func start() throws {
        var thread = pthread_t()
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<ChangeCommand>.fromOpaque(context!).takeUnretainedValue().work()
            return nil
        }, context)
        guard started == 0 else { throw PrefsError.internalError("watch --exec: cannot start a thread (\(PrefsError.describe(errno: started)))") }
        self.thread = thread
    }

    /// Queues changes, each merged with a change of the same key still waiting.
    func submit(_ changes: [WatchChange]) {
        pthread_mutex_lock(lock)
        for change in changes {
            if let i = pending.firstIndex(where: { $0.key.utf8.elementsEqual(change.key.utf8) }) {
                pending[i] = Change(key: change.key, old: pending[i].old, new: change.new)
            } else {
                pending.append(Change(key: change.key, old: change.old, new: change.new))
            }
        }
        pthread_cond_signal(wake)
        pthread_mutex_unlock(lock)
    }

    /// Runs what is waiting, then ends the thread.
    func finish() {
        pthread_mutex_lock(lock)
        finishing = true
        pthread_cond_signal(wake)
        pthread_mutex_unlock(lock)
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private func work() {
        while true {
            pthread_mutex_lock(lock)
            while pending.isEmpty && !finishing { pthread_cond_wait(wake, lock) }
            let batch = pending
            pending = []
            pthread_mutex_unlock(lock)
            if batch.isEmpty { return }
            for change in batch where change.old != change.new { run(change) }
        }
    }

    /// One run for one change: spawned, waited for, and reported unless it exits 0.
    private func run(_ change: Change) {
        var variables = [("PREFS_SUITE", suite), ("PREFS_KEY", change.key)]
        for (name, value) in [("PREFS_OLD", change.old), ("PREFS_NEW", change.new)] {
            guard let value else { continue }
            variables.append((name, ChangeCommand.text(value)))
        }
        if let bad = variables.first(where: { $0.1.utf8.contains(0) }) {
            report("watch: \(suite): \(change.key): \(bad.0) would hold a NUL byte, which no environment value can hold; COMMAND not run")
            return
        }
        switch Spawn.run(["/bin/sh", "-c", command], environment: variables, clearing: ChangeCommand.variableNames) {
        case .exited(0): return
        case .exited(let status): report("watch: COMMAND exited with status \(status) (\(suite): \(change.key)); watching on")
        case .signalled(let signal): report("watch: COMMAND was killed by signal \(signal) (\(suite): \(change.key)); watching on")
        case .failed(let code): report("watch: cannot run /bin/sh: \(PrefsError.describe(errno: code)); watching on")
        }
    }

    /// A value as `read` prints it, without the final newline.
    static func text(_ value: PrefValue) -> String {
        let bytes = (try? ValueOutput.text(value, json: false)) ?? Array(ValueOutput.line(value).utf8)
        return String(decoding: bytes.last == 0x0A ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
