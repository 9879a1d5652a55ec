import Foundation
import Synchronization
import Testing
@testable import PrefsCore

/// One single-member cluster shared by the tests that only read and write keys (each under a
/// prefix of its own); tests that kill members, enable auth or compact start their own. It is
/// stopped when the test process exits (its guardian sees the process go).
enum SharedEtcd {
    private static let shared = Mutex<Result<EtcdCluster, TestFailure>?>(nil)

    static func cluster() throws -> EtcdCluster {
        try shared.withLock { state in
            if state == nil {
                do { state = .success(try EtcdCluster(members: 1)) } catch {
                    state = .failure(TestFailure("starting etcd: \(error)"))
                }
            }
            return try state!.get()
        }
    }

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
