import Foundation
import Testing
@testable import PrefsCore

/// The README's install lines, run as written under a temporary PREFIX (with the binary the tests
/// built instead of a release build): the binary lands stripped and still runs and reports errors,
/// the man page and the three completions land where each tool looks; the optional `defaults` link
/// is a step of its own that can be run twice and runs prefs as defaults.
@Suite(.runsProcesses) struct InstallTests {
    /// The lines of the README's first `sh` block after `heading`.
    static func block(after heading: String) throws -> [String] {
        let readme = try Paths.text("README.md")
        guard let section = readme.range(of: heading), let open = readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex),
              let close = readme.range(of: "```\n", range: open.upperBound..<readme.endIndex)
        else { throw TestFailure("README has no sh block after \(heading)") }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }

    /// Runs `lines` with /bin/sh in the package root, PREFIX set to `prefix` (the README's own PREFIX
    /// line left out) and the release binary's path replaced by the tests' binary.
    static func run(_ lines: [String], prefix: String, home: String) async throws -> ProcessResult {
        let script = ["set -eu", "PREFIX='\(prefix)'"] + lines.filter { !$0.hasPrefix("PREFIX=") }
            .map { $0.replacingOccurrences(of: ".build/release/prefs", with: Paths.binary) }
        return try await runProcess("/bin/sh", ["-c", script.joined(separator: "\n")], environment: ["PATH": "/usr/bin:/bin", "HOME": home],
                              workingDirectory: Fixtures.packageRoot)
    }

    /// Whether the ELF file at `path` has a symbol table (a section of type SHT_SYMTAB): `strip`
    /// removes it; the dynamic symbols a program needs to run are another section.
    static func hasSymbolTable(_ path: String) throws -> Bool {
        let bytes = try Fixtures.bytes(path)
        func integer(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        guard bytes.count > 64, bytes[0..<4] == [0x7F, 0x45, 0x4C, 0x46], bytes[4] == 2, bytes[5] == 1 else {
            throw TestFailure("\(path) is not a little-endian 64-bit ELF file")
        }
        let (offset, size, count) = (integer(0x28, 8), integer(0x3A, 2), integer(0x3C, 2))
        return (0..<count).contains { integer(offset + $0 * size + 4, 4) == 2 }
    }

    @Test func theReadmesInstallLinesPutEverythingUnderThePrefixStripped() async throws {
        let lines = try InstallTests.block(after: "## Install\n")
        #expect(lines.first == "swift build -c release --product prefs -Xswiftc -static-executable -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections")
        #expect(!lines.contains { $0.contains("defaults") }, "the defaults link is a step of its own")
        let directory = try TemporaryDirectory()
        let prefix = directory.path + "/usr"
        // The build is the tests' own; PREFIX is the temporary one; every other line runs as written.
        let run = try await InstallTests.run(Array(lines.dropFirst()), prefix: prefix, home: directory.path)
        #expect(run.status == 0, "\(run.error)")
        let installed: [(String, String, mode_t)] = [
            ("share/man/man1/prefs.1", Fixtures.packageRoot + "/man/prefs.1", 0o644),
            ("share/bash-completion/completions/prefs", Fixtures.packageRoot + "/completions/prefs.bash", 0o644),
            ("share/zsh/site-functions/_prefs", Fixtures.packageRoot + "/completions/prefs.zsh", 0o644),
            ("share/fish/vendor_completions.d/prefs.fish", Fixtures.packageRoot + "/completions/prefs.fish", 0o644),
        ]
        for (path, source, mode) in installed {
            #expect(try Fixtures.bytes(prefix + "/" + path) == Fixtures.bytes(source), "\(path)")
            var info = stat()
            #expect(stat(prefix + "/" + path, &info) == 0 && info.st_mode & 0o777 == mode, "\(path)")
        }
        // The binary is installed stripped, and still runs and reports errors.
        let binary = prefix + "/bin/prefs"
        var info = stat()
        #expect(stat(binary, &info) == 0 && info.st_mode & 0o777 == 0o755)
        #expect(try InstallTests.hasSymbolTable(Paths.binary))
        #expect(try !InstallTests.hasSymbolTable(binary), "bin/prefs is not stripped")
        let version = try await runProcess(binary, ["--version"])
        #expect(version.status == 0 && version.outputText.hasPrefix("prefs "))
        let environment = ["HOME": directory.path, "XDG_CONFIG_HOME": directory.path + "/config", "XDG_DATA_HOME": directory.path + "/data"]
        let missing = try await runProcess(binary, ["read", "com.example.app", "timeout"], environment: environment)
        #expect(missing.status == 1 && missing.error == "prefs: com.example.app: no such suite\n", "\(missing.status) \(missing.error)")
        let bad = try await runProcess(binary, ["write", "com.example.app", "timeout", "-int", "abc"], environment: environment)
        #expect(bad.status == 65 && bad.error.hasPrefix("prefs: com.example.app: timeout: "), "\(bad.status) \(bad.error)")
    }

    /// The optional link: its own block, run twice (it must not fail the second time), after which
    /// `defaults` runs prefs as macOS defaults.
    @Test func theDefaultsLinkIsItsOwnStepAndCanBeRunTwice() async throws {
        let lines = try InstallTests.block(after: "### Optional: `prefs` as `defaults`\n")
        #expect(lines == ["ln -sf prefs \"$PREFIX/bin/defaults\""])
        let directory = try TemporaryDirectory()
        let prefix = directory.path + "/usr"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.binary, toPath: prefix + "/bin/prefs")
        for time in 1...2 {
            let run = try await InstallTests.run(lines, prefix: prefix, home: directory.path)
            #expect(run.status == 0, "run \(time): \(run.error)")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: prefix + "/bin/defaults") == "prefs")
        let environment = ["HOME": directory.path, "XDG_CONFIG_HOME": directory.path + "/config", "PREFS_HOST_ID": "x"]
        let write = try await runProcess(prefix + "/bin/defaults", ["write", "com.apple.dock", "autohide", "-bool", "true"], environment: environment)
        #expect(write.status == 0, "\(write.error)")
        let read = try await runProcess(prefix + "/bin/defaults", ["read", "com.apple.dock", "autohide"], environment: environment)
        #expect(read.outputText == "1\n", "\(read.outputText) \(read.error)")
    }
}
