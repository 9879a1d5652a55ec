import Glibc

/// The document and its root dictionary, as `XMLPlistParser.document` and `lookup` read them.
extension XMLPlistStreamLookup {
    mutating func document(key needle: [UInt8]) throws -> PrefValue? {
        if try startsWith("\u{FEFF}") { index += 3 }
        if try startsWith("<?xml") { try xmlDeclaration() }
        try skipMisc(allowDoctype: true)
        let first = try startTag()
        let value: PrefValue?
        if first.tag == .plist {
            guard !first.isEmpty else { throw Undecided() }
            try skipMisc(allowDoctype: false)
            guard try !startsWith("</") else { throw Undecided() }
            value = try root(try startTag(), needle: needle)
            try skipMisc(allowDoctype: false)
            guard try startsWith("</") else { throw Undecided() }
            try endTag(.plist)
        } else {
            value = try root(first, needle: needle)
        }
        try skipMisc(allowDoctype: false)
        guard try !have(1) else { throw Undecided() }
        return value
    }

    /// `<?xml …?>`, checked by `XMLPlistParser.xmlDeclaration` itself.
    mutating func xmlDeclaration() throws {
        let start = position
        try skipPast("?>")
        guard position - start <= 4096, let text = try reader.bytes(at: start, count: position - start) else { throw Undecided() }
        try text.withUnsafeBufferPointer { bytes in
            var parser = XMLPlistParser(bytes: bytes)
            do { try parser.xmlDeclaration() } catch { throw Undecided() }
        }
    }

    /// The root dictionary: every entry's key read, the value of `needle` decoded (the last, when a
    /// key appears twice; every one checked), the others skipped.
    mutating func root(_ root: StartTag, needle: [UInt8]) throws -> PrefValue? {
        guard root.tag == .dict else { throw Undecided() }
        if root.isEmpty { return nil }
        var found: PrefValue?
        var entries = 0
        var uid: PrefValue?
        while true {
            _ = try have(4096)
            entries += needle.withUnsafeBufferPointer { skipPlainEntries($0) }
            try skipMisc(allowDoctype: false)
            if try startsWith("</") {
                try endTag(.dict)
                break
            }
            let (matches, isUID) = try entryKey(needle)
            entries += 1
            try skipMisc(allowDoctype: false)
            guard try !startsWith("</") else { throw Undecided() }
            let valueTag = try startTag()
            guard valueTag.tag != .key else { throw Undecided() }
            try skip(valueTag, depth: 1)
            if matches || isUID {
                let value = try decode(from: valueTag.offset)
                if matches { found = value }
                if isUID { uid = value }
            }
        }
        if entries == 1, let uid, XMLPlistParser.uidNumber(uid) != nil { throw Undecided() }
        return found
    }

    /// Reads `<key>…</key>` — its text decoded (entities) and checked as UTF-8 — and tells whether it
    /// is `needle`, and whether it is `CF$UID`.
    mutating func entryKey(_ needle: [UInt8]) throws -> (matches: Bool, isUID: Bool) {
        let keyTag = try startTag()
        guard keyTag.tag == .key else { throw Undecided() }
        if keyTag.isEmpty { return (needle.isEmpty, false) }
        // The text runs to the next `<`, which must start `</`: markup inside a key is left to the
        // whole-document reader.
        var length = 0
        while true {
            if let hit = memchr(storage + index + length, Int32(UInt8(ascii: "<")), end - index - length) {
                length = (storage + index).distance(to: hit.assumingMemoryBound(to: UInt8.self))
                break
            }
            length = end - index
            guard !atEnd else { throw Undecided() }
            try refill()
        }
        guard try have(length + 2), storage[index + length + 1] == UInt8(ascii: "/") else { throw Undecided() }
        let text = UnsafeBufferPointer(start: storage + index, count: length)
        let result: (Bool, Bool)
        if memchr(text.baseAddress!, Int32(UInt8(ascii: "&")), length) == nil {
            guard XMLPlistStreamLookup.isASCII(text) || UTF8Text.isValid(text) else { throw Undecided() }
            result = (needle.withUnsafeBufferPointer { XMLPlistParser.same(text, $0) }, XMLPlistParser.same(text, XMLPlistParser.uidKey))
        } else {
            let decoded = try XMLPlistStreamLookup.decodedKey(text)
            result = decoded.withUnsafeBufferPointer { decoded in
                (needle.withUnsafeBufferPointer { XMLPlistParser.same(decoded, $0) }, XMLPlistParser.same(decoded, XMLPlistParser.uidKey))
            }
        }
        index += length
        try endTag(.key)
        return result
    }

    /// A key's text with entities, decoded and checked by `XMLPlistParser.content` itself.
    static func decodedKey(_ text: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        let element = Array("<key>".utf8) + Array(text) + Array("</key>".utf8)
        return try element.withUnsafeBufferPointer { bytes in
            var parser = XMLPlistParser(bytes: bytes)
            do {
                let (range, owned) = try parser.content(try parser.startTag())
                let decoded = range.map { Array(bytes[$0]) } ?? owned
                guard parser.index == bytes.count, decoded.withUnsafeBufferPointer(UTF8Text.isValid) else { throw Undecided() }
                return decoded
            } catch {
                throw Undecided()
            }
        }
    }

    /// The value whose start tag is at file offset `start` and which ends at `position`, read again
    /// and decoded by `XMLPlistParser.value` with every check (at depth 1, as under the root).
    mutating func decode(from start: Int) throws -> PrefValue {
        guard let bytes = try reader.bytes(at: start, count: position - start) else { throw Undecided() }
        return try bytes.withUnsafeBufferPointer { bytes in
            var parser = XMLPlistParser(bytes: bytes)
            do {
                let value = try parser.value(try parser.startTag(), depth: 1)
                guard parser.index == bytes.count else { throw Undecided() }
                return value
            } catch {
                throw Undecided()
            }
        }
    }

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawPointer(text.baseAddress!)
        var i = 0
        var bits: UInt64 = 0
        while i + 8 <= text.count {
            bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < text.count {
            bits |= UInt64(text[i])
            i += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }
}

/// The common entry, read straight from the window: `<key>TEXT</key>` (plain ASCII text), whitespace,
/// and a scalar value — `<string>TEXT</string>` and the like with no markup in the text, or `<true/>`
/// or `<false/>`. Anything else is left to the general reader, as is the key asked for.
extension XMLPlistStreamLookup {
    /// Moves past the run of such entries at `index` that are whole in the window and are neither
    /// `needle` nor `CF$UID`; how many.
    mutating func skipPlainEntries(_ needle: UnsafeBufferPointer<UInt8>) -> Int {
        let p = storage + index
        let n = end - index - 16  // every test below reads up to 16 bytes from a position below n
        let key = Plain.key
        let string = Plain.string, integer = Plain.integer, real = Plain.real, date = Plain.date, data = Plain.data
        let yes = Plain.true, no = Plain.false
        var done = 0, count = 0
        while true {
            var i = done
            while i < n && XMLPlistParser.isSpace(p[i]) { i += 1 }
            guard i < n, key.opens(p + i) else { break }
            let keyStart = i + 5
            let keyEnd = keyStart + XMLPlistStreamLookup.plainTextLength(p + keyStart, n - keyStart)
            guard keyEnd < n, key.closes(p + keyEnd) else { break }
            let length = keyEnd - keyStart
            if length == needle.count && (length == 0 || XMLPlistStreamLookup.same(p + keyStart, needle.baseAddress!, length)) { break }
            if length == 6 && XMLPlistStreamLookup.same(p + keyStart, XMLPlistParser.uidKey.baseAddress!, 6) { break }
            i = keyEnd + 6
            while i < n && XMLPlistParser.isSpace(p[i]) { i += 1 }
            guard i < n, p[i] == UInt8(ascii: "<") else { break }
            let value: Plain
            switch p[i + 1] {
            case UInt8(ascii: "s"): value = string
            case UInt8(ascii: "i"): value = integer
            case UInt8(ascii: "r"): value = real
            case UInt8(ascii: "t"): value = yes
            case UInt8(ascii: "f"): value = no
            case UInt8(ascii: "d"): value = p[i + 4] == UInt8(ascii: "e") ? date : data
            default: return finish(done, count)
            }
            guard value.opens(p + i) else { break }
            i += value.openLength
            if !value.isEmpty {
                i += XMLPlistStreamLookup.textLength(p + i, n - i)
                guard i < n, value.closes(p + i) else { break }
                i += value.openLength + 1
            }
            done = i
            count += 1
        }
        return finish(done, count)
    }

    @inline(__always)
    private mutating func finish(_ done: Int, _ count: Int) -> Int {
        index += done
        return count
    }

    /// Whether `count` bytes at `a` and `b` are the same, eight at a time.
    @inline(__always)
    static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var i = 0
        while i + 8 <= count {
            if UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self) { return false }
            i += 8
        }
        while i < count {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }

    /// How many bytes from `p` (of at least `n`) come before a `<` (`n` when none does), eight at a
    /// time: the text of a short value, where calling `memchr` would cost more than the search.
    @inline(__always)
    static func textLength(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let lt = ones &* 0x3C
        var i = 0
        while i < n {
            let a = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) ^ lt
            let found = (a &- ones) & ~a & highs
            if found != 0 { return Swift.min(n, i + found.trailingZeroBitCount / 8) }
            i += 8
        }
        return n
    }

    /// How many bytes from `p` (of at least `n`) are plain key text: below 0x80, neither `<` nor `&`.
    @inline(__always)
    static func plainTextLength(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let lt = ones &* 0x3C, amp = ones &* 0x26
        var i = 0
        while i < n {
            let v = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            let a = v ^ lt, b = v ^ amp
            let special = ((a &- ones) & ~a | (b &- ones) & ~b | v) & highs
            if special != 0 { return i + special.trailingZeroBitCount / 8 }
            i += 8
        }
        return n
    }

    /// The start and end tags of a plain element, as up to 16 bytes compared under a mask.
    struct Plain {
        let open: (UInt64, UInt64)
        let openMask: (UInt64, UInt64)
        let close: (UInt64, UInt64)
        let closeMask: (UInt64, UInt64)
        /// The start tag's length (the end tag's is one more); an empty element has no end tag.
        let openLength: Int
        let isEmpty: Bool

        init(_ tag: StaticString, empty: Bool = false) {
            let name = Array(UnsafeBufferPointer(start: tag.utf8Start, count: tag.utf8CodeUnitCount))
            let open = Array("<".utf8) + name + Array((empty ? "/>" : ">").utf8)
            let close = Array("</".utf8) + name + Array(">".utf8)
            (self.open, openMask) = Plain.words(open)
            (self.close, closeMask) = Plain.words(close)
            openLength = open.count
            isEmpty = empty
        }

        static func words(_ bytes: [UInt8]) -> ((UInt64, UInt64), (UInt64, UInt64)) {
            var value: (UInt64, UInt64) = (0, 0), mask: (UInt64, UInt64) = (0, 0)
            for (i, byte) in bytes.enumerated() {
                if i < 8 {
                    value.0 |= UInt64(byte) << (8 * UInt64(i))
                    mask.0 |= 0xFF << (8 * UInt64(i))
                } else {
                    value.1 |= UInt64(byte) << (8 * UInt64(i - 8))
                    mask.1 |= 0xFF << (8 * UInt64(i - 8))
                }
            }
            return ((UInt64(littleEndian: value.0), UInt64(littleEndian: value.1)), (UInt64(littleEndian: mask.0), UInt64(littleEndian: mask.1)))
        }

        @inline(__always)
        static func matches(_ p: UnsafePointer<UInt8>, _ value: (UInt64, UInt64), _ mask: (UInt64, UInt64)) -> Bool {
            let raw = UnsafeRawPointer(p)
            return (raw.loadUnaligned(as: UInt64.self) ^ value.0) & mask.0 | (raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) ^ value.1) & mask.1 == 0
        }

        @inline(__always) func opens(_ p: UnsafePointer<UInt8>) -> Bool { Plain.matches(p, open, openMask) }
        @inline(__always) func closes(_ p: UnsafePointer<UInt8>) -> Bool { Plain.matches(p, close, closeMask) }

        static let key = Plain("key")
        static let string = Plain("string"), integer = Plain("integer"), real = Plain("real")
        static let date = Plain("date"), data = Plain("data")
        static let `true` = Plain("true", empty: true), `false` = Plain("false", empty: true)

    }
}
