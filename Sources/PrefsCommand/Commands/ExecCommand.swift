import Glibc
import PrefsCore

/// `prefs exec DOMAIN [DOMAIN…] -- COMMAND [ARG…]` — runs COMMAND with each suite's values (what an
/// application sees) added to its environment, one variable per key as `export --format sh` names
/// and writes them; a later DOMAIN wins on a name. Only the named suites' keys: a key whose value
/// comes from the global suite is left out (`-g` names the global suite as a DOMAIN), and so is a
/// key from another layer (managed values, defaults) that cannot be a name, counted on standard
/// error; a key stored in a suite itself must be a variable name (65, naming it). A name that
/// changes how a program or a shell runs (`EnvironmentPolicy`: `LD_PRELOAD`, `BASH_ENV`, `PATH`…)
/// and a value too large for an environment are refused (65). `--keys` takes only those top-level
/// keys, from whichever DOMAIN or layer has them, each a name, none denied. prefs is replaced by
/// COMMAND (execvp, found on `$PATH` as the new environment has it), so its exit status and signals
/// are COMMAND's own. Everything is read and checked before anything runs; COMMAND not found is
/// 127, found but not runnable 126, as env(1) exits. On etcd, `--max-stale` and `--fallback-cache`
/// may answer from this host's snapshot of each suite.
enum ExecCommand: Command {
    struct Values: CommandValues, SnapshotOptions {
        var keys: [String] = []
        var maxStale: Double?
        var fallbackCache = false
    }

    static let verb = Verb(name: "exec", operands: "DOMAIN [DOMAIN...] -- COMMAND [ARG...]",
                           summary: "run COMMAND with the suites' values in its environment (a later DOMAIN wins)",
                           operandCount: 3...Int.max, details: HelpText.execDetails, runsCommand: true)

    static let operandKinds: [WordKind] = [.domain]

    static let options: [Option<Values>] = [
        .list("keys", "LIST", "only these top-level keys, from whichever DOMAIN or layer has them, the global suite's and deny-listed names too (comma-separated; repeatable)", completing: .keyList(operand: 0)) { $0.keys = $1 },
        .maxStale, .fallbackCache,
    ]

    /// One DOMAIN or more, `--`, and a COMMAND.
    static func validate(_ values: Values, _ operands: [String]) throws {
        guard let dashes = operands.firstIndex(of: "--"), dashes > 0, dashes < operands.count - 1 else {
            let missing = !operands.contains("--") ? "no -- before the COMMAND" : operands.first == "--" ? "no DOMAIN given" : "no COMMAND given"
            throw PrefsError.usage("exec: \(missing) (usage: prefs exec DOMAIN [DOMAIN...] -- COMMAND [ARG...])")
        }
    }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        guard let dashes = operands.firstIndex(of: "--") else { throw PrefsError.internalError("exec ran without --") }
        let domains = operands[..<dashes].joined(separator: ", ")
        let variables = try environment(of: operands[..<dashes], keys: values.keys, policy: try values.snapshotPolicy(context.environment), context)
        let command = Array(operands[(dashes + 1)...])
        let inherited = Spawn.entries(adding: [], clearing: variables.map(\.name))
        try EnvironmentPolicy.checkTotal(variables, others: (inherited + command).reduce(0) { $0 + EnvironmentPolicy.cost($1) }, domain: domains)
        guard context.mayReplaceProcess else { throw PrefsError.internalError("exec runs only as a process of its own") }
        let failure = ProcessImage.replace(with: command, adding: variables.map { ($0.name, $0.value) })
        let reason = switch failure {
        case ENOENT: "command not found"
        case E2BIG: "cannot run: \(PrefsError.describe(errno: failure)) (with the environment from \(domains))"
        default: "cannot run: " + PrefsError.describe(errno: failure)
        }
        context.printError("exec: \(command[0]): \(reason)")
        return failure == ENOENT ? .commandNotFound : .cannotExecute
    }

    /// The variables of the suites, in order, a later suite's value replacing an earlier one's; the
    /// keys left out said on standard error.
    static func environment(of arguments: ArraySlice<String>, keys: [String], policy: SnapshotPolicy,
                            _ context: CommandContext) throws -> [EnvironmentOutput.Variable] {
        let wanted = keys.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        var variables: [String: String] = [:]
        var order: [String] = [], leftOut: [(OtherLayerKeys, String)] = []
        let domains = try arguments.map { try Domain(argument: $0) }
        // The global suite is read when it is asked for: named as a DOMAIN (then every suite is
        // what an application sees), or for the keys --keys names.
        let globalSuite = !wanted.isEmpty || domains.contains(.global)
        for domain in domains {
            guard domain != .standardInput else { throw PrefsError.usage("exec: name a suite or a file, not standard input") }
            let others = OtherLayerKeys(named: !wanted.isEmpty, domain: domain)
            var value = try SnapshotOutput.reading(domain, policy, context) {
                try $0.exportedValue(of: domain, effective: true, defaults: [], keys: nil, globalSuite: globalSuite, keeping: others.keeps)
            }
            leftOut.append((others, domain.displayName))
            if !wanted.isEmpty, case .dictionary(let dictionary) = value {
                value = .dictionary(PrefDictionary(dictionary.filter { wanted.contains($0.key) }.map { ($0.key, $0.value) }))
            }
            for variable in try EnvironmentOutput.variables(value, domain: domain.displayName, named: !wanted.isEmpty) {
                if variables.updateValue(variable.value, forKey: variable.name) == nil { order.append(variable.name) }
            }
        }
        if let missing = wanted.first(where: { variables[$0] == nil }) {
            throw PrefsError.keyNotFound(domain: arguments.joined(separator: ", "), key: missing)
        }
        for (others, domain) in leftOut { others.report("exec", domain: domain, context) }
        return order.map { EnvironmentOutput.Variable(name: $0, value: variables[$0] ?? "") }
    }
}

/// Replacing prefs with another program.
enum ProcessImage {
    /// Sets the variables, gives SIGPIPE back the action prefs was started with (prefs ignores it,
    /// and an ignored signal stays ignored across exec: COMMAND's pipelines must end as usual), and
    /// execs `command` found on `$PATH`. Returns only on failure: its errno.
    static func replace(with command: [String], adding variables: [(String, String)]) -> Int32 {
        for (name, value) in variables where setenv(name, value, 1) != 0 { return errno }
        Signals.restorePipe()
        var arguments = command.map { strdup($0) }
        arguments.append(nil)
        execvp(command[0], &arguments)
        let failure = errno
        for argument in arguments { free(argument) }
        return failure
    }
}
