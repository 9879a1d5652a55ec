import Foundation
import Testing

/// The shell scripts of the checkout (the test command, CI, benchmarks, fuzzing) that run under
/// `set -o pipefail` never pipe into a reader that may leave before its input ends (`grep -q`,
/// `grep -m`, `head`): the writer then dies of SIGPIPE, pipefail takes that for the pipeline's
/// failure, and the script goes the wrong way now and then (the test command installed the NSS
/// modules again, 2 runs in 1000 on a loaded machine).
@Suite struct ScriptTests {
    /// Every script: the `.sh` files under Tests and CI's `.ci/run`.
    static func scripts() throws -> [String] {
        let root = Fixtures.packageRoot
        let found = FileManager.default.enumerator(atPath: root + "/Tests")?.compactMap { $0 as? String }.filter { $0.hasSuffix(".sh") } ?? []
        return found.map { "Tests/" + $0 } + [".ci/run"]
    }

    /// A pipe (not `||`) into `grep` with -q, -m, --quiet, --silent or --max-count, or into `head`.
    static let earlyReader = try! NSRegularExpression(pattern: #"(?<!\|)\|(?!\|)\s*(?:\S*/)?(?:grep\s(?:[^|;&]*\s)?(?:-[A-Za-z]*[qm]|--quiet|--silent|--max-count)|head\b)"#)

    static func earlyReaders(in text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            !line.trimmingCharacters(in: .whitespaces).hasPrefix("#")
                && earlyReader.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        }
    }

    @Test func noPipeIntoAReaderThatLeavesEarlyUnderPipefail() throws {
        let scripts = try ScriptTests.scripts()
        #expect(scripts.contains("Tests/run-tests.sh") && scripts.count > 10, "\(scripts)")
        for script in scripts {
            let text = try Paths.text(script)
            guard text.contains("pipefail") else { continue }
            #expect(ScriptTests.earlyReaders(in: text) == [], "\(script)")
        }
    }

    /// The check finds what it is for, and leaves alone what only looks like it.
    @Test func theCheckFindsPipesIntoEarlyReaders() {
        for line in ["ldconfig -p | grep -q x || y", "a |grep -qE x", "a | /bin/grep -c -q x", "find . | head -1", "a | grep --quiet x", "a | grep -m1 x"] {
            #expect(ScriptTests.earlyReaders(in: line) == [line])
        }
        for line in ["grep -q x file || y", "a || grep -q x f", "a | grep -c x", "# a | grep -q x", "a | grep x | sed q", "a | header"] {
            #expect(ScriptTests.earlyReaders(in: line) == [], "\(line)")
        }
    }
}
