import Foundation
import Testing
@testable import PrefsCore

/// TLS faults that are not a certificate refused, with the built `prefs`: a member that closes the
/// connection in the handshake (as one shutting down does) is left for the next endpoint, never 77;
/// `etcd://` pointed at a TLS port says to use `etcds://`; TLS files that are not regular files (a
/// FIFO with no writer would hang the command) or hold an encrypted key are refused naming them.
@Suite(.serialized, .runsProcesses) struct EtcdTLSFaultTests {
    /// A loopback port that accepts connections, reads the ClientHello whole, and closes the
    /// connection without a word: a member going away in the handshake.
    final class HandshakeCutter: @unchecked Sendable {
        let fd: Int32
        let port: UInt16

        init() throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = EtcdCluster.loopback(port: 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let fd = fd
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard bound, listen(fd, 16) == 0 else { throw TestFailure("cannot listen: errno \(errno)") }
            port = UInt16(bigEndian: address.sin_port)
            Thread.detachNewThread { HandshakeCutter.serve(fd) }
        }

        /// Until the listening socket is shut down: each connection's first TLS record is read (its
        /// 5-byte header says how long it is), then the connection is closed.
        static func serve(_ listener: Int32) {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                var header = [UInt8](repeating: 0, count: 5)
                if readFully(connection, &header) {
                    var record = [UInt8](repeating: 0, count: Int(header[3]) << 8 | Int(header[4]))
                    _ = readFully(connection, &record)
                }
                close(connection)
            }
        }

        static func readFully(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
            var done = 0
            while done < buffer.count {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + done, $0.count - done, 0) }
                if n <= 0 { return false }
                done += n
            }
            return true
        }

        deinit {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    @Test func aMemberClosingInTheHandshakeIsLeftForTheNextEndpoint() async throws {
        let cluster = try await EtcdTLSTests.cluster.get()
        let cutter = try HandshakeCutter()
        let prefix = "cut" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let fleet = try EtcdTLSTests.TLSSandbox { _ in "etcds://127.0.0.1:\(cutter.port),\(cluster.clientEndpoints[0])/" + prefix }
        let write = try await fleet.prefs("write", "app", "k", "v")
        #expect(write.status == 0, "\(write.status) \(write.error)")
        let read = try await fleet.prefs("read", "app", "k")
        #expect(read.status == 0 && read.outputText == "v\n", "\(read.status) \(read.error)")
        // Alone, it is unavailable (69), not a certificate refused (77).
        let alone = try await EtcdTLSTests.TLSSandbox { _ in "etcds://127.0.0.1:\(cutter.port)/" + prefix }.prefs("read", "app", "k")
        #expect(alone.status == 69 && alone.error.contains("closed the connection in the handshake") && alone.error.split(separator: "\n").count == 1,
                "\(alone.status) \(alone.error)")
    }

    /// etcd's TLS port closes a plain-text request's connection without a word (etcd 3.4); a TLS
    /// ClientHello on another connection shows it speaks TLS.
    @Test func etcdPointedAtATLSClusterSaysToUseEtcds() async throws {
        let cluster = try await EtcdTLSTests.cluster.get()
        let fleet = try EtcdTLSTests.TLSSandbox { "etcd://" + cluster.clientEndpoints.joined(separator: ",") + "/" + $0 }
        // A timeout the command must not wait for.
        let plain = ["PREFS_ETCD_TIMEOUT": "60"]
        for run in [try await fleet.prefs("read", "app", "k", environment: plain), try await fleet.prefs("write", "app", "k", "v", environment: plain)] {
            #expect(run.status == 69 && run.error.contains("the server speaks TLS: use etcds://") && run.error.split(separator: "\n").count == 1,
                    "\(run.status) \(run.error)")
        }
    }

    @Test(arguments: ["PREFS_ETCD_CACERT", "PREFS_ETCD_CERT", "PREFS_ETCD_KEY"])
    func aFIFOAsATLSFileIsRefusedAtOnce(_ variable: String) async throws {
        let fleet = try EtcdTLSTests.TLSSandbox(url: try await EtcdTLSTests.cluster.get().url)
        let fifo = fleet.sandbox.directory.file("fifo.pem")
        #expect(mkfifo(fifo, 0o600) == 0)
        var environment = fleet.credentials
        environment[variable] = fifo
        // No writer ever opens the FIFO: reading it would wait for one for ever (runProcess kills a
        // command after two minutes, and the test then fails).
        let run = try await fleet.prefs("read", "app", "k", environment: environment)
        #expect(run.status == 65 && run.error == "prefs: \(variable) \(fifo): not a regular file (a FIFO, a device or a socket); give a PEM file\n",
                "\(run.status) \(run.error)")
    }

    @Test(arguments: [["-aes256"], ["-aes256", "-traditional"]])
    func anEncryptedKeyIsNamedSo(_ options: [String]) async throws {
        let fleet = try EtcdTLSTests.TLSSandbox(url: try await EtcdTLSTests.cluster.get().url)
        let encrypted = fleet.sandbox.directory.file("encrypted.key")
        let made = try await runProcess(TestCertificates.opensslPath, ["pkey", "-in", fleet.certificates.client("root").key, "-out", encrypted,
                                                                        "-passout", "pass:secret"] + options)
        try #require(made.status == 0, "\(made.error)")
        var environment = fleet.credentials
        environment["PREFS_ETCD_KEY"] = encrypted
        let run = try await fleet.prefs("read", "app", "k", environment: environment)
        #expect(run.status == 65 && run.error.hasPrefix("prefs: PREFS_ETCD_KEY \(encrypted): the private key is encrypted; prefs takes an unencrypted key")
                && run.error.split(separator: "\n").count == 1, "\(run.status) \(run.error)")
    }

    /// A regular file over the limit is still refused before it is held whole (a sparse one here).
    @Test func aTLSFileOverTheLimitIsRefused() async throws {
        let fleet = try EtcdTLSTests.TLSSandbox(url: try await EtcdTLSTests.cluster.get().url)
        let large = try fleet.sandbox.directory.write("large.pem", [])
        #expect(truncate(large, off_t(Environment.pemFileLimit + 1)) == 0)
        let run = try await fleet.prefs("read", "app", "k", environment: fleet.credentials.merging(["PREFS_ETCD_CACERT": large]) { $1 })
        #expect(run.status == 65 && run.error == "prefs: \(large): larger than 4194304 bytes; not a PEM file\n", "\(run.status) \(run.error)")
    }
}
