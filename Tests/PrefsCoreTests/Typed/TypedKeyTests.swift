import Foundation
import Testing
@testable import PrefsCore

extension Prefs.Keys {
    static let retries = Prefs.Key<Int>("retries", default: 3)
    static let nickname = Prefs.Key<String?>("nickname")
    static let theme = Prefs.Key<Theme>("theme", default: .light)
    static let hosts = Prefs.Key<[String]>("hosts", default: [])
    static let limits = Prefs.Key<[String: Double]>("limits", default: [:])
    static let window = Prefs.Key<Window?>("window")
    static let lastRun = Prefs.Key<Date?>("lastRun")
}

/// Typed keys over a suite: defaults, every kind of value stored as property-list structure, the
/// defaults registered in code, atomic bulk changes and reset — on the in-memory file system and on
/// disk alike.
@Suite struct TypedKeyTests {
    /// A suite over a fresh fixture. Keep the fixture alive while the suite is used: on disk, its
    /// directory goes when it is released, and the suite's first write would make it again.
    static func suite(_ kind: FileSystemKind) throws -> (Prefs.Suite, LayerFixture) {
        let fixture = try LayerFixture(kind)
        return (Prefs.Suite("com.example.app", store: fixture.store), fixture)
    }

    @Test(arguments: FileSystemKind.allCases)
    func aKeyReadsItsDefaultUntilAValueIsStored(kind: FileSystemKind) throws {
        let (suite, fixture) = try TypedKeyTests.suite(kind)
        defer { withExtendedLifetime(fixture) {} }
        #expect(try suite[.retries] == 3)
        #expect(try suite[.nickname] == nil)
        #expect(try suite.set(.retries, 5))
        #expect(try !suite.set(.retries, 5))
        #expect(try suite[.retries] == 5)
        try suite.set(.nickname, "kim")
        #expect(try suite[.nickname] == "kim")
        try suite.set(.nickname, nil)
        #expect(try suite.store.load(.suite("com.example.app"))?.contents["nickname"] == nil)
    }

    @Test(arguments: FileSystemKind.allCases)
    func valuesAreStoredAsPropertyListStructure(kind: FileSystemKind) throws {
        let (suite, fixture) = try TypedKeyTests.suite(kind)
        defer { withExtendedLifetime(fixture) {} }
        try suite.set(.theme, .dark)
        try suite.set(.hosts, ["a", "b"])
        try suite.set(.limits, ["cpu": 0.5])
        try suite.set(.window, PrefValueCodingTests.window)
        try suite.set(.lastRun, Date(timeIntervalSinceReferenceDate: 42))
        let stored = try #require(try suite.store.load(.suite("com.example.app"))?.contents)
        #expect(stored["theme"] == "dark" && stored["hosts"] == ["a", "b"] && stored["limits"] == ["cpu": 0.5])
        #expect(stored["lastRun"] == .date(PrefDate(secondsSinceReferenceDate: 42)))
        guard case .dictionary(let window)? = stored["window"] else { Issue.record("not a dictionary"); return }
        #expect(window["title"] == "Main")
        #expect(try suite[.window] == PrefValueCodingTests.window)
        #expect(try suite[.theme] == .dark && suite[.hosts] == ["a", "b"] && suite[.limits] == ["cpu": 0.5])
    }

    @Test func aStoredValueOfAnotherTypeIsAnErrorNotTheDefault() throws {
        let (suite, fixture) = try TypedKeyTests.suite(.memory)
        defer { withExtendedLifetime(fixture) {} }
        try suite.store.update(.suite("com.example.app")) { $0["retries"] = "many" }
        #expect(throws: PrefsError.typeMismatch(domain: "com.example.app", key: "retries", reason: "expected an integer, found a string")) {
            try suite[.retries]
        }
    }

    @Test func defaultsRegisteredInCodeLieBelowTheFilesAndAreNeverWritten() throws {
        let fixture = try LayerFixture(.memory)
        let suite = Prefs.Suite("com.example.app", store: fixture.store)
        suite.register(defaults: ["retries": 7])
        try suite.register(.theme, .dark)
        #expect(try suite[.retries] == 7 && suite[.theme] == .dark)
        try fixture.put("data/prefs/defaults/com.example.app.plist", ["retries": 9])
        #expect(try suite[.retries] == 9)
        try suite.set(.retries, 1)
        #expect(try suite[.retries] == 1)
        #expect(try suite.reset(.retries))
        #expect(try suite[.retries] == 9)
        #expect(try suite.store.load(.suite("com.example.app")) == nil)
    }

    @Test func anUpdateChangesSeveralKeysAtOnceOrNone() throws {
        let (suite, fixture) = try TypedKeyTests.suite(.memory)
        defer { withExtendedLifetime(fixture) {} }
        try suite.update { changes in
            try changes.set(.retries, try changes[.retries] + 1)
            try changes.set(.hosts, ["x"])
        }
        #expect(try suite[.retries] == 4 && suite[.hosts] == ["x"])
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try suite.update { changes in
                try changes.set(.retries, 100)
                throw Refused()
            }
        }
        #expect(try suite[.retries] == 4)
    }
}

extension TypedKeyTests {
    @Test(arguments: ["../escape", "a/b", "", ".hidden", "tab\there"])
    func aSuiteNameThatCouldEscapeTheStoreIsRefused(name: String) throws {
        let fixture = try LayerFixture(.memory)
        let suite = Prefs.Suite(name, store: fixture.store)
        #expect(throws: PrefsError.self) { try suite.set(.retries, 1) }
        #expect(throws: PrefsError.self) { try suite[.retries] }
    }
}

extension TypedKeyTests {
    /// Settings given in code replace the `PREFS_*` variables (even malformed ones); without them,
    /// the variables are read as the command reads them.
    @Test func storeOptionsReplaceTheEnvironmentsText() throws {
        let environment = Environment(["HOME": "/home/test", "PREFS_LOCK_TIMEOUT": "soon", "PREFS_EXTERNAL_THRESHOLD": "2K"])
        let given = SuiteStore(fileSystem: InMemoryFileSystem(), environment: environment,
                               options: StoreOptions(externalThreshold: 64, lockTimeout: 0.5, timeout: 1))
        #expect(try given.environment.lockTimeout() == 0.5)
        #expect(try given.environment.externalThreshold() == 64)
        #expect(try given.environment.etcdTimeout() == 1)
        let read = SuiteStore(fileSystem: InMemoryFileSystem(), environment: environment)
        #expect(try read.environment.externalThreshold() == 2048)
        #expect(throws: PrefsError.self) { try read.environment.lockTimeout() }
        #expect(try Prefs.Suite.inMemory("app").store.environment.externalThreshold() == 100 << 10)
        #expect(throws: PrefsError.self) { try Prefs.Suite.inMemory("app", options: StoreOptions(lockTimeout: -1)).store.environment.lockTimeout() }
        // A value larger than the threshold given is kept outside the suite.
        let small = Prefs.Suite.inMemory("app", options: StoreOptions(externalThreshold: 64))
        try small.set(.hosts, Array(repeating: "host.example", count: 20))
        #expect(try small.store.load(.suite("app")).map { ExternalReference.isMarked($0.contents["hosts"]!) } == true)
        #expect(try small[.hosts].count == 20)
    }
}

extension TypedKeyTests {
    /// etcd credentials, TLS files and the host id given in code replace their variables, and are
    /// checked as the variables are; where none is given, the variable is read.
    @Test func credentialsTLSFilesAndHostIDGivenInCodeReplaceTheVariables() throws {
        let environment = Environment(["HOME": "/home/test", "PREFS_ETCD_USER": "env", "PREFS_ETCD_PASSWORD": "secret", "PREFS_HOST_ID": "envhost"])
        let options = StoreOptions(etcdUser: "kim", etcdPassword: "pw", etcdCACertificate: "/etc/prefs/ca.pem",
                                   etcdCertificate: "/etc/prefs/client.pem", etcdKey: "/etc/prefs/client.key", hostID: "build-7")
        let given = SuiteStore(fileSystem: InMemoryFileSystem(), environment: environment, options: options).environment
        #expect(try given.etcdCredentials().map { [$0.user, $0.password] } == ["kim", "pw"])
        #expect(try given.hostID(fileSystem: InMemoryFileSystem()) == "build-7")
        #expect(try [given["PREFS_ETCD_CACERT"], given["PREFS_ETCD_CERT"], given["PREFS_ETCD_KEY"]]
            == ["/etc/prefs/ca.pem", "/etc/prefs/client.pem", "/etc/prefs/client.key"])
        let variables = SuiteStore(fileSystem: InMemoryFileSystem(), environment: environment, options: StoreOptions(lockTimeout: 1)).environment
        #expect(try variables.etcdCredentials().map { [$0.user, $0.password] } == ["env", "secret"])
        #expect(try variables.hostID(fileSystem: InMemoryFileSystem()) == "envhost")
        let bad = SuiteStore(fileSystem: InMemoryFileSystem(), environment: environment, options: StoreOptions(hostID: ".hidden")).environment
        #expect(throws: PrefsError.self) { try bad.hostID(fileSystem: InMemoryFileSystem()) }
        let half = SuiteStore(fileSystem: InMemoryFileSystem(), environment: Environment([:]), options: StoreOptions(etcdUser: "kim")).environment
        #expect(throws: PrefsError.self) { try half.etcdCredentials() }
    }
}

extension TypedKeyTests {
    /// A refusal of a setting given in code names the `StoreOptions` property, not the variable it
    /// stands for; one read from a variable still names the variable.
    @Test func errorsOfOptionsGivenInCodeNameTheOption() throws {
        func message(_ body: () throws -> Any?) -> String {
            do { _ = try body(); return "no error" } catch { return "\(error)" }
        }
        let files = InMemoryFileSystem()
        let half = SuiteStore(fileSystem: files, environment: Environment([:]), options: StoreOptions(etcdUser: "kim")).environment
        #expect(message { try half.etcdCredentials() } == "StoreOptions.etcdPassword is missing; it takes a password with StoreOptions.etcdUser")
        let host = SuiteStore(fileSystem: files, environment: Environment([:]), options: StoreOptions(hostID: ".hidden")).environment
        #expect(message { try host.hostID(fileSystem: files) } == "StoreOptions.hostID is \".hidden\"; it takes \(Environment.hostIDRule)")
        let key = SuiteStore(fileSystem: files, environment: Environment([:]), options: StoreOptions(etcdKey: "/k.pem")).environment
        #expect(message { try key.etcdTLS(fileSystem: files) } == "StoreOptions.etcdCertificate is missing; it takes the client certificate of StoreOptions.etcdKey")
        let file = SuiteStore(fileSystem: files, environment: Environment([:]), options: StoreOptions(etcdCACertificate: "/dev")).environment
        try files.createDirectory("/dev", mode: 0o755)
        #expect(!message { try file.etcdTLS(fileSystem: files) }.contains("PREFS_"))
        // A value read from its variable (the option left nil) is named by the variable.
        let variable = SuiteStore(fileSystem: files, environment: Environment(["PREFS_ETCD_USER": "env"]), options: StoreOptions(lockTimeout: 1)).environment
        #expect(message { try variable.etcdCredentials() } == "StoreOptions.etcdPassword is missing; it takes a password with PREFS_ETCD_USER")
        let command = Environment(["PREFS_ETCD_USER": "env"])
        #expect(message { try command.etcdCredentials() } == "PREFS_ETCD_PASSWORD=: give a password with PREFS_ETCD_USER")
    }
}
