import Foundation
import Testing
@testable import PrefsCore

/// `etcds://` with the certificates and keys `openssl` makes for each key algorithm — ECDSA P-256,
/// RSA 2048, RSA keys whose certificates are signed with RSASSA-PSS, Ed25519 — each on a real member
/// of its own that requires client certificates (its server certificate of the same algorithm),
/// the client's key in every form OpenSSL writes it: PKCS#8 (`genpkey`, `req -nodes`), SEC1 for EC
/// and PKCS#1 for RSA. Every one reads and writes (0); the same files with another CA are refused (77).
@Suite(.serialized, .runsProcesses) struct EtcdTLSKeyTests {
    static let certificates = Result { try TestCertificates() }

    @Test(arguments: TestCertificates.algorithms)
    func everyKeyFormReadsAndWrites(algorithm: String) async throws {
        let certificates = try Self.certificates.get()
        let made = try certificates.made(algorithm)
        let cluster = try await EtcdCluster.start(members: 1, tls: EtcdCluster.TLS(
            certificate: made.server.certificate, key: made.server.key, ca: made.ca, client: (made.client, made.clientKeys[0].path),
            clientCertAuth: true))
        let sandbox = try ProcessSandbox()
        #expect(made.clientKeys.count == (["ec", "rsa", "rsa-pss"].contains(algorithm) ? 2 : 1))
        for (form, key) in made.clientKeys {
            let header = try String(contentsOfFile: key, encoding: .utf8).prefix { $0 != "\n" }
            #expect(header == (form == "pkcs8" ? "-----BEGIN PRIVATE KEY-----" : algorithm == "ec" ? "-----BEGIN EC PRIVATE KEY-----"
                                                                                               : "-----BEGIN RSA PRIVATE KEY-----"))
            var environment = sandbox.environment.merging(["PREFS_STORE": cluster.url(prefix: "keys"), "PREFS_ETCD_TIMEOUT": "10",
                                                           "PREFS_ETCD_CACERT": made.ca, "PREFS_ETCD_CERT": made.client, "PREFS_ETCD_KEY": key]) { $1 }
            let written = try await runProcess(Paths.binary, ["write", "app", form, "-string", algorithm], environment: environment)
            #expect(written.status == 0, "\(algorithm) \(form): \(written.error)")
            let read = try await runProcess(Paths.binary, ["read", "app", form], environment: environment)
            #expect(read.status == 0 && read.outputText == algorithm + "\n", "\(algorithm) \(form): \(read.error)")
            environment["PREFS_ETCD_CACERT"] = certificates.ca
            let refused = try await runProcess(Paths.binary, ["read", "app", form], environment: environment)
            #expect(refused.status == 77, "\(algorithm) \(form): \(refused.error)")
            #expect(refused.error.contains("the server's certificate was refused"), "\(refused.error)")
        }
        #expect(try await cluster.etcdctl("get", "--prefix", "--keys-only", "keys/app/").split(separator: "\n").count == made.clientKeys.count)
    }
}
