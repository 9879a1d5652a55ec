import Glibc
import PrefsCore

/// `prefs watch DOMAIN [KEY…] [--json] [--initial] [--once] [--timeout SECONDS]` — prints one line per
/// change of a watched key's value as an application sees it (any layer), whoever made it:
/// `KEY OLD -> NEW` in `read`'s bare forms, or a JSON object per line. Ends with 0 on SIGINT or
/// SIGTERM or when standard output's reader goes away; `--once` after the first change, and with
/// `--timeout` 1 when none came in time.
enum WatchCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        guard domain != .standardInput else { throw PrefsError.usage("watch: standard input cannot be watched; name a suite or a file") }
        var keys: [(name: String, path: KeyPath)] = []
        for name in invocation.operands.dropFirst() where !keys.contains(where: { $0.name.utf8.elementsEqual(name.utf8) }) {
            keys.append((name, try KeyArguments.path(name, in: domain)))
        }
        var timeout: Double?
        if let text = invocation.value("timeout") {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw PrefsError.usage("watch: --timeout takes a number of seconds, not '\(text)'")
            }
            timeout = seconds
        }
        let once = invocation.has("once"), json = invocation.has("json")
        let watcher = try SuiteWatcher(try Layers(domain, in: context.store), keys: keys.isEmpty ? nil : keys)
        // A closed pipe is noticed by poll (or a failed write), not by dying of SIGPIPE; an interrupt
        // ends the watch cleanly (every line is written whole by one write).
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
        // A parent may have started us with them blocked (the mask is inherited).
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
        let print = { (changes: [WatchChange]) in
            context.writeOutput(Array(changes.map { (json ? jsonLine($0, domain: domain) : line($0)) + "\n" }.joined().utf8))
        }
        let stop = try watcher.run(
            timeout: timeout, closedWhen: context.outputDescriptor,
            initial: { changes in
                if invocation.has("initial") { print(changes) }
                return true
            },
            onChanges: { changes in
                print(changes)
                return !once
            },
            onError: { context.printError($0.message) })
        return stop == .timedOut && once ? .notFound : .success
    }

    /// `KEY OLD -> NEW`: scalars bare as `read` prints them, containers on one line, `(absent)` for
    /// a key that had no value and `(removed)` for one that has none now. A key or string holding a
    /// line break or another control character is quoted, so a change is always one line.
    static func line(_ change: WatchChange) -> String {
        func oneLine(_ text: String) -> String {
            text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? ValueOutput.quotedIfNeeded(text) : text
        }
        func text(_ value: PrefValue?, missing: String) -> String {
            guard let value else { return missing }
            if case .string(let string) = value { return oneLine(string) }
            return ValueOutput.bare(value) ?? ValueOutput.line(value)
        }
        return "\(oneLine(change.key)) \(text(change.old, missing: "(absent)")) -> \(text(change.new, missing: "(removed)"))"
    }

    /// `{"suite":…,"key":…,"old":…,"new":…}` on one line; null for no value.
    static func jsonLine(_ change: WatchChange, domain: Domain) -> String {
        func json(_ value: PrefValue?) -> String {
            guard let value else { return "null" }
            // A real JSON cannot spell (NaN, infinity) is given as its text.
            let bytes = (try? JSONTextEncoder.encode(value, pretty: false)) ?? (try? JSONTextEncoder.encode(.string(ValueOutput.line(value)), pretty: false))
            return String(decoding: bytes ?? Array("null".utf8), as: UTF8.self)
        }
        return "{\"suite\":\(json(.string(domain.displayName))),\"key\":\(json(.string(change.key))),\"old\":\(json(change.old)),\"new\":\(json(change.new))}"
    }
}
