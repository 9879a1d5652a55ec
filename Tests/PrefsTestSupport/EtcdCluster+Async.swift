import Foundation
import Synchronization

/// Clusters for tests that run at once: a test that needs a cluster of its own starts one with
/// `start` (at most `TestConcurrency.clusters` at a time); the others use a `SharedCluster`. The
/// awaited versions of what blocks (starting, restarting, an election) run on a thread of their own.
extension EtcdCluster {
    /// Starts a cluster of the test's own, once fewer than `TestConcurrency.clusters.width` such
    /// clusters are running; its place is given back when the cluster goes. For a test that kills,
    /// pauses, compacts, enables auth or fills the cluster: every other one shares a cluster.
    package static func start(members count: Int = 1, tls: TLS? = nil, extraArguments: [String] = []) async throws -> EtcdCluster {
        let limiter = TestConcurrency.clusters
        await limiter.acquire()
        do {
            let cluster = try await onOwnThread { try EtcdCluster(members: count, tls: tls, extraArguments: extraArguments) }
            cluster.place = limiter
            return cluster
        } catch {
            limiter.release()
            throw error
        }
    }

    /// Heartbeats and elections for a cluster that lives through the whole run and whose members
    /// nobody stops: half as many heartbeats (an idle member costs about 1 % of a core), and an
    /// election timeout a loaded machine does not miss. (A test's own cluster keeps the fast ones:
    /// it kills members and waits for the next leader.)
    package static let sharedTiming = ["--heartbeat-interval", "100", "--election-timeout", "1000"]

    /// `kill(member:)`, awaited.
    package func kill(member index: Int) async {
        _ = try? await onOwnThread { self.kill(member: index) }
    }

    /// `restart(member:)`, awaited.
    package func restart(member index: Int) async throws {
        try await onOwnThread { try self.restart(member: index) }
    }

    /// `pause(member:)`, awaited: returns once the member has stopped.
    package func pause(member index: Int) async throws {
        try await onOwnThread { try self.pause(member: index) }
    }

    /// `leaderIndex()`, awaited.
    package func leaderIndex() async throws -> Int {
        try await onOwnThread { try self.leaderIndex() }
    }

    /// `enableAuth(rootPassword:)`, awaited.
    package func enableAuth(rootPassword: String) async throws {
        try await etcdctl(["user", "add", "root:\(rootPassword)"])
        try await etcdctl(["auth", "enable"])
        setRootPassword(rootPassword)
    }
}

/// A cluster tests share, each under a key prefix of its own: started by the first `get()`, stopped
/// when the test process exits (its guardians see the process go). `oneMember` and `threeMembers`
/// serve the whole run; a suite that needs another kind (TLS) declares its own.
package final class SharedCluster: Sendable {
    private let start: @Sendable () throws -> EtcdCluster
    private let state = Mutex<Result<EtcdCluster, TestFailure>?>(nil)

    package init(_ start: @escaping @Sendable () throws -> EtcdCluster) { self.start = start }

    package static let oneMember = SharedCluster { try EtcdCluster(members: 1, extraArguments: EtcdCluster.sharedTiming) }
    package static let threeMembers = SharedCluster { try EtcdCluster(members: 3, extraArguments: EtcdCluster.sharedTiming) }

    /// The cluster; the first call starts it (and the calls meanwhile wait for it).
    package func get() throws -> EtcdCluster {
        try state.withLock { state in
            if state == nil {
                do { state = .success(try start()) } catch {
                    state = .failure(TestFailure("starting etcd: \(error)"))
                }
            }
            return try state!.get()
        }
    }

    /// `get()`, awaited: the first call starts the cluster on a thread of its own.
    package func get() async throws -> EtcdCluster {
        try await onOwnThread { try self.get() }
    }
}
