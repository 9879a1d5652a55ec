import Glibc
import PrefsCore

/// What a command may use: the suite store (file system and environment) and standard output and
/// error as sinks, so tests can run commands in-process against an in-memory file system.
struct CommandContext: Sendable {
    var store: SuiteStore
    let writeOutput: @Sendable ([UInt8]) -> Void
    let writeError: @Sendable ([UInt8]) -> Void
    /// The descriptor standard output goes to, when it is a real one (so `watch` can tell when its
    /// reader goes away); nil when output is captured.
    var outputDescriptor: Int32? = nil
    /// The first failure writing standard output (its errno), if any: later output is dropped.
    var outputFailure: @Sendable () -> Int32? = { nil }
    /// Whether a command may replace this process with another program (`exec`): only when prefs
    /// runs as its own process, never in-process in tests.
    var mayReplaceProcess = false
    /// The store URL the command line gave (`--store`), handed on to a command `lock` runs.
    var storeURL: String? = nil

    var environment: Environment { store.environment }
    var fileSystem: any FileSystem { store.fileSystem }

    init(fileSystem: any FileSystem, environment: Environment, writeOutput: @escaping @Sendable ([UInt8]) -> Void,
         writeError: @escaping @Sendable ([UInt8]) -> Void) {
        store = SuiteStore(fileSystem: fileSystem, environment: environment)
        self.writeOutput = writeOutput
        self.writeError = writeError
    }

    /// This context on the store a command line chose (`--store`, `$PREFS_STORE`, else files).
    func selecting(store url: String?) throws -> CommandContext {
        var context = self
        context.store = try SuiteStore.selected(url: url, fileSystem: fileSystem, environment: environment)
        context.storeURL = url
        return context
    }

    func print(_ text: String) { writeOutput(Array((text + "\n").utf8)) }

    /// `prefs: <message>` on standard error.
    func printError(_ message: String) { writeError(Array(("prefs: " + message + "\n").utf8)) }

    /// `prefs: warning: <message>` on standard error.
    func printWarning(_ message: String) { writeError(Array(("prefs: warning: " + message + "\n").utf8)) }

    /// The suites, each skipped entry reported as a warning.
    func suiteNames() throws -> [String] {
        let listing = try store.suiteNames()
        for skipped in listing.skipped { printWarning(skipped.message) }
        return listing.names
    }

    /// What a change did: a dry run's report (`+ KEY = NEW`, `- KEY = OLD`, `~ KEY = OLD -> NEW`), or
    /// the new values of the counters it added to, one per line.
    func print(_ outcome: ChangeOutcome) {
        if let report = outcome.report {
            for change in report { print(ValueOutput.report(change)) }
            return
        }
        for sum in outcome.sums { print(ValueOutput.bare(sum) ?? "") }
    }

    /// What reading every suite passed over (warnings) and could not read (errors).
    func report(_ every: SuiteStore.EverySuite) {
        for skipped in every.skipped { printWarning(skipped.message) }
        for failure in every.failures { printError(failure.message) }
    }

    /// Keeps the store of the command a process of its own ran (`mayReplaceProcess`) until it
    /// exits, which comes next: letting it go would free what the exit frees anyway — an etcd
    /// client's connections and TLS sessions, about 0.1 M instructions of a one-key read over TLS.
    /// Nothing the store holds after its command has a release that does more than free memory or
    /// close a descriptor. (In a box of a class of its own, left retained: an optional context
    /// kept in a variable would set up that optional's type at run time, 9 K instructions of every
    /// file command.)
    static func keepUntilExit(_ context: CommandContext) {
        _ = Unmanaged.passRetained(KeptUntilExit(context))
    }

    private final class KeptUntilExit {
        let context: CommandContext
        init(_ context: CommandContext) { self.context = context }
    }

    static var standard: CommandContext {
        let output = StandardStream(descriptor: 1), error = StandardStream(descriptor: 2)
        var context = CommandContext(fileSystem: LocalFileSystem(), environment: .current, writeOutput: output.write,
                                     writeError: error.write)
        context.outputDescriptor = 1
        context.outputFailure = { output.failure }
        context.mayReplaceProcess = true
        return context
    }
}

/// Standard output or error: each write goes out whole, or the stream keeps the first failure and
/// drops what follows (a reader that went away, a full disk).
final class StandardStream: @unchecked Sendable {
    let descriptor: Int32
    private(set) var failure: Int32?

    init(descriptor: Int32) { self.descriptor = descriptor }

    func write(_ bytes: [UInt8]) {
        guard failure == nil else { return }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failure = n < 0 ? errno : EIO
                return
            }
            offset += n
        }
    }
}

/// Runs one command line: parse, dispatch, report an error as one line, return the exit status.
///
/// Standard output that cannot be written is an error of its own: a full disk (or any failure but
/// EPIPE) gets a message, and is 74 unless the command had already failed (or found nothing: 1, 4),
/// whose status is kept, the first failure; a reader that went away
/// (EPIPE: `prefs domains | head -1`) ends prefs quietly with the command's own status, as ripgrep
/// does (SIGPIPE is ignored so that a write reports it instead of killing the process).
package enum CommandLineTool {
    /// The raw arguments (argv after the program name), each checked to be UTF-8 first: two
    /// different byte strings must never become one name.
    static func run(raw arguments: [[UInt8]], context: CommandContext) -> ExitStatus {
        var decoded: [String] = []
        for (i, bytes) in arguments.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                context.printError("argument \(i + 1) is not valid UTF-8: \"\(ByteText.escaped(bytes))\"")
                return .usage
            }
            decoded.append(text)
        }
        return run(decoded, context: context)
    }

    static func run(_ arguments: [String], context: CommandContext) -> ExitStatus {
        var reported = false
        let status = dispatch(arguments, context: context, reported: &reported)
        guard let failure = context.outputFailure(), failure != EPIPE, !reported else { return status }
        context.printError(PrefsError.outputFailed(errno: failure).message)
        return status == .success || status == .changed ? .cannotRead : status
    }

    /// `reported`: whether the command's error was the failure of standard output, already printed.
    static func dispatch(_ arguments: [String], context: CommandContext, reported: inout Bool) -> ExitStatus {
        // The store the command line chose, once chosen: a failure's hint looks there.
        var selected = context
        do {
            let invocation = try Arguments.parse(arguments)
            switch invocation.action {
            case .help:
                context.writeOutput(Array(HelpText.overview().utf8))
                return .success
            case .usage:
                context.writeError(Array(HelpText.usage().utf8))
                return .usage
            case .version:
                context.print("prefs \(CommandTable.version)\nTLS for etcds:// stores: \(TLSLibrary.version)")
                return .success
            case .verb(let name):
                guard let verb = CommandTable.verb(named: name) else { throw PrefsError.internalError("verb \(name) vanished") }
                if invocation.wantsHelp {
                    context.writeOutput(Array(HelpText.verb(verb).utf8))
                    return .success
                }
                selected = try context.selecting(store: invocation.store)
                if let host = invocation.host { selected.store = try host.scope(selected.store) }
                defer { if context.mayReplaceProcess { CommandContext.keepUntilExit(selected) } }
                return try verb.run(invocation, selected)
            }
        } catch PrefsError.outputFailed(EPIPE) {
            return .success
        } catch let error as PrefsError {
            context.printError(error.message(hinting: selected))
            if case .outputFailed = error { reported = true }
            return error.exitStatus
        } catch {
            context.printError("internal error: \(error)")
            return .internalError
        }
    }
}
