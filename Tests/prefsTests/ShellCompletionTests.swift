import Foundation
import Testing
@testable import PrefsCore

/// The completion files, driven in the real shells against a real suite: verbs, type flags, suite
/// names and the keys of the named suite.
@Suite struct ShellCompletionTests {
    /// A sandbox holding the suite `com.example.app` with keys `alpha` and `beta`.
    static func sandbox() throws -> ProcessSandbox {
        let box = try ProcessSandbox()
        try #require(box.prefs("write", "com.example.app", "alpha", "1", "beta", "-bool", "true").status == 0)
        return box
    }

    static let cases: [(line: String, expected: [String])] = [
        ("prefs rea", ["read", "read-type"]),
        ("prefs read ", ["com.example.app", "-g", "NSGlobalDomain"]),
        ("prefs read com.example.app ", ["alpha", "beta"]),
        ("prefs delete com.example.app ", ["alpha", "beta"]),
        ("prefs write com.example.app ", ["alpha", "beta"]),
        ("prefs write com.example.app alpha -in", ["-int", "-integer"]),
        ("prefs write com.example.app alpha -bool ", ["true", "false", "yes", "no"]),
        ("prefs export com.example.app - --format ", ["xml", "binary", "openstep", "json", "typed-json"]),
        ("prefs help ", ["read", "read-type", "write", "delete", "rename", "domains", "find", "lint", "export", "help"]),
    ]

    /// The words typed so far (the last one possibly empty) for bash's COMP_WORDS.
    static func words(_ line: String) -> [String] {
        var words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if line.hasSuffix(" ") { words.append("") }
        return words
    }

    @Test func bash() throws {
        let box = try ShellCompletionTests.sandbox()
        let bash = try requireProgram("bash", install: "apt-get install bash")
        for (line, expected) in ShellCompletionTests.cases {
            let words = ShellCompletionTests.words(line)
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let script = "source '\(Fixtures.packageRoot)/completions/prefs.bash'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _prefs; printf '%s\\n' \"${COMPREPLY[@]}\""
            let run = try runProcess(bash, ["-c", script], environment: box.environment)
            #expect(Set(run.outputText.split(separator: "\n").map(String.init)).isSuperset(of: expected), "\(line): \(run.outputText) \(run.error)")
        }
    }

    @Test func fish() throws {
        let box = try ShellCompletionTests.sandbox()
        let fish = try requireProgram("fish", install: "apt-get install fish")
        for (line, expected) in ShellCompletionTests.cases {
            let run = try runProcess(fish, ["--no-config", "-c", "source '\(Fixtures.packageRoot)/completions/prefs.fish'; complete -C'\(line)'"],
                                     environment: box.environment)
            let offered = Set(run.outputText.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") })
            #expect(offered.isSuperset(of: expected), "\(line): \(run.outputText) \(run.error)")
        }
    }

    /// zsh's completion system runs only inside an interactive shell, so this one types the line and
    /// a TAB into a real interactive zsh through zsh/zpty and collects what `compadd` offers.
    static let zshCapture = #"""
        zmodload zsh/zpty
        zpty shell zsh -f -i
        setup=$(mktemp)
        cat >$setup <<SETUP
        PROMPT=
        fpath=($1 \$fpath)
        autoload -U compinit && compinit -u -d $setup.dump
        bindkey '^I' complete-word
        zstyle ':completion:*' list-grouped false
        zstyle ':completion:*' insert-tab false
        __mark() { print -r -- '<<prefs-capture>>' }
        compprefuncs=(__mark)
        comppostfuncs=(__mark exit)
        compadd() {
            if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "\$@"; return; fi
            local -a __found
            builtin compadd -A __found "\$@"
            (( \$#__found )) && print -rl -- \$__found
        }
        print -r -- ready
        SETUP
        zpty -w shell "source $setup"
        while zpty -r shell line; do [[ $line == ready* ]] && break; done
        zpty -w shell "$2"$'\t'
        marks=0
        while zpty -r shell line; do
            line=${line%$'\r'}; line=${line%$'\n'}; line=${line%$'\r'}
            if [[ $line == *'<<prefs-capture>>'* ]]; then
                (( marks++ ))
                (( marks == 2 )) && break
                continue
            fi
            (( marks == 1 )) && print -r -- $line
        done
        zpty -d shell
        rm -f $setup $setup.dump
        """#

    @Test func zsh() throws {
        let box = try ShellCompletionTests.sandbox()
        let zsh = try requireProgram("zsh", install: "apt-get install zsh")
        let functions = box.directory.path + "/functions"
        try FileManager.default.createDirectory(atPath: functions, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/completions/prefs.zsh", toPath: functions + "/_prefs")
        let capture = try box.directory.write("capture.zsh", ShellCompletionTests.zshCapture)
        for (line, expected) in ShellCompletionTests.cases {
            let run = try runProcess("/usr/bin/timeout", ["20", zsh, "-f", capture, functions, line], environment: box.environment)
            let offered = Set(run.outputText.split(separator: "\n").map(String.init))
            #expect(offered.isSuperset(of: expected), "\(line): \(run.outputText) \(run.error)")
        }
    }
}
