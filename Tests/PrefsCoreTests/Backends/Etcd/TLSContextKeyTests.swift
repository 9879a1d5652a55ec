import Foundation
import Testing
@testable import PrefsCore

/// A TLS context takes the client's private key in every form `openssl` writes, whatever the key's
/// type (the type is read from the PEM label, or from a PKCS#8 key's algorithm, so that OpenSSL sets
/// up only that type's decoder): PKCS#8 and the traditional forms (SEC1 "EC PRIVATE KEY", with or
/// without the "EC PARAMETERS" block `ecparam -genkey` writes before it, PKCS#1 "RSA PRIVATE KEY"),
/// a key after its certificate in one file; and it tells a key that is not the certificate's, and
/// a file with no key, apart.
@Suite struct TLSContextKeyTests {
    static let openssl = TestCertificates.opensslPath

    /// A key of the type `genpkey` makes with `options`, and a self-signed certificate for it.
    struct Made {
        let directory: TemporaryDirectory
        let key: String
        let certificate: String

        init(_ options: [String]) throws {
            directory = try TemporaryDirectory()
            key = directory.file("key.pem")
            certificate = directory.file("certificate.pem")
            try TLSContextKeyTests.run(["genpkey"] + options + ["-out", key])
            try TLSContextKeyTests.run(["req", "-x509", "-new", "-key", key, "-subj", "/CN=client", "-days", "1", "-out", certificate])
        }

        func context(key bytes: [UInt8]) throws(TLSFailure) -> TLSContext {
            let certificate = try! Fixtures.bytes(self.certificate)
            let context = try TLSContext(TLSCredentials(trusted: certificate, certificate: certificate, key: bytes))
            try context.load()
            return context
        }
    }

    static func run(_ arguments: [String]) throws {
        let result = try runProcess(openssl, arguments)
        guard result.status == 0 else { throw TestFailure("openssl \(arguments.joined(separator: " ")): \(result.error)") }
    }

    static let types: [(String, [String], traditional: Bool)] = [
        ("EC P-256", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], true),
        ("EC P-384", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], true),
        ("RSA", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], true),
        ("RSA-PSS", ["-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048"], false),
        ("Ed25519", ["-algorithm", "ED25519"], false),
        ("Ed448", ["-algorithm", "ED448"], false),
    ]

    @Test(arguments: types.indices)
    func everyFormOfTheKeyIsTaken(index: Int) throws {
        let (name, options, traditional) = Self.types[index]
        let made = try Made(options)
        let pkcs8 = try Fixtures.bytes(made.key)
        #expect(String(decoding: pkcs8.prefix(27), as: UTF8.self) == "-----BEGIN PRIVATE KEY-----", "\(name)")
        var forms = [("PKCS#8", pkcs8), ("after its certificate", try Fixtures.bytes(made.certificate) + pkcs8)]
        if traditional {
            let path = made.directory.file("traditional.pem")
            try Self.run(["pkey", "-in", made.key, "-traditional", "-out", path])
            let bytes = try Fixtures.bytes(path)
            let label = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
            #expect(["-----BEGIN EC PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----"].contains(label), "\(name): \(label)")
            forms.append(("traditional", bytes))
        }
        for (form, key) in forms {
            #expect(throws: Never.self, "\(name) \(form)") { _ = try made.context(key: key) }
        }
        // Another key of the same type is not the certificate's.
        let other = try Made(options)
        #expect(throws: TLSFailure(reason: "key file: key values mismatch"), "\(name)") { _ = try made.context(key: try Fixtures.bytes(other.key)) }
    }

    @Test func anECKeyAfterItsParametersIsTaken() throws {
        let made = try Made(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        let path = made.directory.file("ecparam.pem")
        try Self.run(["ecparam", "-name", "prime256v1", "-genkey", "-out", path])
        try Self.run(["req", "-x509", "-new", "-key", path, "-subj", "/CN=client", "-days", "1", "-out", made.certificate])
        let key = try Fixtures.bytes(path)
        #expect(String(decoding: key.prefix(30), as: UTF8.self) == "-----BEGIN EC PARAMETERS-----\n")
        #expect(throws: Never.self) { _ = try made.context(key: key) }
    }

    @Test func aFileWithNoKeyIsNamed() throws {
        let made = try Made(["-algorithm", "ED25519"])
        for text in ["", "not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                     String(decoding: try Fixtures.bytes(made.certificate), as: UTF8.self)] {
            #expect(throws: TLSFailure(reason: "key file: no PEM private key in it"), "\(text.prefix(40))") {
                _ = try made.context(key: Array(text.utf8))
            }
        }
    }
}
