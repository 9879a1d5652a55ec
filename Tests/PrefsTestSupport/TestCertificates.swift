import Foundation

/// Certificates for the TLS tests, made by `openssl` in a fresh directory by
/// Tests/Tools/make-certificates.sh (which says what each one is): a CA, a server certificate for
/// 127.0.0.1 and localhost signed by it, client certificates (CN root and alice), and faulty server
/// certificates (`file("NAME.pem")`: other-server from another CA, wrong-name, expired).
package final class TestCertificates: @unchecked Sendable {
    package let directory: TemporaryDirectory
    package static let opensslPath = "/usr/bin/openssl"

    package var ca: String { directory.file("ca.pem") }
    package var server: (certificate: String, key: String) { (directory.file("server.pem"), directory.file("server.key")) }
    package var otherCAServer: (certificate: String, key: String) { (directory.file("other-server.pem"), directory.file("other-server.key")) }
    package func client(_ name: String) -> (certificate: String, key: String) { (directory.file("client-\(name).pem"), directory.file("client-\(name).key")) }

    package init() throws {
        guard FileManager.default.isExecutableFile(atPath: TestCertificates.opensslPath) else {
            throw TestFailure("\(TestCertificates.opensslPath) not found: install openssl")
        }
        directory = try TemporaryDirectory(forTheProcess: true)
        let result = try runProcess("/bin/bash", [Fixtures.packageRoot + "/Tests/Tools/make-certificates.sh", TestCertificates.opensslPath],
                                    workingDirectory: directory.path)
        guard result.status == 0 else { throw TestFailure("making certificates failed: \(result.error)") }
    }

    /// The key algorithms make-certificates.sh makes a CA, a server and a client certificate for.
    package static let algorithms = ["ec", "rsa", "rsa-pss", "ed25519"]

    /// A CA of `algorithm` (`algorithms`) and the server and client (CN root) certificates it signs,
    /// each key in PKCS#8 and, where the algorithm has one, its traditional form (SEC1, PKCS#1):
    /// made by make-certificates.sh in the same directory.
    package func made(_ algorithm: String) throws -> Algorithm {
        let result = try runProcess("/bin/bash", [Fixtures.packageRoot + "/Tests/Tools/make-certificates.sh", TestCertificates.opensslPath, algorithm],
                                    workingDirectory: directory.path)
        guard result.status == 0 else { throw TestFailure("making \(algorithm) certificates failed: \(result.error)") }
        return Algorithm(directory: directory, name: algorithm)
    }

    package struct Algorithm: Sendable {
        let directory: TemporaryDirectory
        package let name: String
        package var ca: String { directory.file("ca-\(name).pem") }
        package var server: (certificate: String, key: String) { (directory.file("server-\(name).pem"), directory.file("server-\(name).key")) }
        package var client: String { directory.file("client-\(name).pem") }
        /// The client's key in each form it was written in: "pkcs8", and "traditional" where there is one.
        package var clientKeys: [(form: String, path: String)] {
            ["pkcs8", "traditional"].map { ($0, directory.file("client-\(name)-\($0).key")) }
                .filter { FileManager.default.fileExists(atPath: $0.1) }
        }
    }
}
