/// A shell-style pattern for names (`domains GLOB`, `read --keys --match GLOB`), matched against the
/// whole name by Unicode scalar: `*` any run of characters (dots and slashes too), `?` one
/// character, `[abc]`, `[a-z]` and `[!abc]` (or `[^abc]`) one character of (or not of) a set, `\`
/// the next character literally. A `[` with no closing `]` is itself. Compiling takes time linear
/// in the pattern's length, whatever it holds (`Glob.closings`).
struct Glob: Sendable {
    enum Token: Equatable, Sendable {
        case literal(Unicode.Scalar)
        case any
        case anyRun
        case set([ClosedRange<Unicode.Scalar>], negated: Bool)
    }

    let tokens: [Token]
    /// How many set members compiling read (the tests check it stays linear in the pattern's length).
    let steps: Int

    init(_ pattern: String) {
        let scalars = Array(pattern.unicodeScalars)
        var steps = 0
        let closing = Glob.closings(scalars, steps: &steps)
        var tokens: [Token] = []
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            i += 1
            switch scalar {
            case "*": if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?": tokens.append(.any)
            case "\\" where i < scalars.count:
                tokens.append(.literal(scalars[i]))
                i += 1
            case "[":
                if let (set, end) = Glob.set(scalars, from: i, closing: closing, steps: &steps) {
                    tokens.append(set)
                    i = end
                } else {
                    tokens.append(.literal(scalar))
                }
            default: tokens.append(.literal(scalar))
            }
        }
        self.tokens = tokens
        self.steps = steps
    }

    /// For each index, where a set whose next member starts there ends (the index of its `]`), or
    /// nil when it never does: a member is `x`, `\x`, `x-y` or `\x-y`, and a `]` that is not the
    /// first member ends the set. Found from the end backwards, one step per index, so a pattern of
    /// many unclosed `[` is not scanned to its end once for each.
    static func closings(_ scalars: [Unicode.Scalar], steps: inout Int) -> [Int?] {
        var closing = [Int?](repeating: nil, count: scalars.count + 1)
        for i in scalars.indices.reversed() {
            closing[i] = scalars[i] == "]" ? i : closing[Glob.member(scalars, at: i, steps: &steps).next]
        }
        return closing
    }

    /// The member of a set at `i` (not past the end): its range, and the index after it.
    static func member(_ scalars: [Unicode.Scalar], at start: Int, steps: inout Int) -> (range: ClosedRange<Unicode.Scalar>, next: Int) {
        steps += 1
        var i = start
        var low = scalars[i]
        if low == "\\" && i + 1 < scalars.count { i += 1; low = scalars[i] }
        if i + 2 < scalars.count && scalars[i + 1] == "-" && scalars[i + 2] != "]" { return (low...max(low, scalars[i + 2]), i + 3) }
        return (low...low, i + 1)
    }

    /// The set starting after `[` at `start`, and the index after its `]`; nil when it is not closed
    /// (`closing`: `closings(scalars)`).
    static func set(_ scalars: [Unicode.Scalar], from start: Int, closing: [Int?], steps: inout Int) -> (Token, Int)? {
        var i = start
        let negated = i < scalars.count && (scalars[i] == "!" || scalars[i] == "^")
        if negated { i += 1 }
        // The first member may be `]` itself.
        guard i < scalars.count, let end = closing[member(scalars, at: i, steps: &steps).next] else { return nil }
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        while i < end {
            let (range, next) = member(scalars, at: i, steps: &steps)
            ranges.append(range)
            i = next
        }
        return (.set(ranges, negated: negated), end + 1)
    }

    func matches(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        // Iterative matching with one backtrack point for the last `*` (linear in practice).
        var t = 0, s = 0
        var star: (token: Int, scalar: Int)?
        while s < scalars.count {
            if t < tokens.count, tokens[t] == .anyRun {
                star = (t, s)
                t += 1
            } else if t < tokens.count, Glob.matches(tokens[t], scalars[s]) {
                t += 1
                s += 1
            } else if let back = star {
                star = (back.token, back.scalar + 1)
                t = back.token + 1
                s = back.scalar + 1
            } else {
                return false
            }
        }
        while t < tokens.count, tokens[t] == .anyRun { t += 1 }
        return t == tokens.count
    }

    static func matches(_ token: Token, _ scalar: Unicode.Scalar) -> Bool {
        switch token {
        case .literal(let literal): return literal == scalar
        case .any: return true
        case .anyRun: return false
        case .set(let ranges, let negated): return ranges.contains { $0.contains(scalar) } != negated
        }
    }
}
