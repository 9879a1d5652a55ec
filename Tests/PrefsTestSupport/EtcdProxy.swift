import Foundation

/// An HTTP proxy in front of one etcd member (Tests/Tools/etcd-proxy.py, run by python3) that
/// misbehaves on purpose: `drop-commit` forwards a conditional write transaction and then closes
/// the client's connection without its answer (`drops` times), so the client sends it again to the
/// next endpoint after it committed; `slow-commit` answers one after `sleep` seconds; `norange` never
/// answers a range request (the suites still read, their external values do not); `hollow`,
/// `foreignkey` and `status` give answers etcd never gives (see the script; `environment` sets
/// FOREIGN, STATUS, BODY, LOCATION). It listens on
/// a free loopback port of its own and exits when this process closes its standard input (deinit,
/// or this process ending in any way).
package final class EtcdProxy: @unchecked Sendable {
    package let endpoint: String
    private let process = Process()
    private let input = Pipe()

    package init(upstream: String, mode: String, drops: Int = 1, sleep: Double = 4, environment: [String: String] = [:]) throws {
        let script = Fixtures.packageRoot + "/Tests/Tools/etcd-proxy.py"
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw TestFailure("/usr/bin/python3 not found (Debian: python3)") }
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, "0", upstream, mode]
        process.environment = ["DROPS": String(drops), "SLEEP": String(sleep), "PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is the port it listens on.
        var line = Data()
        while !line.contains(0x0A) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw TestFailure("etcd-proxy.py ended before it listened") }
            line += more
        }
        guard let port = UInt16(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("etcd-proxy.py: \(String(decoding: line, as: UTF8.self))")
        }
        endpoint = "127.0.0.1:\(port)"
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }
}
