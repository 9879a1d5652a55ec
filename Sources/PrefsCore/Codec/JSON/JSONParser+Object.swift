import Glibc

/// Objects. While keys come strictly increasing (documents prefs wrote), members become entries as
/// they are read, and the entries are the dictionary. From the first key out of order on, members
/// are kept as values and the places of their keys' bytes; at the end all members are sorted once
/// by their keys' bytes, compared in place (no String work and no reference counting inside the
/// sort), the last of equal keys wins, and those keys' Strings are made in the dictionary's order
/// (so the entries sit in memory in the order they are used and freed). Values are moved, never
/// copied.
extension JSONParser {
    /// An object being read.
    struct Members {
        /// The members read while keys increased.
        var entries: [PrefDictionary.Entry] = []
        /// The members after those, their keys in `keySpans` after the entries' keys.
        var values: [PrefValue] = []
        /// Where the entries' keys start in `keySpans`, once a key came out of order.
        var spansBase: Int?
        /// The last entry's key.
        var last: Span?
    }

    mutating func object(depth: Int) throws -> PrefValue {
        try enter(depth)
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .dictionary(PrefDictionary()) }
        let deletions = nulls == .rootMembers && depth == 0
        let unescapedBase = unescaped.count
        var members = Members()
        members.entries.reserveCapacity(4)  // small objects in one allocation, not three
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let key = try scanString()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
            index += 1
            skipSpace()
            let value = try value(depth: depth + 1, nullAllowed: nulls == .skip || deletions)
            if value != nil || deletions {
                keep(key, value, in: &members)
            } else if key.inArena {
                unescaped.removeLast(key.count)  // a member left out (null, with `.skip`)
            }
            skipSpace()
            guard index < bytes.count else { throw failure("unterminated object") }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            guard bytes[index] == UInt8(ascii: ",") else { throw failure("expected ',' or '}' in object") }
            index += 1
            skipSpace()
        }
        var dictionary = PrefDictionary(sortedEntries: members.entries)
        if let base = members.spansBase {
            let deletedKeys: [String]
            (dictionary, deletedKeys) = try finish(&members, spansFrom: base, deletions: deletions)
            nullKeys += deletedKeys
            keySpans.removeLast(keySpans.count - base)
        }
        unescaped.removeLast(unescaped.count - unescapedBase)
        return .dictionary(dictionary)
    }

    /// Keeps a member (a null one only for `.rootMembers`): as an entry while keys increase, else as
    /// a value and its key's place.
    mutating func keep(_ key: Span, _ value: PrefValue?, in members: inout Members) {
        if let value, members.spansBase == nil, members.last.map({ compare($0, key) < 0 }) ?? true {
            members.entries.append(PrefDictionary.Entry(key: text(key), value: value))
            members.last = key
            return
        }
        if members.spansBase == nil { members.spansBase = spans(of: members.entries) }
        var key = key
        key.isNull = value == nil
        keySpans.append(key)
        members.values.append(value ?? .bool(false))  // a null member's placeholder is never kept: `finish` leaves it out
    }

    /// Appends the places of the entries' keys to `keySpans` (their bytes copied to `unescaped`, for
    /// the sort); returns where they start.
    mutating func spans(of entries: [PrefDictionary.Entry]) -> Int {
        let base = keySpans.count
        for entry in entries {
            var key = entry.key
            let offset = unescaped.count
            key.withUTF8 { unescaped.append(contentsOf: $0) }
            keySpans.append(Span(offset: offset, count: unescaped.count - offset, inArena: true))
        }
        return base
    }

    /// The dictionary of all the members (their keys are `keySpans[base...]`), sorted; of equal
    /// keys the last in the document wins (or, with `duplicates` `.refuse`, the first repeated one is
    /// an error). With `deletions`, a null member that wins deletes its key: those keys are
    /// returned, in document order.
    func finish(_ members: inout Members, spansFrom base: Int, deletions: Bool) throws -> (PrefDictionary, deletedKeys: [String]) {
        let count = members.entries.count + members.values.count
        return try unescaped.withUnsafeBufferPointer { arena in
            // The sort keys: on the stack for small objects.
            try withUnsafeTemporaryAllocation(of: SortKey.self, capacity: count) { keys in
                for i in 0..<count {
                    let span = keySpans[base + i]
                    (keys.baseAddress! + i).initialize(to: SortKey(rest: UInt64(i), start: start(of: span, arena: arena), count: span.count))
                }
                JSONParser.sort(keys)
                if duplicates == .refuse { try refuseRepeated(keys, spansFrom: base) }
                return entries(of: &members, in: keys, spansFrom: base, deletions: deletions)
            }
        }
    }

    /// The winners of `keys` (sorted): the last of each run of equal keys.
    func entries(of members: inout Members, in keys: UnsafeMutableBufferPointer<SortKey>, spansFrom base: Int, deletions: Bool)
        -> (PrefDictionary, deletedKeys: [String])
    {
        var entries = [PrefDictionary.Entry]()
        entries.reserveCapacity(keys.count)
        var deleted: [Int] = []
        let read = members.entries.count
        for (position, key) in keys.enumerated() where position + 1 == keys.count || !keys[position + 1].repeatsPrevious {
            if key.index < read {
                entries.append(JSONParser.take(key.index, from: &members.entries, leaving: PrefDictionary.Entry(key: "", value: false)))
            } else if deletions && keySpans[base + key.index].isNull {
                deleted.append(key.index)
            } else {
                let text = String(decoding: UnsafeBufferPointer(start: key.start, count: key.count), as: UTF8.self)
                entries.append(PrefDictionary.Entry(key: text, value: JSONParser.take(key.index - read, from: &members.values, leaving: false)))
            }
        }
        return (PrefDictionary(sortedEntries: entries), deleted.sorted().map { text(keySpans[base + $0]) })
    }

    /// Fails naming the key given again earliest in the document, at that place when its bytes are
    /// the document's (a key with escapes is named at the end of its object).
    func refuseRepeated(_ keys: UnsafeMutableBufferPointer<SortKey>, spansFrom base: Int) throws {
        guard let again = keys.filter(\.repeatsPrevious).min(by: { $0.index < $1.index }) else { return }
        let span = keySpans[base + again.index]
        let key = String(decoding: UnsafeBufferPointer(start: again.start, count: again.count), as: UTF8.self)
        throw failure("the key \"\(key)\" is given twice in one object", at: span.inArena ? nil : span.offset - 1)
    }

    /// Moves an element out (no reference counting), leaving a placeholder.
    @inline(__always)
    static func take<Element>(_ i: Int, from array: inout [Element], leaving placeholder: Element) -> Element {
        array.withUnsafeMutableBufferPointer { elements in
            let element = (elements.baseAddress! + i).move()
            (elements.baseAddress! + i).initialize(to: placeholder)
            return element
        }
    }

    /// Compares two keys by their bytes (code-point order): negative, zero or positive.
    func compare(_ a: Span, _ b: Span) -> Int {
        unescaped.withUnsafeBufferPointer { arena in
            JSONParser.compare(start(of: a, arena: arena), a.count, start(of: b, arena: arena), b.count)
        }
    }

    @inline(__always)
    func start(of span: Span, arena: UnsafeBufferPointer<UInt8>) -> UnsafePointer<UInt8>? {
        (span.inArena ? arena.baseAddress : bytes.baseAddress).map { $0 + span.offset }
    }

    @inline(__always)
    static func compare(_ a: UnsafePointer<UInt8>?, _ aCount: Int, _ b: UnsafePointer<UInt8>?, _ bCount: Int) -> Int {
        let common = Swift.min(aCount, bCount)
        if common > 0 {
            let c = memcmp(a!, b!, common)  // keys of one byte or more have a place
            if c != 0 { return Int(c) }
        }
        return aCount - bCount
    }
}
