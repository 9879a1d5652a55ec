import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// The single-member cluster the tests that only read and write keys share (each under a prefix of
/// its own), with the command's tests: `SharedCluster.oneMember`. Tests that kill members, enable
/// auth or compact start their own. It is stopped when the test process exits (its guardians see
/// the process go).
enum SharedEtcd {
    static func cluster() throws -> EtcdCluster { try SharedCluster.oneMember.get() }

    static func client(timeout: Double = 5) throws -> EtcdClient {
        EtcdClient(endpoints: try cluster().endpoints, timeout: timeout)
    }
}

/// A fresh key prefix, so tests sharing a cluster never see each other's keys.
func uniquePrefix(_ name: String = #function) -> [UInt8] {
    Array("test/\(name.prefix { $0 != "(" })/\(UInt64.random(in: 0...UInt64.max))/".utf8)
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Seconds `body` took.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = MonotonicClock.now()
    try body()
    return MonotonicClock.now() - start
}

/// The error `body` threw, as a PrefsError (fails the test otherwise).
func prefsError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> PrefsError? {
    do {
        try body()
        Issue.record("no error was thrown", sourceLocation: sourceLocation)
    } catch let error as PrefsError {
        return error
    } catch {
        Issue.record("not a PrefsError: \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A loopback endpoint nothing listens on (connections are refused at once).
func deadEndpoint() throws -> EtcdEndpoint {
    EtcdEndpoint(host: "127.0.0.1", port: try EtcdCluster.freePorts(1)[0])
}

/// A suite whose synchronous tests block on the network (a client waiting out a timeout, a member
/// killed and restarted, an election): each test runs on a thread of its own (`ThreadPerJobExecutor`)
/// instead of on one of the cooperative pool's (one per core), once it has a place among the
/// `TestConcurrency.tests` that run at once. The test is the same task, so what it records is still
/// its own.
struct Blocking: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        try await TestConcurrency.tests.run {
            try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
        }
    }
}

extension Trait where Self == Blocking {
    /// The suite's tests block: see `Blocking`.
    static var blocking: Self { Self() }
}
