import Foundation
import Glibc

/// `openssl s_server` with one certificate on a free loopback port, answering `GET /` with a page
/// (`-www`), until the value goes away.
package final class TLSServer {
    let process = Process()
    package let port: UInt16

    /// `options`: more of s_server's, such as `-tls1_2` for a server that speaks only TLS 1.2.
    package init(certificate: String, key: String, options: [String] = []) async throws {
        port = try EtcdCluster.freePorts(1)[0]
        process.executableURL = URL(fileURLWithPath: TestCertificates.opensslPath)
        process.arguments = ["s_server", "-accept", "\(port)", "-cert", certificate, "-key", key, "-www", "-quiet"] + options
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready once it accepts a connection.
        let (process, port) = (process, port)
        guard await eventually(timeout: 30, interval: 0.02, { TLSServer.accepts(port) || !process.isRunning }), process.isRunning else {
            throw TestFailure("openssl s_server did not start on port \(port)")
        }
    }

    deinit {
        // SIGKILL: s_server does not always end on SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    package static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
