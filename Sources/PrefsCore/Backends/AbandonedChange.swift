/// What a change too large for one request left when its writer stopped before committing: keys
/// no reader reads (`SuiteBackend.abandonedChanges`), which `check` reports and `gc` removes.
package struct AbandonedChange: Sendable, Equatable {
    /// The keys it wrote.
    package var keys: Int
    /// Their bytes (keys and values), where the store recorded them.
    package var bytes: Int?
    /// Seconds since its writer began, where the store recorded when.
    package var age: Int64?

    package init(keys: Int, bytes: Int?, age: Int64?) {
        (self.keys, self.bytes, self.age) = (keys, bytes, age)
    }

    /// `an unfinished change of N keys (B bytes), begun S s ago`, as `check` and `gc` say it.
    package var description: String {
        var text = "an unfinished change of \(keys) key\(keys == 1 ? "" : "s")"
        if let bytes { text += " (\(bytes) bytes)" }
        if let age { text += ", begun \(max(0, age)) s ago" }
        return text
    }
}
