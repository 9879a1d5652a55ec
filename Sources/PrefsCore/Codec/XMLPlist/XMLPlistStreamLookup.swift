import Glibc

/// Reading one top-level key of an XML plist through a `FileReader` and a small buffer, so memory does
/// not grow with the file: the in-memory lookup (`XMLPlistParser.lookup`) done as a stream. The same
/// checks: the element structure of the whole document (every tag known, every element closed, one
/// root, nothing after it), every key of the top dictionary read (its text decoded and checked as
/// UTF-8), and the value asked for decoded by `XMLPlistParser` itself with every check, from its bytes
/// read again once found; the text of other values is skipped, not interpreted. Whatever that lookup
/// would refuse — and a few rare forms (markup inside a key, a declaration or tag longer than the
/// buffer) — is `Undecided`: the caller then reads the file whole, for the exact error.
struct XMLPlistStreamLookup: ~Copyable {
    let reader: FileReader
    /// The window of the file in memory: `storage[0..<end]` is the file from `base`; `index` is the
    /// next byte to read.
    var storage: UnsafeMutablePointer<UInt8>
    var capacity: Int
    var base = 0
    var index = 0
    var end = 0
    var atEnd = false
    /// The second part's plain entries, being skipped on another thread (see `XMLPlistSpeculation`).
    var ahead: XMLPlistSpeculation?
    /// Whether this lookup took the other thread's result (for tests).
    var tookAhead = false

    /// Where a second thread starts skipping entries: `automatic` is about half way through a document of
    /// `XMLPlistSpeculation.worthwhile` bytes or more, when there is another CPU; `at` an offset is
    /// for tests and the fuzzer (the thread runs even on one CPU).
    enum Split: Equatable, Sendable {
        case automatic
        case none
        case at(Int)
    }

    static func lookup(_ key: String, in reader: FileReader, bufferSize: Int = 1 << 17, split: Split = .automatic) throws -> PrefValue? {
        var tookAhead = false
        return try lookup(key, in: reader, bufferSize: bufferSize, split: split, tookAhead: &tookAhead)
    }

    static func lookup(_ key: String, in reader: FileReader, bufferSize: Int, split: Split, tookAhead: inout Bool) throws -> PrefValue? {
        let needle = Array(key.utf8)
        var stream = XMLPlistStreamLookup(reader, bufferSize: bufferSize)
        switch split {
        case .automatic where reader.size >= XMLPlistSpeculation.worthwhile:
            // A little past half way: the thread starts after this one and on colder caches, so
            // it is given the smaller part.
            stream.ahead = XMLPlistSpeculation(reader: reader, from: reader.size / 100 * 53, needle: needle, bufferSize: bufferSize, evenOnOneCPU: false)
        case .at(let offset):
            stream.ahead = XMLPlistSpeculation(reader: reader, from: offset, needle: needle, bufferSize: bufferSize, evenOnOneCPU: true)
        default:
            break
        }
        defer { stream.ahead?.finish() }
        let value = try stream.document(key: needle)
        tookAhead = stream.tookAhead
        return value
    }

    init(_ reader: FileReader, bufferSize: Int) {
        self.reader = reader
        capacity = Swift.max(bufferSize, 16)
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    // MARK: The window

    /// Empties the window, to go on reading from the file offset `offset` (ahead of `position`).
    mutating func jump(to offset: Int) {
        base = offset
        index = 0
        end = 0
        atEnd = false
    }

    /// Keeps the bytes from `index` on, and reads more after them (growing the window when they fill
    /// it); `atEnd` once the file has no more.
    mutating func refill() throws {
        if index > 0 {
            if end > index { memmove(storage, storage + index, end - index) }
            base += index
            end -= index
            index = 0
        }
        if end == capacity {
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * capacity)
            larger.update(from: storage, count: end)
            storage.deallocate()
            storage = larger
            capacity *= 2
        }
        let wanted = Swift.min(capacity - end, reader.size - (base + end))
        let count = try reader.read(at: base + end, into: UnsafeMutableRawBufferPointer(start: storage + end, count: Swift.max(wanted, 0)))
        end += count
        if count < wanted || wanted <= 0 { atEnd = true }
    }

    /// Whether `count` bytes from `index` are in the window (reading more if needed); false only at
    /// the end of the file.
    @inline(__always)
    mutating func have(_ count: Int) throws -> Bool {
        while end - index < count {
            if atEnd { return false }
            try refill()
        }
        return true
    }

    /// The file offset of `index`.
    var position: Int { base + index }

    @inline(__always)
    mutating func startsWith(_ text: StaticString) throws -> Bool {
        let count = text.utf8CodeUnitCount
        guard try have(count) else { return false }
        return memcmp(storage + index, text.utf8Start, count) == 0
    }

    mutating func skipSpace() throws {
        while true {
            while index < end && XMLPlistParser.isSpace(storage[index]) { index += 1 }
            if index < end || atEnd { return }
            try refill()
        }
    }

    /// Moves past the next `text` at or after `index`; `Undecided` when there is none.
    mutating func skipPast(_ text: StaticString) throws {
        let count = text.utf8CodeUnitCount
        let pattern = text.utf8Start
        while true {
            let limit = end - count + 1
            while index < limit, let hit = memchr(storage + index, Int32(pattern[0]), limit - index) {
                let at = storage.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(storage + at, pattern, count) == 0 {
                    index = at + count
                    return
                }
                index = at + 1
            }
            index = Swift.max(index, Swift.min(limit, end))
            if atEnd { throw Undecided() }
            try refill()
        }
    }

    /// The length of the run of name bytes at `index`.
    mutating func nameLength() throws -> Int {
        var length = 0
        while try have(length + 1), XMLPlistParser.isNameByte(storage[index + length]) { length += 1 }
        return length
    }

    func tag(_ length: Int) -> XMLPlistParser.Tag? {
        XMLPlistParser.Tag(UnsafeBufferPointer(start: storage + index, count: length))
    }
}
