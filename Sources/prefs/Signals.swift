import Glibc

/// How signals end prefs.
enum Signals {
    /// Whether SIGPIPE was ignored when prefs started (else it had its default action: handlers do
    /// not survive exec), for the programs `exec` and `watch --exec` run.
    nonisolated(unsafe) static var pipeWasIgnored = false

    /// A write to a closed pipe then fails with EPIPE, which ends prefs quietly (see CommandLineTool).
    static func ignorePipe() {
        let previous = signal(SIGPIPE, SIG_IGN)
        pipeWasIgnored = previous.map { unsafeBitCast($0, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) } ?? false
    }

    /// SIGPIPE as it was when prefs started.
    static func restorePipe() {
        signal(SIGPIPE, pipeWasIgnored ? SIG_IGN : SIG_DFL)
    }

    /// A closed pipe is noticed by poll (or a failed write), not by dying of SIGPIPE; an interrupt ends
    /// the watch cleanly (every line is written whole by one write).
    static func endWatchOnSignals() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
        // A parent may have started us with them blocked (the mask is inherited).
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
    }
}
