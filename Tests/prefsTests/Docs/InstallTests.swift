import Foundation
import Testing
@testable import PrefsCore

/// The README's install lines, run as written under a temporary INSTALL_PREFIX (with the binary the
/// tests built instead of a release build): the binary lands stripped and still runs and reports
/// errors, the man page and the three completions land where each tool looks; the optional
/// `defaults` link is a step of its own that can be run twice and runs prefs as defaults; the
/// uninstall lines remove all of it and nothing else. The completions, installed for one user on a
/// fresh account (the one-user lines, or the install lines with `~/.local`), are found by bash
/// (bash-completion), zsh (with the README's `fpath` line) and fish, as the README's table says.
@Suite(.runsProcesses) struct InstallTests {
    /// The lines of the README's first `sh` block after `heading`.
    static func block(after heading: String) throws -> [String] {
        let readme = try Paths.text("README.md")
        guard let section = readme.range(of: heading), let open = readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex),
              let close = readme.range(of: "```\n", range: open.upperBound..<readme.endIndex)
        else { throw TestFailure("README has no sh block after \(heading)") }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }

    /// Runs `lines` with /bin/sh in the package root, INSTALL_PREFIX set to `prefix` (the README's own
    /// INSTALL_PREFIX line left out) and the release binary's path replaced by the tests' binary.
    static func run(_ lines: [String], prefix: String, home: String) async throws -> ProcessResult {
        let script = ["set -eu", "INSTALL_PREFIX='\(prefix)'"] + lines.filter { !$0.hasPrefix("INSTALL_PREFIX=") }
            .map { $0.replacingOccurrences(of: ".build/release/prefs", with: Paths.binary) }
        return try await runProcess("/bin/sh", ["-c", script.joined(separator: "\n")], environment: ["PATH": "/usr/bin:/bin", "HOME": home],
                              workingDirectory: Fixtures.packageRoot)
    }

    /// Every file and symbolic link under `directory` (directories left out), relative to it.
    static func files(under directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var info = stat()
            if lstat(directory + "/" + path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR { found.append(path) }
        }
        return found.sorted()
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
        #expect(lines == ["ln -sf prefs \"$INSTALL_PREFIX/bin/defaults\""])
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

    /// The uninstall lines, run after the install lines and the `defaults` link, leave no file the
    /// install put under the prefix, and remove nothing else: a file that was there before stays,
    /// and so does a `defaults` that is not the link to prefs.
    @Test(arguments: [true, false])
    func theUninstallLinesRemoveWhatTheInstallPut(linked: Bool) async throws {
        let install = Array(try InstallTests.block(after: "## Install\n").dropFirst())
        let uninstall = try InstallTests.block(after: "### Uninstall\n")
        #expect(uninstall.allSatisfy { $0.contains("$INSTALL_PREFIX") })
        let directory = try TemporaryDirectory()
        let prefix = directory.path + "/usr"
        try FileManager.default.createDirectory(atPath: prefix + "/share/man/man1", withIntermediateDirectories: true)
        try "another tool's page".write(toFile: prefix + "/share/man/man1/other.1", atomically: true, encoding: .utf8)
        let link = try InstallTests.block(after: "### Optional: `prefs` as `defaults`\n")
        let installed = try await InstallTests.run(install, prefix: prefix, home: directory.path)
        #expect(installed.status == 0, "\(installed.error)")
        if linked {
            #expect(try await InstallTests.run(link, prefix: prefix, home: directory.path).status == 0)
        } else {
            try "#!/bin/sh\n".write(toFile: prefix + "/bin/defaults", atomically: true, encoding: .utf8)
        }
        #expect(InstallTests.files(under: prefix) == ["bin/defaults", "bin/prefs", "share/bash-completion/completions/prefs", "share/fish/vendor_completions.d/prefs.fish",
                                                      "share/man/man1/other.1", "share/man/man1/prefs.1", "share/zsh/site-functions/_prefs"])
        let removed = try await InstallTests.run(uninstall, prefix: prefix, home: directory.path)
        #expect(removed.status == 0, "\(removed.error)")
        #expect(InstallTests.files(under: prefix) == (linked ? [] : ["bin/defaults"]) + ["share/man/man1/other.1"])
        // Run again, with nothing left to remove, it still succeeds.
        #expect(try await InstallTests.run(uninstall, prefix: prefix, home: directory.path).status == 0)
    }

    /// Where bash (bash-completion), zsh and fish find the completion for `prefs`, for a user whose
    /// home is `home`, with nothing else set: the file each would load, and what it offers for
    /// `prefs rea`. zsh runs the README's `fpath` line first, as `~/.zshrc` would.
    static func loadedCompletions(home: String, extra: [String: String] = [:]) async throws -> [String: String] {
        let environment = ["HOME": home, "PATH": Paths.products + ":/usr/bin:/bin", "LC_ALL": "C.UTF-8"].merging(extra) { $1 }
        let bashCompletion = "/usr/share/bash-completion/bash_completion"
        guard FileManager.default.fileExists(atPath: bashCompletion) else {
            throw TestFailure("bash-completion is not installed (apt-get install bash-completion); Tests/run-tests.sh installs it")
        }
        let bash = try await runProcess(try requireProgram("bash", install: "apt-get install bash"), ["--norc", "--noprofile", "-c", """
            source \(bashCompletion)
            __load_completion prefs || exit 3
            shopt -s extdebug
            declare -F _prefs | cut -d' ' -f3-
            COMP_WORDS=(prefs rea) COMP_CWORD=1 COMP_LINE='prefs rea' COMP_POINT=9
            _prefs prefs rea prefs
            printf '%s\\n' "${COMPREPLY[@]}" | sort
            """], environment: environment)
        let zshLine = try InstallTests.zshFpathLine()
        let zsh = try await runProcess(try requireProgram("zsh", install: "apt-get install zsh"), ["-f", "-c", """
            \(zshLine)
            autoload -U compinit && compinit -u -D
            print -r -- ${^fpath}/_prefs(N[1])
            print -r -- $_comps[prefs]
            """], environment: environment)
        let fish = try await runProcess(try requireProgram("fish", install: "apt-get install fish"), ["-c", """
            for d in $fish_complete_path; if test -f $d/prefs.fish; echo $d/prefs.fish; break; end; end
            complete -C 'prefs rea' | string replace -r '\\t.*' '' | sort
            """], environment: environment)
        // fish prints a path with `//` (a temporary directory's) as `/`: so are all compared.
        return ["bash": "\(bash.status) \(bash.outputText)\(bash.error)", "zsh": "\(zsh.status) \(zsh.outputText)\(zsh.error)",
                "fish": "\(fish.status) \(fish.outputText)\(fish.error)"].mapValues(InstallTests.collapsed)
    }

    /// `text` with each run of slashes written as one.
    static func collapsed(_ text: String) -> String {
        text.replacingOccurrences(of: "/+", with: "/", options: .regularExpression)
    }

    /// The `fpath` line the README's table of completions tells a zsh user of `~/.local` to add.
    static func zshFpathLine() throws -> String {
        let readme = try Paths.text("README.md")
        guard let row = readme.split(separator: "\n").first(where: { $0.hasPrefix("| zsh |") }),
              let start = row.range(of: "`fpath=("), let end = row[start.upperBound...].range(of: "`")
        else { throw TestFailure("README's completion table has no zsh row with an fpath line") }
        return String(row[row.index(after: start.lowerBound)..<end.lowerBound])
    }

    /// The one-user completion lines, on a fresh account (no `~/.local` yet), put the three files
    /// where bash, zsh (with the README's fpath line) and fish load them from.
    @Test func theOneUserCompletionLinesWorkOnAFreshAccount() async throws {
        let lines = try InstallTests.block(after: "### Shell completion\n")
        #expect(lines.first?.hasPrefix("mkdir -p ") == true)
        let home = try TemporaryDirectory()
        let run = try await runProcess("/bin/sh", ["-c", (["set -eu"] + lines).joined(separator: "\n")],
                                       environment: ["HOME": home.path, "PATH": Paths.products + ":/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.error)")
        try await InstallTests.expectFound(home: home.path, under: home.path + "/.local/share")
    }

    /// The install lines with `INSTALL_PREFIX=~/.local`, on a fresh account: the same three shells find them.
    @Test func theInstallLinesForOneUserPutCompletionsWhereTheShellsLook() async throws {
        let lines = Array(try InstallTests.block(after: "## Install\n").dropFirst())
        #expect(lines.contains { $0.hasPrefix("INSTALL_PREFIX=/usr/local ") && $0.contains("~/.local") })
        let home = try TemporaryDirectory()
        let run = try await InstallTests.run(lines, prefix: home.path + "/.local", home: home.path)
        #expect(run.status == 0, "\(run.error)")
        try await InstallTests.expectFound(home: home.path, under: home.path + "/.local/share")
    }

    /// The install lines with a system prefix: bash finds the completion through `XDG_DATA_DIRS`
    /// (whose default names `/usr/local/share`), fish when `XDG_DATA_DIRS` lists the prefix's share
    /// (and, without it, reads `/etc/fish/completions` but not `/usr/local/share`: the README's link);
    /// zsh's own `fpath` has `/usr/local/share/zsh/site-functions`.
    @Test func theInstallLinesForEveryUserPutCompletionsWhereTheShellsLook() async throws {
        let lines = Array(try InstallTests.block(after: "## Install\n").dropFirst())
        let directory = try TemporaryDirectory()
        let prefix = directory.path + "/usr/local"
        let home = directory.path + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let run = try await InstallTests.run(lines, prefix: prefix, home: home)
        #expect(run.status == 0, "\(run.error)")
        let found = try await InstallTests.loadedCompletions(home: home, extra: ["XDG_DATA_DIRS": prefix + "/share:/usr/share"])
        #expect(found["bash"] == InstallTests.collapsed("0 \(prefix)/share/bash-completion/completions/prefs\nread\nread-type\n"), "\(found["bash"] ?? "")")
        #expect(found["fish"] == InstallTests.collapsed("0 \(prefix)/share/fish/vendor_completions.d/prefs.fish\nread\nread-type\n"), "\(found["fish"] ?? "")")
        let zsh = try await runProcess(try requireProgram("zsh", install: "apt-get install zsh"), ["-f", "-c", "print -rl -- $fpath"], environment: ["HOME": home])
        #expect(zsh.outputText.split(separator: "\n").contains("/usr/local/share/zsh/site-functions"), "\(zsh.outputText)")
        let fish = try await runProcess(try requireProgram("fish", install: "apt-get install fish"), ["-c", "string join \\n -- $fish_complete_path"],
                                        environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
        let fishPath = fish.outputText.split(separator: "\n").map(String.init)
        #expect(fishPath.contains("/etc/fish/completions") && !fishPath.contains("/usr/local/share/fish/vendor_completions.d"), "\(fishPath)")
    }

    /// bash, zsh and fish, for the user at `home`, each load the completion installed under `share`
    /// (and no other) and offer `read` and `read-type` for `prefs rea`.
    static func expectFound(home: String, under share: String) async throws {
        let found = try await InstallTests.loadedCompletions(home: home)
        #expect(found["bash"] == InstallTests.collapsed("0 \(share)/bash-completion/completions/prefs\nread\nread-type\n"), "\(found["bash"] ?? "")")
        #expect(found["zsh"] == InstallTests.collapsed("0 \(share)/zsh/site-functions/_prefs\n_prefs\n"), "\(found["zsh"] ?? "")")
        #expect(found["fish"] == InstallTests.collapsed("0 \(share)/fish/vendor_completions.d/prefs.fish\nread\nread-type\n"), "\(found["fish"] ?? "")")
    }
}
