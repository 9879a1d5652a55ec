import CPrefsSystem
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
            entries += needle.withUnsafeBufferPointer { skipPlainEntries($0, before: ahead?.next) }
            if let speculation = ahead, position >= speculation.next {
                // Where the other thread's next jump starts: its entries are skipped. Past it: the
                // thread began inside something else, and its jumps are dropped.
                if position == speculation.next, let jump = speculation.take() {
                    self.jump(to: jump.to)
                    entries += jump.entries
                    tookAhead = true
                    if speculation.next == Int.max { ahead = nil }
                } else {
                    speculation.finish()
                    ahead = nil
                }
            }
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
/// or `<false/>`. Anything else is left to the general reader, as is the key asked for. The scan is
/// in C (`prefs_xml_skip_plain_entries`), on the CPU's vector instructions.
extension XMLPlistStreamLookup {
    /// Moves past the run of such entries at `index` that are whole in the window and are neither
    /// `needle` (none when nil) nor `CF$UID`, that start before the file offset `limit`, and at most
    /// `most` of them; how many.
    mutating func skipPlainEntries(_ needle: UnsafeBufferPointer<UInt8>?, before limit: Int?, atMost most: Int = Int.max) -> Int {
        var count = 0
        var available = end - index
        // The scan looks for tags only below its last 16 bytes.
        if let limit { available = Swift.min(available, Swift.max(0, limit - position + 16)) }
        index += prefs_xml_skip_plain_entries(storage + index, available, needle?.baseAddress, needle?.count ?? prefs_no_needle(), most, &count)
        return count
    }
}
