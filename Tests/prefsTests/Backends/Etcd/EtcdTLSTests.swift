import Foundation
import Testing
@testable import PrefsCore

/// `etcds://`: the verbs over TLS against a real 3-member etcd whose client URLs are https and that
/// requires client certificates, with certificates `openssl` makes for the test; and every
/// certificate fault — unknown CA, another name, expired, no client certificate — as one line naming
/// the endpoint and exit 77, with nothing written; a plain-text server is 69 (it cannot serve TLS). Faulty server certificates are
/// served by `openssl s_server` (the client fails in the handshake, before any request).
@Suite(.runsProcesses) struct EtcdTLSTests {
    static let certificates = Result { try TestCertificates() }
    static let cluster = SharedCluster { try EtcdCluster(members: 3, tls: EtcdCluster.TLS(try certificates.get()), extraArguments: EtcdCluster.sharedTiming) }

    /// A `ProcessSandbox` whose processes reach `url` (`etcds://`, a prefix of their own) with the
    /// test CA's certificates, unless a test gives others.
    struct TLSSandbox {
        let sandbox: ProcessSandbox
        let url: String
        let prefix = "tls" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        var certificates: TestCertificates

        init(url: (String) -> String) throws {
            sandbox = try ProcessSandbox()
            certificates = try EtcdTLSTests.certificates.get()
            self.url = url(prefix)
        }

        /// CA, client certificate and key as etcdctl's --cacert, --cert and --key take them.
        var credentials: [String: String] {
            let client = certificates.client("root")
            return ["PREFS_ETCD_CACERT": certificates.ca, "PREFS_ETCD_CERT": client.certificate, "PREFS_ETCD_KEY": client.key]
        }

        @discardableResult
        func prefs(_ arguments: String..., environment extra: [String: String]? = nil) async throws -> ProcessResult {
            let environment = sandbox.environment.merging(["PREFS_STORE": url, "PREFS_ETCD_TIMEOUT": "5"]) { $1 }
                .merging(extra ?? credentials) { $1 }
            return try await runProcess(Paths.binary, arguments, environment: environment)
        }
    }

    @Test func theVerbsWorkOverMutualTLS() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try TLSSandbox(url: cluster.url)
        #expect(fleet.url.hasPrefix("etcds://127.0.0.1:"))
        let written = try await fleet.prefs("write", "app", "n", "-int", "1", "s", "hello")
        #expect(written.status == 0, "\(written.error)")
        #expect(try await fleet.prefs("write", "app", "n", "-int-add", "41").outputText == "42\n")
        #expect(try await fleet.prefs("read", "app", "s").outputText == "hello\n")
        let blob = try fleet.sandbox.directory.write("blob", (0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        #expect(try await fleet.prefs("write", "app", "big", "-data", "@" + blob).status == 0, "a value kept in chunks")
        #expect(try await fleet.prefs("read-type", "app", "big").outputText == "data\n")
        #expect(try await fleet.prefs("check", "app").status == 0)
        #expect(try await fleet.prefs("domains").outputText == "app\n")
        // etcdctl, with the same files, reads what prefs wrote.
        #expect(try await cluster.etcdctl("get", "--print-value-only", fleet.prefix + "/app/n").utf8.count > 8)
        #expect(try await fleet.prefs("delete", "app", "s").status == 0)
        #expect(try await fleet.prefs("read", "app", "s").status == 1)
    }

    @Test func aWatchOverTLSPrintsEachChange() async throws {
        let fleet = try TLSSandbox(url: try await Self.cluster.get().url)
        #expect(try await fleet.prefs("write", "w", "n", "-int", "0").status == 0)
        let watch = try WatchProcess(fleet.sandbox, ["w", "n", "--initial"], environment: ["PREFS_STORE": fleet.url].merging(fleet.credentials) { $1 })
        defer { watch.process.terminate() }
        try #require(await watch.nextLine(timeout: 30) == "n (absent) -> 0")
        #expect(try await fleet.prefs("write", "w", "n", "-int", "1").status == 0)
        #expect(await watch.nextLine(timeout: 30) == "n 0 -> 1")
    }

    @Test func withoutAClientCertificateTheClusterRefusesAndNothingIsWritten() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try TLSSandbox(url: cluster.url)
        let run = try await fleet.prefs("write", "app", "k", "v", environment: ["PREFS_ETCD_CACERT": fleet.certificates.ca])
        #expect(run.status == 77)
        #expect(run.error.hasPrefix("prefs: 127.0.0.1:") && run.error.contains("TLS: ") && run.error.contains("PREFS_ETCD_CERT"), "\(run.error)")
        #expect(run.error.split(separator: "\n").count == 1)
        // A client certificate from another CA is refused the same way.
        let other = fleet.certificates.otherCAServer
        let foreign = try await fleet.prefs("write", "app", "k", "v",
                                    environment: ["PREFS_ETCD_CACERT": fleet.certificates.ca, "PREFS_ETCD_CERT": other.certificate, "PREFS_ETCD_KEY": other.key])
        #expect(foreign.status == 77, "\(foreign.error)")
        #expect(try await cluster.etcdctl("get", "--prefix", "--keys-only", fleet.prefix + "/") == "", "nothing was written")
    }

    @Test func aServerCertificateFromAnUnknownCAIsRefused() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try TLSSandbox(url: cluster.url)
        var credentials = fleet.credentials
        credentials["PREFS_ETCD_CACERT"] = fleet.certificates.directory.file("other-ca.pem")
        let run = try await fleet.prefs("write", "app", "k", "v", environment: credentials)
        #expect(run.status == 77)
        #expect(run.error.contains("TLS: the server's certificate was refused: unable to get local issuer certificate"), "\(run.error)")
        // Without PREFS_ETCD_CACERT the system's trust store is used, which does not know the test CA.
        credentials["PREFS_ETCD_CACERT"] = nil
        #expect(try await fleet.prefs("read", "app", "k", environment: credentials).status == 77)
        #expect(try await cluster.etcdctl("get", "--prefix", "--keys-only", fleet.prefix + "/") == "", "nothing was written")
    }

    /// With a runtime directory a command resumes the session the one before kept for the member:
    /// a member that does not know it makes a full handshake, in which the server's certificate is
    /// checked against the trust store as ever (here the system's, told of the test CA by
    /// `SSL_CERT_FILE`, as OpenSSL takes it), parsed only then: one it does not trust is refused.
    @Test func aSessionAMemberDoesNotKnowEndsInAFullHandshakeCheckedAsEver() async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try TLSSandbox(url: cluster.url)
        let runtime = fleet.sandbox.directory.path + "/run"
        try #require(mkdir(runtime, 0o700) == 0)
        var environment = fleet.credentials
        environment["PREFS_ETCD_CACERT"] = nil
        environment["XDG_RUNTIME_DIR"] = runtime
        environment["SSL_CERT_FILE"] = fleet.certificates.ca
        let (first, second) = (cluster.members[0].clientEndpoint, cluster.members[1].clientEndpoint)
        #expect(try await fleet.prefs("--store", "etcds://\(first)/" + fleet.prefix, "write", "app", "k", "v", environment: environment).status == 0)
        // The session kept for the first member, planted as the second's.
        let credentials = TLSCredentials(certificate: try Fixtures.bytes(fleet.certificates.client("root").certificate),
                                         key: try Fixtures.bytes(fleet.certificates.client("root").key))
        let files = try #require(TLSSessionFiles(runtimeDirectory: runtime, credentials: credentials))
        let kept = try #require(files.file(for: NetworkEndpoint(host: "127.0.0.1", port: cluster.members[0].clientPort)).read(limit: 1 << 14))
        let planted = files.file(for: NetworkEndpoint(host: "127.0.0.1", port: cluster.members[1].clientPort))
        planted.replace(with: kept)
        let read = try await fleet.prefs("--store", "etcds://\(second)/" + fleet.prefix, "read", "app", "k", environment: environment)
        #expect(read.status == 0 && read.outputText == "v\n", "\(read.error)")
        #expect(planted.read(limit: 1 << 14) != kept, "the second member's own session replaced it")

        planted.replace(with: kept)
        environment["SSL_CERT_FILE"] = fleet.certificates.directory.file("other-ca.pem")
        let refused = try await fleet.prefs("--store", "etcds://\(second)/" + fleet.prefix, "read", "app", "k", environment: environment)
        #expect(refused.status == 77 && refused.error.contains("unable to get local issuer certificate"), "\(refused.error)")
    }

    @Test(arguments: [("wrong-name", "localhost", "hostname mismatch"), ("wrong-name", "127.0.0.1", "IP address mismatch"),
                      ("expired", "127.0.0.1", "certificate has expired"), ("other-server", "localhost", "unable to get local issuer certificate")])
    func aFaultyServerCertificateIsRefused(name: String, host: String, reason: String) async throws {
        let certificates = try Self.certificates.get()
        let server = try await TLSServer(certificate: certificates.directory.file("\(name).pem"), key: certificates.directory.file("\(name).key"))
        let fleet = try TLSSandbox { "etcds://\(host):\(server.port)/" + $0 }
        let run = try await fleet.prefs("read", "app", "k")
        #expect(run.status == 77)
        #expect(run.error == "prefs: \(host):\(server.port): TLS: the server's certificate was refused: \(reason)\n")
    }

    /// The name or address as written is what the certificate must hold: localhost is in it,
    /// 127.0.0.2 is not (the same server, listening on every loopback address).
    @Test func theEndpointIsCheckedAsWritten() async throws {
        let certificates = try Self.certificates.get()
        let server = try await TLSServer(certificate: certificates.server.certificate, key: certificates.server.key)
        let named = try await TLSSandbox { "etcds://localhost:\(server.port)/" + $0 }.prefs("read", "app", "k")
        #expect(named.status != 77 && !named.error.contains("TLS"), "the handshake succeeds (s_server is no etcd): \(named.error)")
        let other = try await TLSSandbox { "etcds://127.0.0.2:\(server.port)/" + $0 }.prefs("read", "app", "k")
        #expect(other.status == 77)
        #expect(other.error == "prefs: 127.0.0.2:\(server.port): TLS: the server's certificate was refused: IP address mismatch\n")
    }

    /// No certificate was refused: the endpoint cannot serve TLS, as one going away cannot (69,
    /// the next endpoint first), and the message says what a plain-text endpoint is.
    @Test func aPlainTextServerBehindEtcdsIsUnavailable() async throws {
        let plain = try await EtcdTests.cluster.get()
        let fleet = try TLSSandbox { "etcds://\(plain.clientEndpoints[0])/" + $0 }
        let run = try await fleet.prefs("write", "app", "k", "v")
        #expect(run.status == 69, "\(run.error)")
        // etcd's plain port closes the connection at the ClientHello; another HTTP server answers in
        // plain text, which OpenSSL reads as a wrong version number.
        #expect(run.error.contains("TLS: the server closed the connection in the handshake") && run.error.contains("a plain-text endpoint is etcd://")
                && run.error.split(separator: "\n").count == 1, "\(run.error)")
        #expect(try await plain.etcdctl("get", "--prefix", "--keys-only", fleet.prefix + "/") == "", "no fallback to plain text")
    }

    /// With auth on, etcd 3.4's JSON gateway refuses a client certificate that has a CN (it takes
    /// CNs as users over gRPC only): 77 saying what to do; a certificate without one, with a user
    /// and password, works, and a user without a role is refused.
    @Test func withAuthOnTheGatewayTakesACertificateWithoutACN() async throws {
        let certificates = try Self.certificates.get()
        let cluster = try await EtcdCluster.start(members: 1, tls: EtcdCluster.TLS(certificates))
        try await cluster.etcdctl("user", "add", "alice:pw")
        try await cluster.enableAuth(rootPassword: "s3cret")
        let fleet = try TLSSandbox(url: cluster.url)
        let withCN = try await fleet.prefs("write", "app", "k", "v")
        #expect(withCN.status == 77)
        #expect(withCN.error.contains("refuses a client certificate that has a CommonName") && withCN.error.contains("PREFS_ETCD_USER"), "\(withCN.error)")
        let anonymous = certificates.client("anonymous")
        var environment = ["PREFS_ETCD_CACERT": certificates.ca, "PREFS_ETCD_CERT": anonymous.certificate, "PREFS_ETCD_KEY": anonymous.key,
                           "PREFS_ETCD_USER": "root", "PREFS_ETCD_PASSWORD": "s3cret"]
        let asRoot = try await fleet.prefs("write", "app", "k", "v", environment: environment)
        #expect(asRoot.status == 0, "\(asRoot.error)")
        #expect(try await fleet.prefs("read", "app", "k", environment: environment).outputText == "v\n")
        (environment["PREFS_ETCD_USER"], environment["PREFS_ETCD_PASSWORD"]) = ("alice", "pw")
        let asAlice = try await fleet.prefs("write", "app", "k", "w", environment: environment)
        #expect(asAlice.status == 77)
        #expect(asAlice.error.contains("permission denied"), "\(asAlice.error)")
    }

    @Test func unusableCertificateFilesAreNamed() async throws {
        let fleet = try TLSSandbox(url: try await Self.cluster.get().url)
        let ca = fleet.certificates.ca, client = fleet.certificates.client("root")
        let cases: [([String: String], Int32, String)] = [
            (["PREFS_ETCD_CACERT": "/dev/zero"], 65, "prefs: PREFS_ETCD_CACERT /dev/zero: not a regular file (a FIFO, a device or a socket); give a PEM file\n"),
            (["PREFS_ETCD_CACERT": client.key], 65, "prefs: PREFS_ETCD_CACERT \(client.key): no PEM certificate in it\n"),
            (["PREFS_ETCD_CACERT": ca, "PREFS_ETCD_CERT": client.certificate, "PREFS_ETCD_KEY": fleet.certificates.server.key], 65,
             "prefs: PREFS_ETCD_KEY \(fleet.certificates.server.key): key values mismatch\n"),
            (["PREFS_ETCD_CACERT": ca, "PREFS_ETCD_CERT": client.certificate], 64, ""),
            (["PREFS_ETCD_CACERT": fleet.sandbox.directory.file("missing.pem")], 66, ""),
        ]
        for (environment, status, message) in cases {
            let run = try await fleet.prefs("read", "app", "k", environment: environment)
            #expect(run.status == status, "\(environment): \(run.error)")
            if !message.isEmpty { #expect(run.error == message) }
        }
    }

    @Test func versionSaysWhichTLSLibraryIsBuiltIn() async throws {
        let run = try await runProcess(Paths.binary, ["--version"])
        #expect(run.outputText.contains("TLS for etcds:// stores: OpenSSL 3."), "\(run.outputText)")
    }
}
