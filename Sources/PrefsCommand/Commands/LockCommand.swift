import Glibc
import PrefsCore

/// `prefs lock NAME [--ttl D] [--wait D | --no-wait] [-n N] -- COMMAND [ARG...]` — runs COMMAND
/// while holding the lock NAME of the current store (files: a flock in the user's lock directory;
/// etcd: a key on a lease, kept alive every TTL/3), as a semaphore of N holders with `-n N`.
/// COMMAND is a child, the leader of a process group of its own (in the terminal's foreground when
/// prefs was), with `PREFS_LOCK_NAME` and `PREFS_LOCK_TOKEN` (the fencing token) in its
/// environment; SIGINT, SIGTERM, SIGHUP and SIGQUIT are passed to its group. Exit: 75 when the lock
/// was not obtained, 78 when it was lost and COMMAND stopped (`LockSupervisor`), else COMMAND's own
/// status (128 + N when a signal N ended it; 127 not found, 126 not runnable, as `exec`).
enum LockCommand: Command {
    struct Values: CommandValues {
        var ttl = 10.0, wait: Double?, noWait = false, holders = 1
    }

    static let verb = Verb(name: "lock", operands: "NAME -- COMMAND [ARG...]",
                           summary: "run COMMAND holding the lock NAME of the store (75: not obtained; 78: lost, COMMAND stopped)",
                           operandCount: 3...Int.max, details: details, runsCommand: true)

    static let details = """
                NAME: letters, digits, '.', '_' and '-'. Files: a flock in $XDG_STATE_HOME/prefs/locks/NAME/
                (released when prefs dies). etcd: a key on a lease under PREFIX/.locks/.named/NAME/, renewed
                every TTL/3; waiters are served in order. COMMAND runs as a child in a process group of its
                own, with PREFS_LOCK_NAME and PREFS_LOCK_TOKEN (the fencing token: larger for each new
                holder; give it to a changing verb's --fence). If no renewal succeeded for 2/3 of the TTL,
                COMMAND's group gets SIGTERM, and SIGKILL at the TTL, and prefs exits 78. Exit: 75 lock not
                obtained; 78 lock lost; else COMMAND's status (128+N for signal N; 127 not found, 126 not runnable).
                """

    static let operandKinds: [WordKind] = [.text]

    static let options: [Option<Values>] = [
        .duration("ttl", "how long the lock outlives a holder that stops renewing it (etcd's lease; default 10s)") { $0.ttl = $1 },
        .duration("wait", "wait at most this long for the lock, then exit 75 (default: as long as it takes)") { $0.wait = $1 },
        .flag("no-wait", "exit 75 at once when the lock is held") { $0.noWait = $1 },
        Option(spec: OptionSpec(name: "holders", short: "n", value: "N", choices: [], repeatable: false,
                                summary: "a semaphore: up to N hold the lock at once (every holder gives the same N; default 1)")) { values, given in
            guard let text = given.last else { return }
            guard let count = Int(text), (1...1000).contains(count) else { throw PrefsError.usage("lock: -n takes a number from 1 to 1000, not '\(text)'") }
            values.holders = count
        },
    ]

    static func validate(_ values: Values, _ operands: [String]) throws {
        guard operands.count >= 3, operands[1] == "--" else {
            let missing = operands.first == "--" ? "no NAME given" : operands.count > 1 && operands[1] != "--" ? "one NAME, then --" : "no COMMAND given"
            throw PrefsError.usage("lock: \(missing) (usage: prefs lock NAME [--ttl D] [--wait D | --no-wait] [-n N] -- COMMAND [ARG...])")
        }
        try LockName.check(operands[0])
        guard !(values.noWait && values.wait != nil) else { throw conflict("--wait", "--no-wait") }
        guard values.ttl >= 1, values.ttl <= 86400 else { throw PrefsError.usage("lock: --ttl must be from 1s to 24h") }
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let name = operands[0]
        guard context.mayReplaceProcess else { throw PrefsError.internalError("lock runs only as a process of its own") }
        let command = Array(operands[2...])
        let locks = try context.store.locks()
        let deadline: Double? = values.noWait ? 0 : values.wait.map { MonotonicClock.now() + $0 }
        let request = LockRequest(name: name, holders: values.holders, ttl: values.ttl, holder: .current(context.environment))
        let handle = try locks.acquire(request, deadline: deadline)
        var variables = [("PREFS_LOCK_NAME", name), ("PREFS_LOCK_TOKEN", String(handle.token))]
        if let url = context.storeURL { variables.append(("PREFS_STORE", url)) }
        let supervisor = try LockSupervisor()
        let pid: pid_t
        switch Job.start(command, environment: Spawn.entries(adding: variables, clearing: []), pipeDefault: !Signals.pipeWasIgnored) {
        case .failure(let failure):
            handle.release()
            context.printError("lock: \(command[0]): " + (failure.code == ENOENT ? "command not found" : "cannot run: " + PrefsError.describe(errno: failure.code)))
            return failure.code == ENOENT ? .commandNotFound : .cannotExecute
        case .success(let started): pid = started
        }
        let end = supervisor.supervise(pid, handle)
        Job.handBack(from: pid)
        handle.release()
        switch end {
        case .lost(let silent):
            context.printError("lock \(name): lost (no keep-alive for \(String(format1: silent)) s); COMMAND stopped")
            return .lockLost
        case .ended(let status):
            exit(status)
        }
    }
}

extension Option {
    /// `--name D`: a duration, `500ms`, `10s`, `15m`, `1h` (a bare number: seconds).
    static func duration(_ name: String, _ summary: String, _ field: @escaping @Sendable (inout Values, Double) -> Void) -> Option {
        Option(spec: OptionSpec(name: name, short: nil, value: "D", choices: [], repeatable: false, summary: summary)) { values, given in
            guard let text = given.last else { return }
            guard let seconds = LockDuration.seconds(text) else {
                throw PrefsError.usage("--\(name) takes a duration such as 500ms, 10s, 15m or 1h, not '\(text)'")
            }
            field(&values, seconds)
        }
    }
}

enum LockDuration {
    /// `500ms`, `10s`, `15m`, `1h`, or a bare number of seconds: finite, 0 or more, at most a week.
    static func seconds(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("", 1)]
        guard let (suffix, scale) = units.first(where: { text.hasSuffix($0.0) }) else { return nil }
        let number = text.dropLast(suffix.count)
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number) else { return nil }
        let seconds = value * scale
        return seconds.isFinite && seconds <= 7 * 86400 ? seconds : nil
    }
}

extension String {
    /// A number of seconds with one decimal: `6.7`.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
