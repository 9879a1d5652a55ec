/// A set of dictionary keys compared by their bytes, as `PrefDictionary` compares them. A Swift
/// `Set<String>` would merge two keys that are spelled in NFC and NFD (canonically equal strings),
/// and with it a change to one of them would be lost.
package struct KeySet: Sequence, ExpressibleByArrayLiteral, Equatable, Sendable {
    /// Sorted in code-point order, each key once.
    package private(set) var sorted: [String]

    package init<S: Sequence>(_ keys: S) where S.Element == String {
        var list = keys.sorted { $0.utf8Compare($1) < 0 }
        var unique: [String] = []
        unique.reserveCapacity(list.count)
        for key in list where unique.last.map({ $0.utf8Compare(key) != 0 }) ?? true { unique.append(key) }
        list = unique
        sorted = list
    }

    package init(arrayLiteral keys: String...) { self.init(keys) }

    package func contains(_ key: String) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            let order = sorted[middle].utf8Compare(key)
            if order == 0 { return true }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return false
    }

    package var count: Int { sorted.count }

    package static func == (lhs: KeySet, rhs: KeySet) -> Bool {
        lhs.sorted.count == rhs.sorted.count && zip(lhs.sorted, rhs.sorted).allSatisfy { $0.utf8Compare($1) == 0 }
    }
    package func makeIterator() -> IndexingIterator<[String]> { sorted.makeIterator() }
}
