/// Typed preferences for Swift programs: keys declared once with their type and default, read and
/// written in one line, in the same suites the `prefs` command and Foundation's
/// `UserDefaults(suiteName:)` use.
///
/// ```swift
/// extension Prefs.Keys {
///     static let retries = Prefs.Key<Int>("retries", default: 3)
///     static let nickname = Prefs.Key<String?>("nickname")
/// }
/// let suite = Prefs.Suite("com.example.app")
/// let retries = try suite[.retries]      // 3 until something is stored
/// try suite.set(.retries, 5)
/// ```
public enum Prefs {
    /// The namespace typed keys are declared in, as static members of an extension, so that call
    /// sites name them with a leading dot (`suite[.retries]`).
    public class Keys: @unchecked Sendable {
        /// The top-level key the value is stored under.
        public let name: String

        fileprivate init(name: String) { self.name = name }
    }

    /// A typed key: its name in the suite, the type of its value and the value read when none is
    /// stored or registered. `Value` is any `Codable` type — a scalar, an array, a `[String: T]`, an
    /// enum with a raw value (stored as its raw value), a struct (stored as a dictionary), a `Date`
    /// or `Data` — or an optional of one, whose default is nil.
    public final class Key<Value: Codable & Sendable>: Keys, @unchecked Sendable {
        /// The value read when the suite's layers and the defaults registered in code have none.
        public let defaultValue: Value

        /// A key with a default.
        public init(_ name: String, default defaultValue: Value) {
            self.defaultValue = defaultValue
            super.init(name: name)
        }

        /// An optional key: nil when nothing is stored or registered.
        public init<Wrapped>(_ name: String) where Value == Wrapped? {
            self.defaultValue = nil
            super.init(name: name)
        }
    }
}
