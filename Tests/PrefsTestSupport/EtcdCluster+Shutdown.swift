import Foundation

extension EtcdCluster {
    /// Stops a member as an operator or a service manager does, with SIGTERM: etcd hands its
    /// leadership over if it has it, answers what is in flight with errors (HTTP 408, 503) and
    /// closes its connections. Returns once its process has exited (at most `timeout` seconds).
    package func terminate(member index: Int, timeout: Double = 120) throws {
        let pid = try pid(member: index)
        guard Foundation.kill(pid, SIGTERM) == 0 else { throw TestFailure("kill \(pid) SIGTERM: errno \(errno)") }
        let deadline = Date().addingTimeInterval(timeout)
        while !EtcdCluster.hasExited(pid) {
            if Date() >= deadline { throw TestFailure("member \(index) did not exit within \(timeout) s of SIGTERM; its log: \(log(member: index))") }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// A member stopped with SIGTERM (`terminate`) and started again on its data directory and
    /// ports, once it answers: one step of a rolling restart.
    package func restartGracefully(member index: Int) async throws {
        try await onOwnThread {
            try self.terminate(member: index)
            try self.restart(member: index)
        }
    }

    /// Whether the process has exited: gone, or a zombie its parent (the member's guardian, which
    /// reaps it when stopped) has not waited for yet.
    static func hasExited(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
        let state = stat[stat.index(after: close)...].split(separator: " ").first ?? ""
        return state == "Z" || state == "X"
    }
}
