import Glibc

/// How signals end prefs.
enum Signals {
    /// What SIGPIPE did when prefs started, for the programs `exec` runs.
    nonisolated(unsafe) static var inheritedPipeAction: __sighandler_t?

    /// A write to a closed pipe then fails with EPIPE, which ends prefs quietly (see CommandLineTool).
    static func ignorePipe() {
        inheritedPipeAction = signal(SIGPIPE, SIG_IGN)
    }

    /// SIGPIPE as it was when prefs started.
    static func restorePipe() {
        signal(SIGPIPE, inheritedPipeAction ?? SIG_DFL)
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
