/// A binary plist whose root is a dictionary, checked whole, and rewritten by appending: every
/// existing object is kept byte for byte, the new values (and new keys) are added after them, and the
/// top dictionary either has its value references changed in place or — when keys come or go — is
/// written anew after them. The objects no longer reachable stay as garbage until the next full
/// re-encode: when garbage would exceed a quarter of the file, or more objects would need wider
/// references, the patch declines and the caller re-encodes (which compacts).
struct BinaryPlistPatch {
    let parser: BinaryPlistParser
    let count: Int
    let refsAt: Int
    let liveBytes: Int
    /// Another object lies over the top dictionary's value references, so they are not changed in
    /// place (a new dictionary is appended instead).
    let referencesShared: Bool
    /// Where each declared key sits among the root's entries (nil: absent), in the order of the
    /// `KeySet`'s `sorted` (an `Edit`'s `slot`).
    let indices: [Int?]
    let current: PrefDictionary

    init?(_ bytes: UnsafeBufferPointer<UInt8>, keys: KeySet) throws {
        var parser = try BinaryPlistParser(bytes, decodingWhole: false)
        var validation = BinaryPlistParser.Validation(objectCount: parser.objectCount)
        let start = try parser.offset(of: parser.topObject)
        let root = try parser.object(ref: parser.topObject, at: start)
        if case .dictionary(let count, let first) = root {
            // The value references, which an in-place patch rewrites.
            validation.protected = first + count * parser.refSize..<first + 2 * count * parser.refSize
            validation.protectedOwner = parser.topObject
        }
        _ = try parser.validate(ref: parser.topObject, depth: 0, &validation)
        guard case .dictionary(let count, let first) = root else {
            throw BinaryPlistParser.failure("the root is \(try parser.value(ref: parser.topObject, depth: 0).value.typeNameWithArticle), not a dictionary")
        }
        var indices: [Int?] = []
        var found: [PrefDictionary.Entry] = []
        for key in keys {
            var utf8 = key
            let matches = try utf8.withUTF8 { needle in
                try (0..<count).filter { i in
                    try parser.compareKey(try parser.ref(at: first + i * parser.refSize), needle, dictionary: Place(ref: parser.topObject, byte: start)) == 0
                }
            }
            guard matches.count <= 1 else { return nil }
            indices.append(matches.first)
            if let i = matches.first {
                found.append(.init(key: key, value: try parser.value(ref: try parser.ref(at: first + (count + i) * parser.refSize), depth: 1).value))
            }
        }
        self.parser = parser
        self.count = count
        refsAt = first
        liveBytes = validation.liveBytes
        referencesShared = validation.protectedIsShared
        self.indices = indices
        current = PrefDictionary(unsortedEntries: found)
    }

    func ref(_ index: Int) throws -> Int { try parser.ref(at: refsAt + index * parser.refSize) }

    func applying(_ edits: [TopLevelPatch.Edit]) throws -> PatchedDocument? {
        let bytes = parser.bytes
        var writer = BinaryPlistWriter()
        writer.indexBase = parser.objectCount
        var rewriteDictionary = referencesShared
        var changedRefs: [Int: Int] = [:]  // entry index → new value reference
        var removals: Set<Int> = []
        var insertions: [(key: String, keyRef: Int, valueRef: Int)] = []
        for edit in edits {
            let key = edit.key
            switch (indices[edit.slot], edit.value) {
            case let (index?, value?):
                changedRefs[index] = try PrefKeyPath.locating(key) { try writer.flatten(value, depth: 1) }
            case let (index?, nil):
                removals.insert(index)
                rewriteDictionary = true
            case let (nil, value?):
                let keyRef = try writer.flatten(.string(key), depth: 1)
                insertions.append((key, keyRef, try PrefKeyPath.locating(key) { try writer.flatten(value, depth: 1) }))
                rewriteDictionary = true
            case (nil, nil):
                break
            }
        }
        // The new dictionary's references, only when it is written anew (a value changed in place
        // needs none: a large suite then costs no array as long as it).
        var keyRefs: [Int] = [], valueRefs: [Int] = []
        if rewriteDictionary {
            keyRefs.reserveCapacity(count + insertions.count)
            valueRefs.reserveCapacity(count + insertions.count)
            for index in 0..<count where !removals.contains(index) {
                keyRefs.append(try ref(index))
                valueRefs.append(try changedRefs[index] ?? ref(count + index))
            }
        }
        // Edits come in key order, so each new key goes before the first original key above it and
        // after the new keys placed before it.
        for insertion in insertions {
            var utf8 = insertion.key
            let position = try utf8.withUTF8 { needle in
                try keyRefs.firstIndex { keyRef in
                    guard keyRef < parser.objectCount else { return false }
                    return try parser.compareKey(keyRef, needle, dictionary: Place(ref: parser.topObject, byte: 0)) > 0
                } ?? keyRefs.count
            }
            keyRefs.insert(insertion.keyRef, at: position)
            valueRefs.insert(insertion.valueRef, at: position)
        }
        let total = parser.objectCount + writer.objects.count + (rewriteDictionary ? 1 : 0)
        guard BinaryPlistWriter.width(UInt64(total)) <= parser.refSize else { return nil }
        // The objects as they were (with the top dictionary's value references changed in place),
        // then the new objects and the new offset table after them.
        var out = PatchedDocument(bytes)
        var mark = 0
        var top = parser.topObject
        if !rewriteDictionary {
            var patches: [(position: Int, ref: Int)] = []
            for (index, ref) in changedRefs { patches.append((refsAt + (count + index) * parser.refSize, ref)) }
            for (position, ref) in patches.sorted(by: { $0.position < $1.position }) {
                out.append(original: mark..<position)
                var patched: [UInt8] = []
                BinaryPlistWriter.appendUInt(UInt64(ref), width: parser.refSize, to: &patched)
                out.append(patched)
                mark = position + parser.refSize
            }
        }
        out.append(original: mark..<parser.offsetTable)
        var tail: [UInt8] = []
        let base = parser.offsetTable
        // The new objects' offsets follow the old ones, which are kept as they are in the table.
        var newOffsets: [Int] = []
        writer.appendObjects(to: &tail, base: base, refSize: parser.refSize, offsets: &newOffsets)
        let newValueBytes = tail.count
        if rewriteDictionary {
            top = parser.objectCount + newOffsets.count
            newOffsets.append(base + tail.count)
            BinaryPlistWriter.appendHeader(0xD0, count: keyRefs.count, to: &tail)
            for ref in keyRefs + valueRefs { BinaryPlistWriter.appendUInt(UInt64(ref), width: parser.refSize, to: &tail) }
        }
        // Garbage, estimated: what was unreachable before, the old top dictionary when it is replaced,
        // and old values about as large as the new ones. Past a quarter of the file, re-encode
        // instead (which drops it all).
        let oldDictionary = rewriteDictionary ? (refsAt + 2 * count * parser.refSize - (try parser.offset(of: parser.topObject))) : 0
        let garbage = (parser.offsetTable - 8 - liveBytes) + oldDictionary + newValueBytes
        guard garbage * 4 <= base + tail.count else { return nil }
        // The table: the old entries as they are when their width still fits the table's new offset
        // (as `appendTable` would write them), else every entry written anew.
        let tableOffset = base + tail.count
        let offsetSize = BinaryPlistWriter.width(UInt64(tableOffset))
        if offsetSize == parser.offsetSize {
            out.append(tail)
            tail = []
            out.append(original: parser.offsetTable..<parser.offsetTable + parser.objectCount * offsetSize)
            for offset in newOffsets { BinaryPlistWriter.appendUInt(UInt64(offset), width: offsetSize, to: &tail) }
        } else {
            tail.reserveCapacity(tail.count + (parser.objectCount + newOffsets.count) * offsetSize)
            for ref in 0..<parser.objectCount { BinaryPlistWriter.appendUInt(UInt64(try parser.offset(of: ref)), width: offsetSize, to: &tail) }
            for offset in newOffsets { BinaryPlistWriter.appendUInt(UInt64(offset), width: offsetSize, to: &tail) }
        }
        BinaryPlistWriter.appendTrailer(objectCount: parser.objectCount + newOffsets.count, offsetSize: offsetSize, refSize: parser.refSize,
                                        top: top, tableOffset: tableOffset, to: &tail)
        out.append(tail)
        return out
    }
}
