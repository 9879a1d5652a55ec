/// The order of an object's members by key bytes, for documents whose keys are not already in
/// order. Small objects: insertion sort comparing whole keys. Large ones: an MSD radix sort on
/// 8-byte chunks of the keys, starting after the prefix all keys share, each level an LSD radix sort
/// (bytewise, stable) of the chunks. A key's bytes are read once per level, not once per comparison:
/// with 100k keys all over a large document, each read is a cache miss.
extension JSONParser {
    /// One member in the sort.
    struct SortKey {
        /// The key's 8 bytes from the offset being sorted on, big-endian, zero-padded.
        var chunk: UInt64 = 0
        /// From the high bits down: whether the key equals the previous one in the final order (bit
        /// 63); how many of its bytes are left from the offset, 9 meaning more than 8 (bits 40–47);
        /// the member's index (bits 0–39). Compared after `chunk`, it puts a key before the longer
        /// keys it is a prefix of, and equal keys in document order.
        var rest: UInt64
        /// The key's bytes: in the document or in `unescaped`, which do not change while the
        /// object is finished.
        let start: UnsafePointer<UInt8>?
        let count: Int

        var index: Int { Int(rest & (1 << 40 - 1)) }
        var remaining: UInt64 { rest >> 40 & 0xFF }
        var repeatsPrevious: Bool { rest >> 63 == 1 }
    }

    /// Up to this many keys are sorted by comparing whole keys (most nested objects), and up to this
    /// many keys equal so far by insertion at a radix level.
    static let fewKeys = 64

    /// Orders `keys` (in document order) by key bytes, equal keys in document order and marked
    /// `repeatsPrevious` after the first.
    static func sort(_ keys: UnsafeMutableBufferPointer<SortKey>) {
        guard keys.count > fewKeys else { return sortComparingKeys(keys) }
        let prefix = commonPrefix(keys)
        let scratch = UnsafeMutableBufferPointer<SortKey>.allocate(capacity: keys.count)
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: 9 * 256)  // per digit, per byte value
        counts.initialize(repeating: 0)
        defer { scratch.deallocate(); counts.deallocate() }
        // Ranges of keys equal up to `offset`, each longer than that, still to sort.
        var pending = [(range: 0..<keys.count, offset: prefix)]
        while let (range, offset) = pending.popLast() {
            let level = UnsafeMutableBufferPointer(rebasing: keys[range])
            let radix = level.count > fewKeys
            for i in level.indices {
                let remaining = Swift.min(level[i].count - offset, 9)
                level[i].chunk = chunk(level[i].start.map { $0 + offset }, remaining)
                level[i].rest = UInt64(remaining) << 40 | UInt64(level[i].index)
                if radix { countDigits(of: level[i], in: counts) }
            }
            if radix {
                radixSort(level, scratch: UnsafeMutableBufferPointer(rebasing: scratch[range]), counts: counts)
            } else {
                insertionSort(level)
            }
            splitRuns(keys, range, offset: offset, into: &pending)
        }
    }

    /// How many bytes all keys begin with.
    static func commonPrefix(_ keys: UnsafeMutableBufferPointer<SortKey>) -> Int {
        var length = keys[0].count
        for key in keys.dropFirst() {
            length = Swift.min(length, key.count)
            guard length > 0 else { break }
            var i = 0
            while i < length && key.start![i] == keys[0].start![i] { i += 1 }
            length = i
        }
        return length
    }

    /// After a level is sorted: marks the keys that end in it and equal the one before, and queues
    /// the runs of keys equal so far that go on.
    static func splitRuns(_ keys: UnsafeMutableBufferPointer<SortKey>, _ range: Range<Int>, offset: Int,
                          into pending: inout [(range: Range<Int>, offset: Int)]) {
        var first = range.lowerBound
        while first < range.upperBound {
            var end = first + 1
            while end < range.upperBound && keys[end].chunk == keys[first].chunk
                && keys[end].remaining == keys[first].remaining { end += 1 }
            if keys[first].remaining <= 8 {
                for i in first + 1..<end { keys[i].rest |= 1 << 63 }  // equal keys
            } else if end - first > 1 {
                pending.append((first..<end, offset + 8))
            }
            first = end
        }
    }

    /// Digit 0 is `remaining`, digits 1...8 the chunk's bytes from the least significant.
    @inline(__always)
    static func countDigits(of key: SortKey, in counts: UnsafeMutableBufferPointer<Int>) {
        counts[Int(key.remaining)] &+= 1
        var chunk = key.chunk
        for d in 1...8 {
            counts[d &* 256 &+ Int(truncatingIfNeeded: chunk & 0xFF)] &+= 1
            chunk >>= 8
        }
    }

    /// Sorts by (chunk, remaining), keeping the order of ties (document order, at every level): one
    /// stable counting pass per digit that is not the same in all keys. `counts` holds the keys'
    /// digits counted; it is left zeroed.
    static func radixSort(_ keys: UnsafeMutableBufferPointer<SortKey>, scratch: UnsafeMutableBufferPointer<SortKey>,
                          counts: UnsafeMutableBufferPointer<Int>) {
        var (source, target) = (keys, scratch)
        for d in 0...8 {
            let histogram = UnsafeMutableBufferPointer(rebasing: counts[d * 256..<(d + 1) * 256])
            let shift = UInt64(8 * Swift.max(d - 1, 0))
            func digit(_ key: SortKey) -> Int { d == 0 ? Int(key.remaining) : Int(truncatingIfNeeded: key.chunk >> shift & 0xFF) }
            if histogram[digit(source[0])] == keys.count {  // all keys share this digit
                histogram[digit(source[0])] = 0
                continue
            }
            var sum = 0
            for b in 0..<256 { (histogram[b], sum) = (sum, sum + histogram[b]) }
            for key in source {
                let b = digit(key)
                target[histogram[b]] = key
                histogram[b] &+= 1
            }
            histogram.update(repeating: 0)
            swap(&source, &target)
        }
        if source.baseAddress != keys.baseAddress { _ = keys.update(fromContentsOf: source) }
    }

    /// Sorts on (chunk, rest): `rest` adds the index after `remaining`.
    static func insertionSort(_ keys: UnsafeMutableBufferPointer<SortKey>) {
        for i in keys.indices.dropFirst() {
            let key = keys[i]
            var j = i
            while j > 0 && (keys[j - 1].chunk > key.chunk || keys[j - 1].chunk == key.chunk && keys[j - 1].rest > key.rest) {
                keys[j] = keys[j - 1]
                j -= 1
            }
            keys[j] = key
        }
    }

    /// Insertion sort comparing whole keys, equal keys in document order; marks the repeated ones.
    static func sortComparingKeys(_ keys: UnsafeMutableBufferPointer<SortKey>) {
        func compare(_ a: SortKey, _ b: SortKey) -> Int { JSONParser.compare(a.start, a.count, b.start, b.count) }
        for i in keys.indices.dropFirst() {
            let key = keys[i]
            var j = i
            while j > 0, case let c = compare(key, keys[j - 1]), c < 0 || c == 0 && key.index < keys[j - 1].index {
                keys[j] = keys[j - 1]
                j -= 1
            }
            keys[j] = key
        }
        for i in keys.indices.dropFirst() where compare(keys[i - 1], keys[i]) == 0 { keys[i].rest |= 1 << 63 }
    }

    /// `count` bytes from `p` (8 of them when count is 9, none when it is 0 or less), big-endian,
    /// zero-padded to 8.
    @inline(__always)
    static func chunk(_ p: UnsafePointer<UInt8>?, _ count: Int) -> UInt64 {
        guard let p, count > 0 else { return 0 }
        if count >= 8 { return UInt64(bigEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)) }
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | (i < count ? UInt64(p[i]) : 0) }
        return value
    }
}
