/// "Did you mean …?" for a mistyped verb or option: the candidates closest to the word typed, by
/// edit distance (insertions, deletions, substitutions and swaps of two neighbours each count 1), at
/// most 2 away — 1 for a word of one or two characters, which is close to everything.
enum Suggestions {
    /// ` (did you mean X?)`, ` (did you mean X or Y?)`, or "" when nothing is close.
    static func hint(for word: String, among candidates: [String]) -> String {
        let found = closest(to: word, among: candidates)
        guard !found.isEmpty else { return "" }
        return " (did you mean \(found.joined(separator: " or "))?)"
    }

    /// The candidates at the smallest distance from `word`, when it is small enough; in their order.
    static func closest(to word: String, among candidates: [String]) -> [String] {
        let limit = word.count <= 2 ? 1 : 2
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { $0.1 <= limit }
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
