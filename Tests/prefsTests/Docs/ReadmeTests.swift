import Foundation
import Testing
@testable import PrefsCore

/// The README runs: its shell examples, in order, in one bash session in a fresh world (a home of
/// its own, `prefs` on PATH), each command exiting 0 and printing exactly the lines its comments
/// show (`#   ` then the line). A block preceded by `<!-- not run: REASON -->` is left out; which
/// ones are is checked too, so none is left out silently.
@Suite(.runsProcesses) struct ReadmeTests {
    struct Step {
        let line: Int
        let command: String
        var expected: [String] = []
    }

    /// The steps of the README's `sh` blocks, and the reasons given for the blocks not run. A command
    /// goes on over lines ending in `\\`, with a `(` or a `'` open, or in a `<<'EOF'` here-document;
    /// the `#   ` lines right after it (or after its other output lines) are its output; after any
    /// other comment they are an illustration, not checked.
    static func steps(_ readme: String) -> (steps: [Step], notRun: [String]) {
        var steps: [Step] = []
        var notRun: [String] = []
        var inBlock = false, skipping = false, attach = false
        var pending: String?
        var open: (line: Int, text: String, parentheses: Int, quote: Character?)?
        for (index, line) in readme.components(separatedBy: "\n").enumerated() {
            if !inBlock {
                if line.hasPrefix("<!-- not run: ") {
                    pending = String(line.dropFirst(14).dropLast(4))
                } else if line == "```sh" {
                    inBlock = true
                    skipping = pending != nil
                    if let pending { notRun.append(pending) }
                } else if !line.isEmpty {
                    pending = nil
                }
                continue
            }
            if line == "```" {
                (inBlock, pending) = (false, nil)
                continue
            }
            if skipping { continue }
            if let command = open {
                let (parentheses, quote) = ReadmeTests.scan(line, quote: command.quote)
                open = (command.line, command.text + "\n" + line, command.parentheses + parentheses, quote)
            } else if line.hasPrefix("#   ") {
                if attach { steps[steps.count - 1].expected.append(String(line.dropFirst(4))) }
                continue
            } else if line.hasPrefix("#") || line.isEmpty {
                attach = false
                continue
            } else {
                let (parentheses, quote) = ReadmeTests.scan(line, quote: nil)
                open = (index + 1, line, parentheses, quote)
            }
            guard let command = open else { continue }
            let text = command.text
            let hereDocument = text.prefix { $0 != "\n" }.contains("<<'EOF'") && text.split(separator: "\n").last != "EOF"
            if !text.hasSuffix("\\"), command.parentheses <= 0, command.quote == nil, !hereDocument {
                steps.append(Step(line: command.line, command: text))
                open = nil
                attach = true
            }
        }
        return (steps, notRun)
    }

    /// How a line changes the open parentheses, and the quote open at its end (given the one open at
    /// its start); a `#` after a space outside quotes starts a comment, which counts for nothing.
    static func scan(_ line: String, quote: Character?) -> (parentheses: Int, quote: Character?) {
        var quote = quote
        var parentheses = 0
        var previous: Character = " "
        for c in line {
            if let open = quote {
                if c == open { quote = nil }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "#" && previous.isWhitespace {
                break
            } else if c == "(" {
                parentheses += 1
            } else if c == ")" {
                parentheses -= 1
            }
            previous = c
        }
        return (parentheses, quote)
    }

    /// The README is an introduction a newcomer reads through: at most 600 lines. Reference material
    /// (every option, the exit statuses, the environment, the etcd data model) is the man page's.
    @Test func theReadmeIsAtMost600Lines() throws {
        let readme = try Paths.text("README.md")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count - (readme.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= 600, "README.md has \(lines) lines")
        #expect(!readme.contains("\n## Exit status\n") && !readme.contains("\n## Environment\n") && !readme.contains("\n## Verbs\n"))
    }

    @Test func theReadmeRunsAsWritten() async throws {
        let readme = try Paths.text("README.md")
        let (steps, notRun) = ReadmeTests.steps(readme)
        #expect(notRun == ["it downloads and installs a Swift toolchain",
                           "it builds and installs a release binary (InstallTests runs these install lines)",
                           "it links defaults to prefs (InstallTests runs this line, twice)",
                           "it removes an installed prefs (InstallTests runs these lines after the install lines)",
                           "a watch runs until it is stopped; WatchTests check these lines",
                           "it needs an etcd cluster (EtcdTests run these verbs against one)",
                           "it runs the whole test suite"])
        #expect(steps.count > 40)
        let directory = try TemporaryDirectory()
        let home = directory.path + "/home/ada"
        try FileManager.default.createDirectory(atPath: home + "/work", withIntermediateDirectories: true)
        var script = "cd ~/work\n"
        for (i, step) in steps.enumerated() {
            script += "printf '\\001STEP \(i)\\001'\n\(step.command)\nprintf '\\001STATUS %d\\001' $?\n"
        }
        // This machine's host ID is spelled HOSTID, as the README spells it.
        let environment = ["HOME": home, "XDG_DATA_DIRS": directory.path + "/packages", "PATH": Paths.products + ":/usr/bin:/bin", "LC_ALL": "C.UTF-8",
                           "PREFS_HOST_ID": "HOSTID"]
        let run = try await runProcess("/bin/bash", ["-c", script], environment: environment, timeout: 300)
        let output = run.outputText.replacingOccurrences(of: home, with: "/home/ada")
        let parts = output.components(separatedBy: "\u{1}")
        for (i, step) in steps.enumerated() {
            guard let start = parts.firstIndex(of: "STEP \(i)"), start + 2 < parts.count else {
                Issue.record("README line \(step.line): \(step.command) did not run; stderr: \(run.error)")
                break
            }
            let printed = parts[start + 1]
            #expect(parts[start + 2] == "STATUS 0", "README line \(step.line): \(step.command)\n\(printed)\nstandard error: \(run.error)")
            if !step.expected.isEmpty {
                #expect(printed == step.expected.joined(separator: "\n") + "\n", "README line \(step.line): \(step.command)")
            }
        }
    }
}
