import Testing
@testable import PrefsCore
import PrefsTestSupport
@testable import PrefsCommand

/// `domains GLOB` and `read DOMAIN --keys --match GLOB`: shell-style patterns over whole names.
@Suite struct GlobTests {
    @Test(arguments: [
        ("com.example.*", "com.example.app", true), ("com.example.*", "com.example.", true), ("com.example.*", "org.example.app", false),
        ("*", "", true), ("*", "any name/with slash", true), ("?", "é", true), ("?", "ab", false), ("a*b*c", "aXXbYYc", true),
        ("a*b*c", "aXXbYY", false), ("*.*.app", "x.y.app", true), ("[abc]x", "bx", true), ("[!abc]x", "bx", false), ("[^abc]x", "dx", true),
        ("[a-c]", "b", true), ("[a-c]", "d", false), ("[]]", "]", true), ("[a-]", "-", true), ("a[b", "a[b", true), ("net\\*", "net*", true),
        ("net\\*", "netx", false), ("\\[x]", "[x]", true), ("$(touch pwned)", "$(touch pwned)", true), ("new\nline*", "new\nline 2", true),
        ("**a", "bba", true), ("*a*a*a*a*b", String(repeating: "a", count: 60), false),
    ] as [(String, String, Bool)])
    func patternsMatchWholeNames(pattern: String, name: String, expected: Bool) {
        #expect(Glob(pattern).matches(name) == expected, "\(pattern) ~ \(name)")
    }

    static func home() -> InMemoryHome {
        let home = InMemoryHome()
        home.run("write", "com.example.app", "k", "1")
        home.run("write", "com.example.tool", "k", "1")
        home.run("write", "org.other", "net.timeout", "1", "net*", "2", "netz", "3", "a b", "4", "new\nline", "5")
        home.run("write", "-g", "g", "1")
        return home
    }

    @Test func domainsTakesAGlob() {
        let home = GlobTests.home()
        #expect(home.run("domains", "com.example.*").output == "com.example.app\ncom.example.tool\n")
        #expect(home.run("domains", "*other", "-0").output == "org.other\0")
        #expect(home.run("domains", "NS*").output == "NSGlobalDomain\n")
        let none = home.run("domains", "nothing*")
        #expect(none.status == .success && none.output.isEmpty)
        #expect(home.run("domains", "a", "b").status == .usage)
    }

    @Test func readKeysTakesAGlob() {
        let home = GlobTests.home()
        #expect(home.run("read", "org.other", "--keys", "--match", "net*").output == "net*\nnet.timeout\nnetz\n")
        #expect(home.run("read", "org.other", "--keys", "--match", "net\\*").output == "net*\n")
        #expect(home.run("read", "org.other", "--keys", "--match", "*e*", "-0").output == "net*\0net.timeout\0netz\0new\nline\0")
        #expect(home.run("read", "org.other", "--keys", "--match", "net.*", "--origin").output == "stored\tnet.timeout\n")
        #expect(home.run("read", "--keys", "--match", "com.*").output == "com.example.app\ncom.example.tool\n")
        let misuse = home.run("read", "org.other", "--match", "x")
        #expect(misuse.status == .usage && misuse.error == "prefs: read: --match needs --keys\n")
    }

    /// Patterns of many unclosed `[` (each a literal) compile with work linear in their length: each
    /// set member is read a bounded number of times, not once for every `[` before it (a scan from
    /// each `[` to the pattern's end took 86 s for 120,000 of them). The check counts the work
    /// (`Glob.steps`), not the time, so the machine's load cannot change it.
    @Test(arguments: [("[", true), ("[!", true), ("[a-", true), ("[\\]", false), ("[]", false)])
    func unclosedBracketsCompileInLinearWork(unit: String, literal: Bool) {
        let pattern = String(repeating: unit, count: 120_000 / unit.unicodeScalars.count)
        let glob = Glob(pattern)
        #expect(glob.steps <= 3 * pattern.unicodeScalars.count, "\(glob.steps) steps for \(pattern.unicodeScalars.count) scalars")
        // Unclosed, each `[` is itself: the pattern matches its own text.
        #expect(glob.matches(pattern) == literal)
    }

    /// The set found after a `[` at each place of a pattern is exactly the one a plain scan from there
    /// to its `]` finds (`plainSet`, the quadratic compiler this one replaced), on random patterns of
    /// the characters that matter.
    @Test func setsAreThoseOfAPlainScan() {
        let seed = TestSeed.run
        var generator = SeededGenerator(seed: seed)
        let alphabet: [Unicode.Scalar] = ["[", "]", "\\", "-", "!", "^", "a", "b"]
        for _ in 0..<20_000 {
            let scalars = (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            var steps = 0
            let closing = Glob.closings(scalars, steps: &steps)
            for start in 0...scalars.count {
                let found = Glob.set(scalars, from: start, closing: closing, steps: &steps)
                let plain = GlobTests.plainSet(scalars, from: start)
                #expect(found?.0 == plain?.0 && found?.1 == plain?.1, "\(TestSeed.reproduce(seed)): \(String(String.UnicodeScalarView(scalars))) from \(start)")
            }
        }
    }

    /// The set starting after a `[` at `start`, and the index after its `]`, found by scanning
    /// until the set closes or the pattern ends; nil when it does not close.
    static func plainSet(_ scalars: [Unicode.Scalar], from start: Int) -> (Glob.Token, Int)? {
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
}
