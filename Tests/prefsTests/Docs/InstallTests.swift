import Foundation
import Testing
@testable import PrefsCore

/// The README's install lines, run as written under a temporary PREFIX (with the binary the tests
/// built instead of a release build): the binary, the man page and the three completions land
/// where each tool looks, and the optional `defaults` link runs prefs as defaults.
@Suite(.runsProcesses) struct InstallTests {
    /// The README's first `sh` block after "## Install".
    static func installBlock() throws -> [String] {
        let readme = try Paths.text("README.md")
        guard let section = readme.range(of: "## Install\n"), let open = readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex),
              let close = readme.range(of: "```\n", range: open.upperBound..<readme.endIndex)
        else { throw TestFailure("README has no install block") }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }

    @Test func theReadmesInstallLinesPutEverythingUnderThePrefix() async throws {
        let lines = try InstallTests.installBlock()
        #expect(lines.first == "swift build -c release --product prefs -Xswiftc -static-executable -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections")
        let directory = try TemporaryDirectory()
        let prefix = directory.path + "/usr"
        // The build is the tests' own; PREFIX is the temporary one; every other line runs as written.
        let script = ["set -eu", "PREFIX='\(prefix)'"] + lines.dropFirst().filter { !$0.hasPrefix("PREFIX=") }
            .map { $0.replacingOccurrences(of: ".build/release/prefs", with: Paths.binary) }
        let run = try await runProcess("/bin/sh", ["-c", script.joined(separator: "\n")], environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path],
                                 workingDirectory: Fixtures.packageRoot)
        #expect(run.status == 0, "\(run.error)")
        let installed: [(String, String, mode_t)] = [
            ("bin/prefs", Paths.binary, 0o755), ("share/man/man1/prefs.1", Fixtures.packageRoot + "/man/prefs.1", 0o644),
            ("share/bash-completion/completions/prefs", Fixtures.packageRoot + "/completions/prefs.bash", 0o644),
            ("share/zsh/site-functions/_prefs", Fixtures.packageRoot + "/completions/prefs.zsh", 0o644),
            ("share/fish/vendor_completions.d/prefs.fish", Fixtures.packageRoot + "/completions/prefs.fish", 0o644),
        ]
        for (path, source, mode) in installed {
            #expect(try Fixtures.bytes(prefix + "/" + path) == Fixtures.bytes(source), "\(path)")
            var info = stat()
            #expect(stat(prefix + "/" + path, &info) == 0 && info.st_mode & 0o777 == mode, "\(path)")
        }
        let version = try await runProcess(prefix + "/bin/prefs", ["--version"])
        #expect(version.status == 0 && version.outputText.hasPrefix("prefs "))
        let asDefaults = try await runProcess(prefix + "/bin/defaults", ["help"], environment: ["HOME": directory.path, "PREFS_HOST_ID": "x"])
        #expect(asDefaults.outputText.contains("defaults") || asDefaults.error.contains("defaults"), "\(asDefaults.outputText) \(asDefaults.error)")
    }
}
