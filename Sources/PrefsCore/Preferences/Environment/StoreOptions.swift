/// A store's settings, given in code: what the command reads from `PREFS_EXTERNAL_THRESHOLD`,
/// `PREFS_LOCK_TIMEOUT` and `PREFS_ETCD_TIMEOUT`, typed, so a program need not set environment
/// variables. Given to a store (`Prefs.Suite(_:options:)`, `SuiteStore(fileSystem:environment:options:)`),
/// they replace those variables for it; a store made without options reads the variables, as
/// `prefs` does (where a variable is unset, its default is the one here).
///
/// ```swift
/// let suite = Prefs.Suite("com.example.app", options: StoreOptions(externalThreshold: 1 << 20, lockTimeout: 2))
/// ```
public struct StoreOptions: Sendable, Equatable {
    /// A value whose encoding would be larger than this many bytes is stored outside the property
    /// list (README, External storage); 0 to 1 TiB. Default 100 KiB.
    public var externalThreshold: Int
    /// How many seconds a writer waits for another's lock before giving up; 0 to 86400. Default 10.
    public var lockTimeout: Double
    /// How many seconds an etcd store waits, over every endpoint, for one to answer; 0.1 to 3600.
    /// Default 5.
    public var etcdTimeout: Double

    public init(externalThreshold: Int = 100 << 10, lockTimeout: Double = 10, etcdTimeout: Double = 5) {
        self.externalThreshold = externalThreshold
        self.lockTimeout = lockTimeout
        self.etcdTimeout = etcdTimeout
    }

    /// The given value when it is in `range`, else a usage error naming the option.
    func checked<T: Comparable>(_ value: T, _ range: ClosedRange<T>, _ name: String, _ accepted: String) throws -> T {
        guard range.contains(value) else { throw PrefsError.usage("StoreOptions.\(name) is \(value); it takes \(accepted)") }
        return value
    }
}
