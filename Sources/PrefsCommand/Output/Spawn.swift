import Glibc

/// Starting a program and waiting for it.
enum Spawn {
    enum Outcome: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case failed(Int32)
    }

    struct Failure: Error {
        let code: Int32
    }

    /// The program `words[0]` (a path) with arguments, this environment plus `environment`, less the
    /// `clearing` names not given; SIGPIPE as prefs was started with it. Waits for it to end.
    static func run(_ words: [String], environment: [(String, String)], clearing: [String]) -> Outcome {
        switch start(words, environment: environment, clearing: clearing, ownGroup: false) {
        case .failure(let failure): return .failed(failure.code)
        case .success(let pid):
            awaitEnd(pid)
            return collect(pid)
        }
    }

    /// This process's environment plus `environment`, less the `clearing` names not given, as
    /// `NAME=VALUE` entries.
    static func entries(adding environment: [(String, String)], clearing: [String]) -> [String] {
        let given = Set(environment.map(\.0))
        var entries: [String] = []
        var i = 0
        while let entry = environ[i] {
            let text = String(cString: entry)
            let name = String(text.prefix { $0 != "=" })
            if !given.contains(name) && !clearing.contains(name) { entries.append(text) }
            i += 1
        }
        return entries + environment.map { "\($0.0)=\($0.1)" }
    }

    /// Starts the program as `run` does, without waiting (the one at `path`, when given, with
    /// `words` as its arguments); with `ownGroup`, as the leader of a new process group, so that a
    /// signal sent to the group reaches everything it starts.
    static func start(_ words: [String], path: String? = nil, environment: [(String, String)], clearing: [String],
                      ownGroup: Bool) -> Result<pid_t, Failure> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags: Int32 = 0
        if !Signals.pipeWasIgnored {
            var defaults = sigset_t()
            sigemptyset(&defaults)
            sigaddset(&defaults, SIGPIPE)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            flags |= Int32(POSIX_SPAWN_SETSIGDEF)
        }
        if ownGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = entries(adding: environment, clearing: clearing).map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let started = posix_spawn(&pid, path ?? words[0], nil, &attributes, &argv, &envp)
        return started == 0 ? .success(pid) : .failure(Failure(code: started))
    }

    /// Waits until the child `pid` has ended, without collecting it: until `collect`, its ID (and
    /// its process group's, when it leads one) cannot be reused.
    static func awaitEnd(_ pid: pid_t) {
        var information = siginfo_t()
        while waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
    }

    /// Collects the ended child `pid`: how it ended.
    static func collect(_ pid: pid_t) -> Outcome {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .failed(errno) }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }
}
