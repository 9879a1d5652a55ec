import Glibc
import PrefsCore

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
        unblockStopSignals()
    }

    /// The write end of the pipe that SIGINT and SIGTERM are passed through (`stopCommandsOnSignals`).
    nonisolated(unsafe) private static var stopPipe: Int32 = -1

    /// `watch --exec`: SIGINT and SIGTERM are passed to a thread of their own, which stops `runner`
    /// (`ExecRunner.stopOnSignal`: the run in progress gets the signal, what waits is dropped and
    /// said) and ends prefs with 128 + the signal. Called before `runner` starts, so that its runs do
    /// not inherit the signals blocked.
    static func stopCommandsOnSignals(_ runner: ExecRunner) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw PrefsError.internalError("watch --exec: cannot make a pipe (\(PrefsError.describe(errno: errno)))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A handler never blocks on a full pipe: one byte in it is enough.
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        stopPipe = ends[1]
        stoppedRunner = runner
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            let reading = Int32(Int(bitPattern: context))
            var signal: UInt8 = 0
            while read(reading, &signal, 1) != 1 {}
            Signals.stoppedRunner?.stopOnSignal(Int32(signal))
            return nil
        }, UnsafeMutableRawPointer(bitPattern: Int(ends[0])))
        guard started == 0 else { throw PrefsError.internalError("watch --exec: cannot start a thread (\(PrefsError.describe(errno: started)))") }
        signal(SIGPIPE, SIG_IGN)
        // glibc's signal(): the handler stays, and interrupted calls restart.
        let pass: @convention(c) (Int32) -> Void = { signal in
            var byte = UInt8(signal)
            _ = write(Signals.stopPipe, &byte, 1)
        }
        signal(SIGINT, pass)
        signal(SIGTERM, pass)
        // SIGHUP too (the terminal went away: COMMAND, in a process group of its own, would not
        // hear of it), unless prefs was started with it ignored (nohup).
        let hangUp = signal(SIGHUP, pass)
        if let hangUp, unsafeBitCast(hangUp, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { signal(SIGHUP, SIG_IGN) }
        unblockStopSignals()
    }

    nonisolated(unsafe) private static var stoppedRunner: ExecRunner?

    /// A parent may have started us with SIGINT, SIGTERM and SIGHUP blocked (the mask is inherited).
    private static func unblockStopSignals() {
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGHUP)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
    }
}
