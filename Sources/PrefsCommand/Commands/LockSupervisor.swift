import Glibc
import PrefsCore

/// What `prefs lock` does while COMMAND runs: passes SIGINT, SIGTERM, SIGHUP and SIGQUIT to its
/// process group (through a pipe that the handlers write the signal's number to), and watches the
/// lock — once the store may not have it any more (`LockHandle.loss`: no keep-alive succeeded for
/// 2/3 of the TTL), COMMAND's group gets SIGTERM, then SIGKILL when the TTL is up, so it is stopped
/// before the store can give the lock to another. It sleeps in poll until a signal (SIGCHLD too)
/// or the lock's next deadline.
final class LockSupervisor {
    enum End {
        /// COMMAND ended on its own: its status as a shell reports it (128 + N for signal N).
        case ended(Int32)
        /// The lock was lost after `silent` seconds without a keep-alive; COMMAND was stopped.
        case lost(silent: Double)
    }

    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    private let readEnd: Int32

    /// The signals passed on; one prefs was started with ignored (nohup) stays ignored, for COMMAND too.
    static let passed = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw PrefsError.internalError("lock: cannot make a pipe (\(PrefsError.describe(errno: errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        readEnd = ends[0]
        LockSupervisor.writeEnd = ends[1]
        let pass: @convention(c) (Int32) -> Void = { signal in
            var byte = UInt8(signal)
            let saved = errno
            _ = write(LockSupervisor.writeEnd, &byte, 1)
            errno = saved
        }
        for signal in LockSupervisor.passed + [SIGCHLD] {
            let previous = Glibc.signal(signal, pass)
            if signal != SIGCHLD, let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                _ = Glibc.signal(signal, SIG_IGN)
            }
        }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in LockSupervisor.passed + [SIGCHLD] { sigaddset(&unblocked, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// Runs until the job `pid` (a process group's leader) ends; collects it.
    func supervise(_ pid: pid_t, _ handle: any LockHandle) -> End {
        var lost: Double?
        var killAt: Double?
        while true {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                if lost != nil { kill(-pid, SIGKILL) }  // what COMMAND left running goes too
                return lost.map { .lost(silent: $0) } ?? .ended(status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + status & 0x7F)
            }
            let now = MonotonicClock.now()
            if lost == nil, let loss = handle.loss() {
                lost = loss.silent
                killAt = now + max(0, loss.remaining)
                kill(-pid, SIGTERM)
            }
            if let at = killAt, now >= at {
                kill(-pid, SIGKILL)
                killAt = nil
            }
            let wake = lost == nil ? handle.nextCheck() : killAt
            var watched = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&watched, 1, wake.map { Int32(min(max(0, ($0 - now) * 1000).rounded(.up), 86_400_000)) } ?? -1)
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) == 1 {
                if Int32(byte) != SIGCHLD { kill(-pid, Int32(byte)) }
            }
        }
    }
}
