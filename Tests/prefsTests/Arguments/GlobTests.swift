import Testing
@testable import PrefsCore
@testable import prefs

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
}
