/// The top-level entries of an XML plist whose root is a dictionary that a change declares, found
/// while checking the whole document, and the splices that change them. Only what those keys need is
/// kept (where they are, and where each would be inserted), not every entry: a one-key change of a
/// large suite costs little memory beyond the file.
struct XMLPlistPatch {
    /// A change at a range of the file: its new text, and its place among changes at one position.
    struct Splice {
        let range: Range<Int>
        let order: Int
        let text: [UInt8]
    }

    struct Entry {
        let keyStart: Int
        let valueStart: Int
        let valueEnd: Int
    }

    /// What the document says about one declared key (by its UTF-8 bytes).
    struct Declared {
        var entries: [Entry] = []
        /// Where the first entry (in file order) whose key sorts after this one starts.
        var insertBefore: Int?
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// Each declared key's, in the order of the `KeySet`'s `sorted` (an `Edit`'s `slot`).
    let declared: [Declared]
    let entryCount: Int
    /// Where the root's `</dict>` starts.
    let closeStart: Int
    /// The declared keys that are present, with their values.
    let current: PrefDictionary

    /// Checks the document; nil when it cannot be patched (an empty `<dict/>` root, a declared key
    /// that appears more than once).
    init?(_ bytes: UnsafeBufferPointer<UInt8>, keys: KeySet) throws {
        var parser = XMLPlistParser(bytes: bytes)
        let needles = keys.map { Array($0.utf8) }
        guard let (declared, entryCount, closeStart) = try parser.document({ parser, root in try parser.outline(root, declared: needles) }) else {
            return nil
        }
        var found: [PrefDictionary.Entry] = []
        for slot in declared.indices {
            let key = keys.sorted[slot], entries = declared[slot].entries
            guard entries.count <= 1 else { return nil }
            if let entry = entries.first {
                var reader = XMLPlistParser(bytes: bytes)
                reader.index = entry.valueStart
                found.append(.init(key: key, value: try reader.value(try reader.startTag(), depth: 1)))
            }
        }
        self.bytes = bytes
        self.declared = declared
        self.entryCount = entryCount
        self.closeStart = closeStart
        current = PrefDictionary(unsortedEntries: found)
    }

    /// The document with `edits` spliced in; nil when the root would be left with a single entry
    /// (which might spell a UID: the full encoder decides).
    func applying(_ edits: [TopLevelPatch.Edit]) throws -> PatchedDocument? {
        var remaining = entryCount
        for edit in edits {
            switch (declared[edit.slot].entries.first, edit.value) {
            case (nil, _?): remaining += 1
            case (_?, nil): remaining -= 1
            default: break
            }
        }
        guard remaining != 1 else { return nil }
        var splices: [Splice] = []
        for edit in edits {
            let key = edit.key, found = declared[edit.slot]
            switch (found.entries.first, edit.value) {
            case let (entry?, value?):
                var text = [UInt8]()
                try PrefKeyPath.locating(key) { try XMLPlistEncoder.write(value, depth: 1, to: &text) }
                splices.append(Splice(range: entry.valueStart..<entry.valueEnd, order: splices.count, text: Array(text.dropFirst().dropLast())))
            case let (entry?, nil):
                if let start = lineStart(entry.keyStart), let end = lineEnd(entry.valueEnd) {
                    splices.append(Splice(range: start..<end, order: splices.count, text: []))
                } else {
                    splices.append(Splice(range: entry.keyStart..<entry.valueEnd, order: splices.count, text: []))
                }
            case let (nil, value?):
                let position = found.insertBefore ?? closeStart
                var text = [UInt8]()
                XMLPlistEncoder.element("key", key, depth: 1, &text)
                try PrefKeyPath.locating(key) { try XMLPlistEncoder.write(value, depth: 1, to: &text) }
                if let start = lineStart(position) {
                    splices.append(Splice(range: start..<start, order: splices.count, text: text))
                } else {
                    splices.append(Splice(range: position..<position, order: splices.count, text: Array(text.dropFirst().dropLast())))
                }
            case (nil, nil):
                break
            }
        }
        // In file order; at one position an insertion (empty range) before a removal, and
        // insertions in the order made (edits come in key order).
        splices.sort { ($0.range.lowerBound, $0.range.upperBound, $0.order) < ($1.range.lowerBound, $1.range.upperBound, $1.order) }
        var out = PatchedDocument(bytes)
        var mark = 0
        for splice in splices {
            out.append(original: mark..<splice.range.lowerBound)
            out.append(splice.text)
            mark = splice.range.upperBound
        }
        out.append(original: mark..<bytes.count)
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
    /// Checks a root dictionary and every value in it as `value` would, recording where each
    /// `declared` key's entries are and where it would be inserted (in the order of `needles`); nil
    /// for an empty `<dict/>` root.
    mutating func outline(_ root: StartTag, declared needles: [[UInt8]])
        throws -> (declared: [XMLPlistPatch.Declared], entryCount: Int, closeStart: Int)?
    {
        guard root.tag == .dict else {
            throw failure("the root is \(try value(root, depth: 0).typeNameWithArticle), not a dictionary", at: root.offset)
        }
        if root.isEmpty { return nil }
        var declared: [XMLPlistPatch.Declared] = needles.map { _ in XMLPlistPatch.Declared() }
        var count = 0
        var firstIsUID = false
        var firstValueStart = 0
        while true {
            try skipMisc(allowDoctype: false)
            if startsWith("</") {
                let closeStart = index
                try endTag(.dict)
                if count == 1, firstIsUID {
                    var reader = XMLPlistParser(bytes: bytes)
                    reader.index = firstValueStart
                    try refuseUIDRoot(entries: 1, uid: try reader.value(try reader.startTag(), depth: 1), root: root)
                }
                return (declared, count, closeStart)
            }
            let keyStart = index
            let (key, valueTag) = try entry()
            try skip(valueTag, depth: 1, checked: true)
            let entry = XMLPlistPatch.Entry(keyStart: keyStart, valueStart: valueTag.offset, valueEnd: index)
            key.withUnsafeBufferPointer { key in
                if count == 0 {
                    firstIsUID = XMLPlistParser.same(key, XMLPlistParser.uidKey)
                    firstValueStart = entry.valueStart
                }
                for i in needles.indices {
                    needles[i].withUnsafeBufferPointer { needle in
                        if XMLPlistParser.same(key, needle) {
                            declared[i].entries.append(entry)
                        } else if declared[i].insertBefore == nil && BinaryPlistParser.compare(key, needle) > 0 {
                            declared[i].insertBefore = keyStart
                        }
                    }
                }
            }
            count += 1
        }
    }
}
