/// What no change may store: a top-level key that is empty (no command line can name it, and it has
/// no directory in external storage), or a key holding NUL at any depth (XML cannot carry it, and no
/// argument can spell it). Only the values a change sets are checked, so a suite another program
/// wrote such keys into can still be changed — and repaired: `delete` and `reset` remove them.
/// (An empty key inside a value is an ordinary plist key and is kept.)
extension PrefDictionary {
    /// Throws `.invalidKey` for the first such key among the values that differ from `before`.
    func checkStoredKeys(comparedTo before: PrefDictionary, domain: String) throws {
        try PrefDictionary.zip(before, self) { old, new in
            guard let new, old?.value != new.value else { return }
            if new.key.isEmpty { throw PrefsError.invalidKey(domain: domain, key: "", reason: "an empty key cannot be stored") }
            if let path = PrefDictionary.firstNULKey(in: new.value, path: [new.key]) ?? (new.key.utf8.contains(0) ? [new.key] : nil) {
                throw PrefsError.invalidKey(domain: domain, key: PrefKeyPath(path).display, reason: "a key cannot contain NUL")
            }
        }
    }

    static func firstNULKey(in value: PrefValue, path: [String]) -> [String]? {
        switch value {
        case .dictionary(let dictionary):
            for entry in dictionary {
                if entry.key.utf8.contains(0) { return path + [entry.key] }
                if let found = firstNULKey(in: entry.value, path: path + [entry.key]) { return found }
            }
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                if let found = firstNULKey(in: element, path: path + [String(i)]) { return found }
            }
        default: break
        }
        return nil
    }
}
