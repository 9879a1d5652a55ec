import Glibc
import PrefsCore

/// `prefs watch DOMAIN [KEY…] [--json|--compact|--exec COMMAND] [--initial] [--once] [--timeout SECONDS] [--retry-for SECONDS]
/// [-- COMMAND [ARG…]]` — prints one line per
/// change of a watched key's value as an application sees it (any layer), whoever made it:
/// `KEY OLD -> NEW` in `read`'s bare forms, or a JSON object per line. Ends with 0 on SIGINT or
/// SIGTERM or when standard output's reader goes away; `--once` after the first change, and with
/// `--timeout` 1 when none came in time. `-- COMMAND [ARG…]` (COMMAND found on `$PATH` as the
/// watch starts: 127 not found, 126 not runnable, as `exec`) and `--exec COMMAND` (through
/// `/bin/sh -c`) run COMMAND once per committed change instead of printing it (see
/// `ExecRunner`); `--timeout` then stops a run in progress, and SIGINT or
/// SIGTERM stops it and ends the watch with 128+N (`Signals.stopCommandsOnSignals`). A store that
/// stops answering does not end it (`RetryingWatcher`): said once, waited for (`--retry-for` bounds
/// that), and what changed meanwhile reported as one change.
enum WatchCommand: Command {
    struct Values: CommandValues {
        var json = false, compact = false, initial = false, once = false
        var timeout: Double?
        var retryFor: Double?
        var exec: String?
    }

    static let verb = Verb(name: "watch", operands: "DOMAIN [KEY...] [-- COMMAND [ARG...]]",
                           summary: "print each change of a suite's values (or of the KEYs) as it happens, or run COMMAND for it",
                           operandCount: 1...Int.max, details: HelpText.watchDetails, runsCommand: true)

    static let operandKinds: [WordKind] = [.domain, .key]

    static let options: [Option<Values>] = [
        .flag("json", "print each change as a JSON object on one line") { $0.json = $1 },
        .compact { $0.compact = $1 },
        .flag("initial", "print the current values first") { $0.initial = $1 },
        .flag("once", "exit after the first change") { $0.once = $1 },
        .seconds("timeout", "stop after SECONDS, a running COMMAND too (with --once: exit 1 if no change came)") { $0.timeout = $1 },
        .seconds("retry-for", "when the store (etcd) stops answering, wait for it at most SECONDS, then exit 69 (default: for ever)") { $0.retryFor = $1 },
        .text("exec", "COMMAND", "instead of printing, run COMMAND with /bin/sh -c once per committed change, as -- COMMAND [ARG...] runs its words") { $0.exec = $1 },
    ]

    static let usage = "usage: prefs watch DOMAIN [KEY...] [--initial] [--once] [--timeout SECONDS] -- COMMAND [ARG...]"

    static func validate(_ values: Values, _ operands: [String]) throws {
        let printing = "--json and --compact do not go with it", json = values.json || values.compact
        if json && values.exec != nil { throw PrefsError.usage("watch: --exec runs COMMAND instead of printing: \(printing)") }
        guard operands.contains("--") else { return }
        if json { throw PrefsError.usage("watch: -- COMMAND runs COMMAND instead of printing: \(printing)") }
        if values.exec != nil { throw conflict("--exec COMMAND", "-- COMMAND", "; give one") }
        guard operands.first != "--" else { throw PrefsError.usage("watch: no DOMAIN given (\(usage))") }
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        // `-- COMMAND [ARG...]`: the words after the first `--` (kept by the parser, as for exec).
        let dashes = operands.firstIndex(of: "--")
        let watched = dashes.map { Array(operands[..<$0]) } ?? operands
        let commandWords = dashes.map { Array(operands[($0 + 1)...]) }
        guard let first = watched.first else { throw PrefsError.internalError("watch ran without a DOMAIN") }
        let domain = try Domain(argument: first)
        guard domain != .standardInput else { throw PrefsError.usage("watch: standard input cannot be watched; name a suite or a file") }
        var keys: [(name: String, path: PrefKeyPath)] = []
        for name in watched.dropFirst() where !keys.contains(where: { $0.name.utf8.elementsEqual(name.utf8) }) {
            keys.append((name, try PrefKeyPath(argument: name, in: domain.displayName)))
        }
        // Each JSON object is on one line whether or not --compact is given.
        let printer = try OutputForm(json: values.json, compact: values.compact).printer(context)
        var program: String?
        if let commandWords {
            switch try CommandLookup.find(commandWords, verb: "watch", usage: usage) {
            case .success(let path): program = path
            case .failure(let failure):
                // The name holds no control character (checked): one line, as exec says it.
                context.printError("watch: \(commandWords[0]): " + (failure == .notFound ? "command not found" : "cannot run: " + PrefsError.describe(errno: failure.code)))
                return failure == .notFound ? .commandNotFound : .cannotExecute
            }
        }
        let (store, keep) = try context.store.recordingSnapshots(of: domain)
        let layers = try Layers(domain, in: store)
        // A store away at the start is waited for as later: whether the suite exists is asked again then.
        var missing: Bool?
        do { missing = try !layers.exists() } catch PrefsError.unavailable {}
        let watcher = RetryingWatcher(
            try layers.watcher(keys: keys.isEmpty ? nil : keys), limit: values.retryFor,
            lost: { context.printError("\(domain.displayName): \($0.message); watching again once the store answers") },
            back: { context.printError("\(domain.displayName): the store answers again; what changed meanwhile follows as one change") },
            afterReading: keep)
        // --timeout holds while a command runs: the watch ends at this time whatever it is doing.
        let deadline = values.timeout.map { MonotonicClock.now() + $0 }
        let report: @Sendable (String) -> Void = { context.printError($0) }
        let runner = if let program, let commandWords {
            ExecRunner(program: program, words: commandWords, suite: domain.displayName, report: report)
        } else {
            values.exec.map { ExecRunner(command: $0, suite: domain.displayName, report: report) }
        }
        if let runner {
            try Signals.stopCommandsOnSignals(runner)
            try runner.start()
        } else {
            Signals.endWatchOnSignals()
        }
        defer { runner?.finish(until: deadline) }
        let print = { (changes: [WatchChange]) in
            if let runner { return runner.submit(changes) }
            printer.changes(changes, in: domain)
        }
        let stop = try watcher.run(
            timeout: values.timeout, closedWhen: context.outputDescriptor,
            initial: { changes in
                // Said once the watches are set up, so a creation from now on is seen.
                if missing ?? (try? !layers.exists()) ?? false { context.printError(layers.absent.message + "; watching for it to be created") }
                if values.initial { print(changes) }
                return true
            },
            onChanges: { changes in
                print(changes)
                return !values.once
            },
            onError: { context.printError($0.message) })
        return stop == .timedOut && values.once ? .notFound : .success
    }
}

/// Finding the program of a `-- COMMAND [ARG...]` before anything runs, as `execvp` would find it:
/// a name with a `/` is that path, any other is looked for in each directory of `$PATH` (unset:
/// `/usr/bin:/bin`; an empty entry is the working directory).
enum CommandLookup {
    struct Failure: Error, Equatable {
        let code: Int32
        static let notFound = Failure(code: ENOENT)
    }

    /// The path of COMMAND (`words[0]`), or why it cannot run (ENOENT: not found; else found and not
    /// runnable). No COMMAND, or a name that cannot be one (empty, starting with `-`, holding a
    /// control character: an option or a key mistyped after `--`), is a usage error.
    static func find(_ words: [String], verb: String, usage: String) throws -> Result<String, Failure> {
        guard let name = words.first else { throw PrefsError.usage("\(verb): no COMMAND after -- (\(usage))") }
        guard !name.isEmpty, !name.hasPrefix("-"), !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw PrefsError.usage("\(verb): \(ValueOutput.quotedIfNeeded(name)) after -- is not a command name (\(usage))")
        }
        if name.contains("/") { return problem(name).map { .failure(Failure(code: $0)) } ?? .success(name) }
        let search = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        var failure: Failure = .notFound
        for directory in search.split(separator: ":", omittingEmptySubsequences: false) {
            let path = directory.isEmpty ? name : directory + "/" + name
            guard let code = problem(path) else { return .success(path) }
            // Found but not runnable is said only when nothing later on $PATH runs (as execvp).
            if code != ENOENT && code != ENOTDIR { failure = Failure(code: code) }
        }
        return .failure(failure)
    }

    /// Why `path` is not a regular file this process may execute (an errno), or nil when it is.
    static func problem(_ path: String) -> Int32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno }
        guard info.st_mode & S_IFMT == S_IFREG else { return EACCES }
        return access(path, X_OK) == 0 ? nil : errno
    }
}
