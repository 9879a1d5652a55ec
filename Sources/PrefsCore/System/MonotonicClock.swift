import Glibc

/// Seconds on CLOCK_MONOTONIC: what every deadline is measured in.
package enum MonotonicClock {
    package static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The milliseconds `poll` may wait before `deadline` (nil: forever, -1), rounded up so a wait
    /// never ends just short of it.
    static func pollTimeout(until deadline: Double?) -> Int32 {
        guard let deadline else { return -1 }
        let left = (deadline - now()) * 1000
        if left <= 0 { return 0 }
        return Int32(min(left.rounded(.up), Double(Int32.max)))
    }

    /// Sleeps until `deadline`, or until `descriptor` (when given) hangs up: true when it did.
    static func sleep(until deadline: Double, watching descriptor: Int32?) -> Bool {
        while true {
            let timeout = pollTimeout(until: deadline)
            guard timeout > 0 else { return false }
            var fds = [pollfd(fd: descriptor ?? -1, events: 0, revents: 0)]
            let ready = poll(&fds, 1, timeout)
            if ready > 0 && fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
    }

    /// `seconds` on CLOCK_MONOTONIC as a `timespec` (`pthread_cond_timedwait` on a monotonic condition).
    package static func absolute(_ seconds: Double) -> timespec {
        let whole = seconds.rounded(.down)
        return timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
    }
}
