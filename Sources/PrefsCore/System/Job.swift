import CPrefsSystem
import Glibc

/// A command started as a job (`prefs lock`): the leader of a process group of its own, in the
/// terminal's foreground while it runs when prefs was (`prefs_start_job`, job.c).
package enum Job {
    /// Starts `words` (found on `$PATH`) with the `NAME=VALUE` `environment`; SIGPIPE default when
    /// `pipeDefault`, else ignored; the signal mask this thread's, as `exec` leaves it. When standard input is a terminal whose
    /// foreground group is prefs's, the job's group takes the foreground (`handBack` gives it back).
    /// The errno of a start that failed (ENOENT: not found).
    package static func start(_ words: [String], environment: [String], pipeDefault: Bool) -> Result<pid_t, Errno> {
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        let terminal: Int32 = isatty(0) == 1 && tcgetpgrp(0) == getpgrp() ? 0 : -1
        var mask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &mask)
        var error: Int32 = 0
        let pid = prefs_start_job(&argv, &envp, terminal, &mask, pipeDefault ? 1 : 0, &error)
        guard pid > 0 else { return .failure(Errno(code: error)) }
        if terminal >= 0 { withTTOUBlocked { _ = tcsetpgrp(terminal, pid) } }
        return .success(pid)
    }

    package struct Errno: Error, Sendable {
        package let code: Int32
    }

    /// Gives the terminal's foreground back to prefs's group, when the job `pid` holds it (a
    /// terminal another job holds is left alone).
    package static func handBack(from pid: pid_t) {
        guard isatty(0) == 1, tcgetpgrp(0) == pid else { return }
        withTTOUBlocked { _ = tcsetpgrp(0, getpgrp()) }
    }

    /// A process outside the foreground that changes it gets SIGTTOU unless it blocks it.
    private static func withTTOUBlocked(_ body: () -> Void) {
        var ttou = sigset_t(), old = sigset_t()
        sigemptyset(&ttou)
        sigaddset(&ttou, SIGTTOU)
        pthread_sigmask(SIG_BLOCK, &ttou, &old)
        body()
        pthread_sigmask(SIG_SETMASK, &old, nil)
    }
}
