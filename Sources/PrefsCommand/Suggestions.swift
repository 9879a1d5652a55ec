/// "Did you mean …?" for a mistyped verb or option. A verb other tools use (`get`, `set`, `rm`,
/// `ls`…) gets the verb that means the same; any other word the candidates closest to it by edit
/// distance (insertions, deletions, substitutions and swaps of two neighbours each count 1), at most
/// 2 away — 1 for a word of one or two characters, which is close to everything. A verb that changes
/// data (one with `--dry-run`) is suggested only for a slip of one character (in a word of one or two,
/// only for two swapped): `set` is not `reset`, `ge` not `gc`.
enum Suggestions {
    /// What other tools call prefs's verbs (git config, kubectl, dconf, shells…).
    static let synonyms: [String: String] = [
        "get": "read", "show": "read", "cat": "read", "print": "read", "view": "read",
        "set": "write", "put": "write",
        "remove": "delete", "rm": "delete", "unset": "delete", "del": "delete", "erase": "delete",
        "list": "domains, or read DOMAIN --keys", "ls": "domains, or read DOMAIN --keys",
        "mv": "rename", "move": "rename",
        "grep": "find", "search": "find",
        "type": "read-type",
    ]

    /// What other tools take for `--version` (`version` as a verb too).
    static let versionSpellings: Set<String> = ["-v", "-V", "-version", "--v", "version"]

    /// ` (did you mean write?)` for a word typed where a verb goes, or "" when nothing fits.
    static func verbHint(for word: String) -> String {
        if let meant = synonyms[word.lowercased()] { return " (did you mean \(meant)?)" }
        if versionSpellings.contains(word) { return " (did you mean --version?)" }
        let verbs = CommandTable.verbs
        let found = closest(to: word, among: verbs.map(\.name), oneSlipOnly: Set(verbs.filter(\.changesData).map(\.name)))
        return found.isEmpty ? "" : " (did you mean \(found.joined(separator: " or "))?)"
    }

    /// ` (did you mean X?)`, ` (did you mean X or Y?)`, or "" when nothing is close.
    static func hint(for word: String, among candidates: [String]) -> String {
        let found = closest(to: word, among: candidates)
        guard !found.isEmpty else { return "" }
        return " (did you mean \(found.joined(separator: " or "))?)"
    }

    /// The candidates at the smallest distance from `word`, when it is small enough (for those in
    /// `oneSlipOnly`, one slip: a swap in a word of one or two characters); in their order.
    static func closest(to word: String, among candidates: [String], oneSlipOnly: Set<String> = []) -> [String] {
        let limit = word.count <= 2 ? 1 : 2
        func close(_ candidate: String, _ distance: Int) -> Bool {
            guard oneSlipOnly.contains(candidate) else { return distance <= limit }
            return distance <= 1 && (word.count > 2 || word.sorted() == candidate.sorted())
        }
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { close($0.0, $0.1) }
        guard let best = scored.map(\.1).min() else { return [] }
        return scored.filter { $0.1 == best }.map(\.0)
    }

    /// The optimal-string-alignment distance between two words, by Unicode scalars.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
