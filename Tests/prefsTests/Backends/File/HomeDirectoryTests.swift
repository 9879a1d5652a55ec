import Foundation
import Glibc
import Testing
@testable import PrefsCore

/// `~USER` in a path domain is that user's home as `/etc/passwd` gives it, never looked up through
/// NSS: a static `prefs` cannot load the modules `/etc/nsswitch.conf` names (it crashed with SIGSEGV
/// on a user `files` does not know, once glibc went on to `systemd`). An unknown user is a usage
/// error (64) naming the path and the user, and nothing is written.
@Suite(.runsProcesses) struct HomeDirectoryTests {
    @Test func aUserIsFoundInThePasswordFileAndAnUnknownOneIsAUsageError() throws {
        let directory = try TemporaryDirectory()
        let passwd = try directory.write("passwd", """
            root:x:0:0:root:/root:/bin/bash
            ada:x:1000:1000:Ada, Countess:/home/ada:/bin/sh
            ada:x:1001:1001::/home/second:/bin/sh
            broken line
            rel:x:1002:1002::relative:/bin/sh

            """)
        #expect(try SuiteStore.expandingTilde("~ada/x", home: nil, passwd: passwd) == "/home/ada/x")
        #expect(try SuiteStore.expandingTilde("~ada", home: nil, passwd: passwd) == "/home/ada")
        #expect(try SuiteStore.expandingTilde("~root/.config/s.plist", home: nil, passwd: passwd) == "/root/.config/s.plist")
        for unknown in ["~nosuchuser/x", "~broken line/x", "~rel/x", "~x:0/x", "~/x"] {
            #expect(throws: PrefsError.self, "\(unknown)") { try SuiteStore.expandingTilde(unknown, home: nil, passwd: passwd) }
        }
        #expect(throws: PrefsError.usage("~nosuchuser/x: there is no user nosuchuser in \(passwd)")) {
            try SuiteStore.expandingTilde("~nosuchuser/x", home: nil, passwd: passwd)
        }
    }

    /// On a host whose `/etc/nsswitch.conf` names only a module that is not installed (made so in a
    /// private mount namespace, with a password file of the test's own bound over `/etc/passwd`), a
    /// user of that file is found and an unknown user is 64 with one line, as `prefs` and as
    /// `defaults`, for `write` and `read`, and nothing is created.
    @Test(.enabled(if: getuid() == 0, "needs root: unshare -m and mount --bind"))
    func noNameServiceIsConsulted() async throws {
        let sandbox = try ProcessSandbox()
        let home = sandbox.directory.path + "/home/prefsuser"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let nsswitch = try sandbox.directory.write("nsswitch.conf", "passwd: prefsnosuchmodule\ngroup: prefsnosuchmodule\n")
        let passwd = try sandbox.directory.write("passwd", "root:x:0:0:root:/root:/bin/bash\nprefsuser:x:4242:4242::\(home):/bin/sh\n")
        try FileManager.default.createSymbolicLink(atPath: sandbox.directory.file("defaults"), withDestinationPath: Paths.binary)
        let script = """
            mount --bind '\(nsswitch)' /etc/nsswitch.conf && mount --bind '\(passwd)' /etc/passwd || exit 99
            prefs write '~prefsuser/s' a -int 1; echo "write $?"
            prefs read '~prefsuser/s' a; echo "read $?"
            prefs write '~nosuchuser/x' a -int 1; echo "write $?"
            prefs read '~nosuchuser/x' a; echo "read $?"
            '\(sandbox.directory.file("defaults"))' read '~nosuchuser/x' a; echo "defaults read $?"
            '\(sandbox.directory.file("defaults"))' write '~nosuchuser/x' a -int 1; echo "defaults write $?"
            """
        let run = try await runProcess("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/bash", "-c", script], environment: sandbox.environment)
        #expect(run.outputText == "write 0\n1\nread 0\nwrite 64\nread 64\ndefaults read 1\ndefaults write 1\n", "\(run.outputText) \(run.error)")
        let lines = run.error.split(separator: "\n")
        #expect(lines.count == 4, "\(run.error)")
        #expect(lines.prefix(2).allSatisfy { $0 == "prefs: ~nosuchuser/x: there is no user nosuchuser in /etc/passwd" }, "\(run.error)")
        #expect(lines.dropFirst(2).allSatisfy { $0.contains("there is no user nosuchuser") }, "\(run.error)")
        #expect(FileManager.default.fileExists(atPath: home + "/s.plist"))
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/~nosuchuser"))
    }
}
