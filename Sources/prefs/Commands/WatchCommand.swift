import PrefsCore

/// `prefs watch DOMAIN [KEY…] [--json|--compact|--exec COMMAND] [--initial] [--once] [--timeout SECONDS] [--retry-for SECONDS]` — prints one line per
/// change of a watched key's value as an application sees it (any layer), whoever made it:
/// `KEY OLD -> NEW` in `read`'s bare forms, or a JSON object per line. Ends with 0 on SIGINT or
/// SIGTERM or when standard output's reader goes away; `--once` after the first change, and with
/// `--timeout` 1 when none came in time. `--exec COMMAND` runs COMMAND for each change instead of
/// printing it (see `ChangeCommand`); `--timeout` then stops a run in progress, and SIGINT or
/// SIGTERM stops it and ends the watch with 128+N (`Signals.stopCommandsOnSignals`). A store that
/// stops answering does not end it (`RetryingWatcher`): said once, waited for (`--retry-for` bounds
/// that), and what changed meanwhile reported as one change.
enum WatchCommand: Command {
    struct Values: CommandValues {
        var json = false, initial = false, once = false
        var timeout: Double?
        var retryFor: Double?
        var exec: String?
    }

    static let verb = Verb(name: "watch", operands: "DOMAIN [KEY...]", summary: "print each change of a suite's values (or of the KEYs) as it happens",
                           operandCount: 1...Int.max, details: HelpText.watchDetails)

    static let operandKinds: [WordKind] = [.domain, .key]

    static let options: [Option<Values>] = [
        .flag("json", "print each change as a JSON object on one line") { $0.json = $1 },
        .flag("compact", "the same as --json (each object is on one line)") { $0.json = $1 },
        .flag("initial", "print the current values first") { $0.initial = $1 },
        .flag("once", "exit after the first change") { $0.once = $1 },
        .seconds("timeout", "stop after SECONDS, a running --exec COMMAND too (with --once: exit 1 if no change came)") { $0.timeout = $1 },
        .seconds("retry-for", "when the store (etcd) stops answering, wait for it at most SECONDS, then exit 69 (default: for ever)") { $0.retryFor = $1 },
        .text("exec", "COMMAND", "instead of printing, run COMMAND with /bin/sh -c after each change of a key, the change in PREFS_SUITE, PREFS_KEY, PREFS_OLD and PREFS_NEW") { $0.exec = $1 },
    ]

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        guard domain != .standardInput else { throw PrefsError.usage("watch: standard input cannot be watched; name a suite or a file") }
        var keys: [(name: String, path: PrefKeyPath)] = []
        for name in operands.dropFirst() where !keys.contains(where: { $0.name.utf8.elementsEqual(name.utf8) }) {
            keys.append((name, try PrefKeyPath(argument: name, in: domain.displayName)))
        }
        if values.exec != nil && values.json { throw PrefsError.usage("watch: --exec runs COMMAND instead of printing: --json and --compact do not go with it") }
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
        let deadline = values.timeout.map { Monotonic.now + $0 }
        let runner = values.exec.map { ChangeCommand(command: $0, suite: domain.displayName, report: { context.printError($0) }) }
        if let runner {
            try Signals.stopCommandsOnSignals(runner)
            try runner.start()
        } else {
            Signals.endWatchOnSignals()
        }
        defer { runner?.finish(until: deadline) }
        let print = { (changes: [WatchChange]) in
            if let runner { return runner.submit(changes) }
            context.writeOutput(Array(changes.map { (values.json ? WatchOutput.jsonLine($0, domain: domain) : WatchOutput.line($0)) + "\n" }.joined().utf8))
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
