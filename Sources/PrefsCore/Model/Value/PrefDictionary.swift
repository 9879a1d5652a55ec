/// A dictionary with string keys, kept sorted by the keys' UTF-8 bytes (code-point order).
///
/// Sorted storage gives every writer a deterministic key order for free, makes decoding a file we
/// wrote (already sorted) linear, and looks keys up by binary search. Keys are compared by bytes, so
/// NFC and NFD spellings of one word are two different keys, as in CoreFoundation.
public struct PrefDictionary: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public let key: String
        public var value: PrefValue

        public init(key: String, value: PrefValue) {
            self.key = key
            self.value = value
        }

        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.key.utf8Compare(rhs.key) == 0 && lhs.value == rhs.value
        }
    }

    /// Sorted by key bytes, keys unique.
    public private(set) var entries: [Entry]

    public init() { entries = [] }

    /// Builds from pairs in any order; when a key repeats, the last value wins (as in every JSON and
    /// plist reader we compare against).
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PrefValue) {
        self.init(unsortedEntries: pairs.map { Entry(key: $0.0, value: $0.1) })
    }

    /// Builds from entries in file order: linear when they are already sorted (files prefs wrote),
    /// otherwise a sort that keeps the last of equal keys.
    init(unsortedEntries list: [Entry]) {
        if PrefDictionary.isStrictlySorted(list) {
            entries = list
            return
        }
        let order = list.indices.sorted { i, j in
            let c = list[i].key.utf8Compare(list[j].key)
            return c != 0 ? c < 0 : i < j
        }
        var result: [Entry] = []
        result.reserveCapacity(list.count)
        for index in order {
            if let last = result.last, last.key.utf8Compare(list[index].key) == 0 {
                result[result.count - 1] = list[index]
            } else {
                result.append(list[index])
            }
        }
        entries = result
    }

    /// The same keys with each value transformed.
    public func mapValues(_ transform: (PrefValue) throws -> PrefValue) rethrows -> PrefDictionary {
        PrefDictionary(sortedEntries: try entries.map { Entry(key: $0.key, value: try transform($0.value)) })
    }

    /// A dictionary from entries known to be sorted and unique.
    init(sortedEntries: [Entry]) { entries = sortedEntries }

    static func isStrictlySorted(_ list: [Entry]) -> Bool {
        var i = 1
        while i < list.count {
            if list[i - 1].key.utf8Compare(list[i].key) >= 0 { return false }
            i += 1
        }
        return true
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [String] { entries.map(\.key) }

    /// Where `key` is, or where it would be inserted.
    func search(_ key: String) -> (found: Bool, index: Int) {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            let c = entries[mid].key.utf8Compare(key)
            if c == 0 { return (true, mid) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return (false, low)
    }

    public subscript(key: String) -> PrefValue? {
        get {
            let (found, index) = search(key)
            return found ? entries[index].value : nil
        }
        set {
            let (found, index) = search(key)
            switch (found, newValue) {
            case (true, let value?): entries[index].value = value
            case (true, nil): entries.remove(at: index)
            case (false, let value?): entries.insert(Entry(key: key, value: value), at: index)
            case (false, nil): break
            }
        }
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> PrefValue? {
        let (found, index) = search(key)
        return found ? entries.remove(at: index).value : nil
    }
}

extension PrefDictionary: RandomAccessCollection {
    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> Entry { entries[position] }
}

extension PrefDictionary: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, PrefValue)...) { self.init(elements) }
}
