import Foundation
import Testing
@testable import PrefsCore

/// `install.sh PREFIX` puts the binary, the man page and the three completions where each tool looks
/// under PREFIX, and says how to run prefs as `defaults`.
@Suite struct InstallTests {
    @Test func installPutsEverythingUnderThePrefix() throws {
        let box = try TemporaryDirectory()
        let prefix = box.path + "/usr"
        let run = try runProcess("/bin/sh", [Fixtures.packageRoot + "/install.sh", prefix],
                                 environment: ["PREFS_BINARY": Paths.binary, "PATH": "/usr/bin:/bin", "HOME": box.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputText.hasSuffix("ln -s prefs \(prefix)/bin/defaults\n"), "\(run.outputText)")
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
        let version = try runProcess(prefix + "/bin/prefs", ["--version"])
        #expect(version.status == 0 && version.outputText.hasPrefix("prefs "))
        #expect(try runProcess("/bin/sh", [Fixtures.packageRoot + "/install.sh", "a", "b"]).status == 64)
    }
}
