import Testing
@testable import PrefsCore

/// Logging in to a cluster with auth enabled: good and bad passwords, no credentials, a user without
/// permission, and a token the member forgot (it restarted). The tests share one cluster, one after
/// the other (one turns auth off and on, and restarts the member).
@Suite(.serialized, .blocking) struct EtcdAuthTests {
    static let authCluster = SharedCluster {
        let cluster = try EtcdCluster(members: 1, extraArguments: EtcdCluster.sharedTiming)
        try cluster.enableAuth(rootPassword: "s3cret")
        return cluster
    }

    let cluster: EtcdCluster

    init() throws {
        cluster = try Self.authCluster.get()
    }

    @Test func theRightPasswordWorksAndTheTokenIsSent() throws {
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 5, credentials: ("root", "s3cret"))
        let revision = try client.put(bytes("k"), bytes("v"))
        #expect(try client.range(bytes("k")).kvs.first?.modRevision == revision)
        let token = try #require(client.state.withLock { $0.token })
        #expect(!token.isEmpty)
        // etcd agrees the write was root's.
        #expect(try cluster.etcdctl("get", "k", "--print-value-only") == "v\n")
    }

    @Test func aWrongPasswordIsRefusedWithExitStatus77() throws {
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 5, credentials: ("root", "wrong"))
        let error = prefsError { _ = try client.range(bytes("k")) }
        #expect(error == .storeRefused(endpoint: cluster.clientEndpoints[0], code: 16,
                                       message: "etcdserver: authentication failed, invalid user ID or password", status: .noPermission))
        #expect(error?.exitStatus == .noPermission)
    }

    @Test func noCredentialsIsRefusedWithExitStatus77() throws {
        let error = prefsError { _ = try EtcdClient(endpoints: cluster.endpoints, timeout: 5).range(bytes("k")) }
        #expect(error == .storeRefused(endpoint: cluster.clientEndpoints[0], code: 16, message: "etcdserver: user name is empty", status: .noPermission))
        #expect(error?.exitStatus == .noPermission)
    }

    @Test func aUserWithoutPermissionIsRefusedWithExitStatus77() throws {
        try cluster.etcdctl("user", "add", "alice:pw")
        try cluster.etcdctl("role", "add", "reader")
        try cluster.etcdctl("role", "grant-permission", "reader", "read", "public/", "--prefix=true")
        try cluster.etcdctl("user", "grant-role", "alice", "reader")
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 5, credentials: ("alice", "pw"))
        #expect(try client.range(bytes("public/x")).count == 0)
        let error = prefsError { try client.put(bytes("public/x"), [1]) }
        #expect(error == .storeRefused(endpoint: cluster.clientEndpoints[0], code: 7, message: "etcdserver: permission denied", status: .noPermission))
        #expect(error?.exitStatus == .noPermission)
    }

    @Test func aTokenTheClusterForgotIsReplacedByLoggingInAgain() throws {
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 5, credentials: ("root", "s3cret"))
        try client.put(bytes("k"), bytes("1"))
        let before = try #require(client.state.withLock { $0.token })
        // Turning auth off and on drops every token.
        try cluster.etcdctl("auth", "disable")
        try cluster.etcdctl("auth", "enable")
        try client.put(bytes("k"), bytes("2"))
        let after = try #require(client.state.withLock { $0.token })
        #expect(after != before)
        #expect(try client.range(bytes("k")).kvs.first?.value == bytes("2"))
        // A member restarted keeps working (it replays the login from its log, or the client logs in).
        try cluster.restart(member: 0)
        #expect(try client.range(bytes("k")).kvs.first?.value == bytes("2"))
    }

    @Test func credentialsForAClusterWithoutAuthAreNotNeeded() throws {
        let client = EtcdClient(endpoints: try SharedEtcd.cluster().endpoints, timeout: 5, credentials: ("root", "any"))
        let key = uniquePrefix()
        try client.put(key, [1])
        #expect(client.state.withLock { $0.token } == "")
    }

    @Test func aWatchLogsInToo() throws {
        let client = EtcdClient(endpoints: cluster.endpoints, timeout: 5, credentials: ("root", "s3cret"))
        let revision = try client.put(bytes("watched"), bytes("v"))
        var seen: [EtcdWatchEvent] = []
        let stop = try client.watch(bytes("watched"), fromRevision: revision, deadline: MonotonicClock.now() + 5) { events, _ in
            seen += events
            return false
        }
        #expect(stop == .handlerStopped)
        #expect(seen.map(\.keyValue.value) == [bytes("v")])
    }
}
