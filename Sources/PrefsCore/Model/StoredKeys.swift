/// What no change may store: a top-level key that is empty (no command line can name it, and it has
/// no directory in external storage), or a key holding NUL at any depth (XML cannot carry it, and no
/// argument can spell it). Only the values a change sets are checked, so a suite another program
/// wrote such keys into can still be changed — and repaired: `delete` and `reset` remove them.
/// (An empty key inside a value is an ordinary plist key and is kept.) Nor values nested deeper
/// than any format writes (`DecodingLimits.maxDepth`), which a Swift program can build: they are
/// refused here, before anything goes through them recursively (and would exhaust the stack).
extension PrefDictionary {
    /// Throws `.invalidKey` for the first such key among the values that differ from `before`, and
    /// `.invalidValue` for a value nested too deep. With `refusingMarkers` (a place without external
    /// storage, where no change makes a reference), `.reservedKey` for a value holding the
    /// external-reference marker key at any depth: where external values are kept,
    /// `ExternalTransaction` decides which references a change may store.
    func checkStoredKeys(comparedTo before: PrefDictionary, domain: String, refusingMarkers: Bool = false) throws {
        try PrefDictionary.zip(before, self) { old, new in
            // (A stored value is no deeper than the limit, so comparing with one stops by then.)
            guard let new, old?.value != new.value else { return }
            if new.key.isEmpty { throw PrefsError.invalidKey(domain: domain, key: "", reason: "an empty key cannot be stored") }
            if let path = try PrefDictionary.firstNULKey(in: new.value, path: [new.key], domain: domain) ?? (new.key.utf8.contains(0) ? [new.key] : nil) {
                throw PrefsError.invalidKey(domain: domain, key: PrefKeyPath(path).display, reason: "a key cannot contain NUL")
            }
            if refusingMarkers && ExternalReference.containsMarker(new.value) {
                throw PrefsError.reservedKey(domain: domain, key: new.key, reserved: ExternalReference.marker)
            }
        }
    }

    static func firstNULKey(in value: PrefValue, path: [String], domain: String) throws -> [String]? {
        guard path.count <= DecodingLimits.maxDepth else {
            throw PrefsError.invalidValue(domain: domain, key: path[0], flag: nil, given: nil,
                                          reason: "containers nested deeper than \(DecodingLimits.maxDepth) levels")
        }
        switch value {
        case .dictionary(let dictionary):
            for entry in dictionary {
                if entry.key.utf8.contains(0) { return path + [entry.key] }
                if let found = try firstNULKey(in: entry.value, path: path + [entry.key], domain: domain) { return found }
            }
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                if let found = try firstNULKey(in: element, path: path + [String(i)], domain: domain) { return found }
            }
        default: break
        }
        return nil
    }
}
