/// The top-level entries of an XML plist whose root is a dictionary, found while checking the whole
/// document, and the splices that change some of them.
struct XMLPlistPatch {
    struct Entry {
        let key: XMLPlistParser.KeyText
        let keyStart: Int
        let valueStart: Int
        let valueEnd: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let entries: [Entry]
    /// Where the root's `</dict>` starts.
    let closeStart: Int
    /// The declared keys that are present, with their values.
    let current: PrefDictionary

    /// Checks the document; nil when it cannot be patched (an empty `<dict/>` root, a declared key
    /// that appears more than once).
    init?(_ bytes: UnsafeBufferPointer<UInt8>, keys: KeySet) throws {
        var parser = XMLPlistParser(bytes: bytes)
        guard let (entries, closeStart) = try parser.document({ parser, root in try parser.outline(root) }) else { return nil }
        var found: [PrefDictionary.Entry] = []
        for key in keys {
            var utf8 = key
            let matches = utf8.withUTF8 { needle in entries.filter { $0.key.withUnsafeBufferPointer { XMLPlistParser.same($0, needle) } } }
            guard matches.count <= 1 else { return nil }
            if let entry = matches.first {
                var reader = XMLPlistParser(bytes: bytes)
                reader.index = entry.valueStart
                found.append(.init(key: key, value: try reader.value(try reader.startTag(), depth: 1)))
            }
        }
        self.bytes = bytes
        self.entries = entries
        self.closeStart = closeStart
        current = PrefDictionary(unsortedEntries: found)
    }

    /// The document with `edits` spliced in; nil when the root would be left with a single entry
    /// (which might spell a UID: the full encoder decides).
    func applying(_ edits: [TopLevelPatch.Edit]) throws -> [UInt8]? {
        let located = edits.map { edit in
            var utf8 = edit.key
            let index = utf8.withUTF8 { needle in entries.firstIndex { $0.key.withUnsafeBufferPointer { XMLPlistParser.same($0, needle) } } }
            return (edit.key, edit.value, index)
        }
        var remaining = entries.count
        for (_, value, index) in located {
            switch (index, value) {
            case (nil, _?): remaining += 1
            case (_?, nil): remaining -= 1
            default: break
            }
        }
        guard remaining != 1 else { return nil }
        var splices: [(range: Range<Int>, order: Int, text: [UInt8])] = []
        for (key, value, index) in located {
            switch (index, value) {
            case let (index?, value?):
                var text = [UInt8]()
                try KeyPath.locating(key) { try XMLPlistEncoder.write(value, depth: 1, to: &text) }
                splices.append((entries[index].valueStart..<entries[index].valueEnd, splices.count, Array(text.dropFirst().dropLast())))
            case let (index?, nil):
                let entry = entries[index]
                if let start = lineStart(entry.keyStart), let end = lineEnd(entry.valueEnd) {
                    splices.append((start..<end, splices.count, []))
                } else {
                    splices.append((entry.keyStart..<entry.valueEnd, splices.count, []))
                }
            case let (nil, value?):
                var utf8 = key
                let before = utf8.withUTF8 { needle in
                    entries.first { $0.key.withUnsafeBufferPointer { BinaryPlistParser.compare($0, needle) > 0 } }
                }
                let position = before?.keyStart ?? closeStart
                var text = [UInt8]()
                XMLPlistEncoder.element("key", key, depth: 1, &text)
                try KeyPath.locating(key) { try XMLPlistEncoder.write(value, depth: 1, to: &text) }
                if let start = lineStart(position) {
                    splices.append((start..<start, splices.count, text))
                } else {
                    splices.append((position..<position, splices.count, Array(text.dropFirst().dropLast())))
                }
            case (nil, nil):
                break
            }
        }
        // In file order; at one position an insertion (empty range) before a removal, and
        // insertions in the order made (edits come in key order).
        splices.sort { ($0.range.lowerBound, $0.range.upperBound, $0.order) < ($1.range.lowerBound, $1.range.upperBound, $1.order) }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + splices.reduce(0) { $0 + $1.text.count })
        var mark = 0
        for splice in splices {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[mark..<splice.range.lowerBound]))
            out.append(contentsOf: splice.text)
            mark = splice.range.upperBound
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[mark...]))
        return out
    }

    /// The start of the line `position` is on, when only spaces and tabs precede it there.
    func lineStart(_ position: Int) -> Int? {
        var i = position
        while i > 0, bytes[i - 1] == 0x20 || bytes[i - 1] == 0x09 { i -= 1 }
        return i == 0 || bytes[i - 1] == 0x0A ? i : nil
    }

    /// The start of the next line, when only spaces, tabs or CR follow `position` on its line.
    func lineEnd(_ position: Int) -> Int? {
        var i = position
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 }
        return i < bytes.count && bytes[i] == 0x0A ? i + 1 : nil
    }
}

extension XMLPlistParser {
    /// Checks a root dictionary and every value in it as `value` would, recording where each entry
    /// is; nil for an empty `<dict/>` root.
    mutating func outline(_ root: StartTag) throws -> (entries: [XMLPlistPatch.Entry], closeStart: Int)? {
        guard root.tag == .dict else {
            throw failure("the root is \(try value(root, depth: 0).typeNameWithArticle), not a dictionary", at: root.offset)
        }
        if root.isEmpty { return nil }
        var entries: [XMLPlistPatch.Entry] = []
        while true {
            try skipMisc(allowDoctype: false)
            if startsWith("</") {
                let closeStart = index
                try endTag(.dict)
                if entries.count == 1, entries[0].key.withUnsafeBufferPointer({ XMLPlistParser.same($0, XMLPlistParser.uidKey) }) {
                    var reader = XMLPlistParser(bytes: bytes)
                    reader.index = entries[0].valueStart
                    try refuseUIDRoot(entries: 1, uid: try reader.value(try reader.startTag(), depth: 1), root: root)
                }
                return (entries, closeStart)
            }
            let keyStart = index
            let (key, valueTag) = try entry()
            try skip(valueTag, depth: 1, checked: true)
            entries.append(.init(key: key, keyStart: keyStart, valueStart: valueTag.offset, valueEnd: index))
        }
    }
}
