/// A shell-style pattern for names (`domains GLOB`, `read --keys --match GLOB`), matched against the
/// whole name by Unicode scalar: `*` any run of characters (dots and slashes too), `?` one
/// character, `[abc]`, `[a-z]` and `[!abc]` (or `[^abc]`) one character of (or not of) a set, `\`
/// the next character literally. A `[` with no closing `]` is itself.
struct Glob: Sendable {
    enum Token: Equatable, Sendable {
        case literal(Unicode.Scalar)
        case any
        case anyRun
        case set([ClosedRange<Unicode.Scalar>], negated: Bool)
    }

    let tokens: [Token]

    init(_ pattern: String) {
        let scalars = Array(pattern.unicodeScalars)
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
                if let (set, end) = Glob.set(scalars, from: i) {
                    tokens.append(set)
                    i = end
                } else {
                    tokens.append(.literal(scalar))
                }
            default: tokens.append(.literal(scalar))
            }
        }
        self.tokens = tokens
    }

    /// The set starting after `[` at `start`, and the index after its `]`; nil when it is not closed.
    static func set(_ scalars: [Unicode.Scalar], from start: Int) -> (Token, Int)? {
        var i = start
        let negated = i < scalars.count && (scalars[i] == "!" || scalars[i] == "^")
        if negated { i += 1 }
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        var first = true
        while i < scalars.count {
            if scalars[i] == "]" && !first { return (.set(ranges, negated: negated), i + 1) }
            first = false
            var low = scalars[i]
            if low == "\\" && i + 1 < scalars.count { i += 1; low = scalars[i] }
            if i + 2 < scalars.count && scalars[i + 1] == "-" && scalars[i + 2] != "]" {
                ranges.append(low...max(low, scalars[i + 2]))
                i += 3
            } else {
                ranges.append(low...low)
                i += 1
            }
        }
        return nil
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
