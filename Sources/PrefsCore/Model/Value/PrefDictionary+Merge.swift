/// Walking two dictionaries side by side in key order: what changed between two versions of a suite
/// (`--dry-run`), and the layers of a domain merged.
extension PrefDictionary {
    /// Visits every key of `a` and `b` once, in code-point order, with its entry in each (nil where
    /// absent). Linear: both entry lists are already sorted.
    static func zip(_ a: PrefDictionary, _ b: PrefDictionary, _ visit: (Entry?, Entry?) throws -> Void) rethrows {
        var i = 0, j = 0
        while i < a.entries.count || j < b.entries.count {
            guard i < a.entries.count else { try visit(nil, b.entries[j]); j += 1; continue }
            guard j < b.entries.count else { try visit(a.entries[i], nil); i += 1; continue }
            let order = a.entries[i].key.utf8Compare(b.entries[j].key)
            if order < 0 {
                try visit(a.entries[i], nil); i += 1
            } else if order > 0 {
                try visit(nil, b.entries[j]); j += 1
            } else {
                try visit(a.entries[i], b.entries[j]); i += 1; j += 1
            }
        }
    }

    /// The top-level keys whose values differ from `self` to `other`, in key order.
    public func changes(to other: PrefDictionary) -> [KeyChange] {
        var changes: [KeyChange] = []
        PrefDictionary.zip(self, other) { old, new in
            guard old?.value != new?.value else { return }
            changes.append(KeyChange(key: old?.key ?? new!.key, old: old?.value, new: new?.value))
        }
        return changes
    }
}

/// One top-level key that changed: added (`old` nil), removed (`new` nil) or replaced.
public struct KeyChange: Equatable, Sendable {
    public let key: String
    public let old: PrefValue?
    public let new: PrefValue?

    public init(key: String, old: PrefValue?, new: PrefValue?) {
        self.key = key
        self.old = old
        self.new = new
    }
}
