import Glibc

/// Objects. Members are collected in document order as values and the places of their keys' bytes.
/// When the keys come strictly increasing (documents prefs wrote) that is the dictionary's order;
/// otherwise the members are sorted once by their keys' bytes, compared in place (no String work
/// and no reference counting inside the sort), and the last of equal keys wins. Key Strings are
/// made last, in the dictionary's order, and values are moved, not copied: entries then sit in
/// memory in the order they are used and freed.
extension JSONParser {
    mutating func object(depth: Int) throws -> PrefValue {
        try enter(depth)
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .dictionary(PrefDictionary()) }
        let deletions = nulls == .rootMembers && depth == 0
        let spansBase = keySpans.count, unescapedBase = unescaped.count
        var values = [PrefValue]()
        var increasing = true
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            var key = try scanString()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
            index += 1
            skipSpace()
            let value = try value(depth: depth + 1, nullAllowed: nulls == .skip || deletions)
            if value != nil || deletions {
                key.isNull = value == nil
                increasing = increasing && !key.isNull && (keySpans.count == spansBase || compare(keySpans[keySpans.count - 1], key) < 0)
                keySpans.append(key)
                // A null member's placeholder value is never kept: `finish` leaves it out.
                values.append(value ?? .bool(false))
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
        let (dictionary, deletedKeys) = finish(&values, spansFrom: spansBase, inOrder: increasing, deletions: deletions)
        nullKeys += deletedKeys
        keySpans.removeLast(keySpans.count - spansBase)
        unescaped.removeLast(unescaped.count - unescapedBase)
        return .dictionary(dictionary)
    }

    /// The dictionary of the members (their keys are `keySpans[base...]`), sorted unless they are
    /// `inOrder`; of equal keys the last in the document wins. With `deletions`, a null member that
    /// wins deletes its key: those keys are returned, in document order. The values are moved out
    /// of `values`.
    func finish(_ values: inout [PrefValue], spansFrom base: Int, inOrder: Bool, deletions: Bool)
        -> (PrefDictionary, deletedKeys: [String])
    {
        unescaped.withUnsafeBufferPointer { arena in
            var keys = [SortKey]()
            keys.reserveCapacity(values.count)
            for i in values.indices {
                let span = keySpans[base + i]
                keys.append(SortKey(rest: UInt64(i), start: start(of: span, arena: arena), count: span.count))
            }
            if !inOrder { JSONParser.sort(&keys) }
            var entries = [PrefDictionary.Entry]()
            entries.reserveCapacity(keys.count)
            var deleted: [Int] = []
            values.withUnsafeMutableBufferPointer { values in
                for (position, key) in keys.enumerated() where position + 1 == keys.count || !keys[position + 1].repeatsPrevious {
                    // The last of a run of equal keys.
                    if deletions && keySpans[base + key.index].isNull { deleted.append(key.index); continue }
                    let value = (values.baseAddress! + key.index).move()
                    (values.baseAddress! + key.index).initialize(to: .bool(false))
                    let text = String(decoding: UnsafeBufferPointer(start: key.start, count: key.count), as: UTF8.self)
                    entries.append(PrefDictionary.Entry(key: text, value: value))
                }
            }
            return (PrefDictionary(sortedEntries: entries), deleted.sorted().map { text(keySpans[base + $0]) })
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
