import Foundation

/// Tests kept out of the edit loop because they take minutes alone (a package built from scratch, a
/// 100 MB value): `swift test` skips them unless PREFS_SLOW_TESTS=1, which
/// `Tests/run-slow-tests.sh` sets; that script runs exactly these, as a step of CI of its own, and
/// fails unless each of them ran and passed. A test marked so must be named in its list.
///
///     @Suite(.enabled(if: SlowTests.enabled, "slow: Tests/run-slow-tests.sh")) struct ClientPackageTests { … }
package enum SlowTests {
    package static let enabled = ProcessInfo.processInfo.environment["PREFS_SLOW_TESTS"] == "1"
}
