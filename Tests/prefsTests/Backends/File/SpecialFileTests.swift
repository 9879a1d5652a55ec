import Foundation
import Glibc
import Testing
@testable import PrefsCore

/// A FIFO where the store keeps a file (a suite, a registration, a package's registered defaults)
/// is refused with 65 at once — opening it would block every read and write — while a pipe named
/// on the command line (`--defaults <(…)`, `import S <(…)`) is still read.
@Suite(.runsProcesses) struct SpecialFileTests {
    func fifo(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try #require(mkfifo(path, 0o600) == 0)
    }

    /// A suite file its user cannot read (mode 000) is "cannot read", 74, for every verb: a write
    /// opens the file for reading to lock it. Run as nobody when the tests run as root, whom no
    /// mode stops.
    @Test(.enabled(if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "as root, needs /usr/bin/setpriv to run prefs as a user a file's mode stops"))
    func anUnreadableSuiteIsCannotReadForEveryVerb() async throws {
        let sandbox = try ProcessSandbox()
        try #require(try await sandbox.prefs("write", "s", "k", "1").status == 0)
        let path = sandbox.config + "/s.plist"
        let before = try Fixtures.bytes(path)
        var user = ""
        if getuid() == 0 {
            try #require(try await sandbox.shell("chown -R 65534:65534 \"$HOME\"").status == 0)
            user = "setpriv --reuid=65534 --regid=65534 --clear-groups "
        }
        try #require(chmod(path, 0) == 0)
        for arguments in ["read s", "read s k", "dump -", "write s k 2", "delete s k", "rename s k j"] {
            let run = try await sandbox.shell(user + "prefs " + arguments)
            #expect(run.status == 74 && run.error == "prefs: \(path): cannot read: permission denied\n", "\(arguments): \(run.status) \(run.error)")
        }
        try #require(chmod(path, 0o600) == 0)
        #expect(try Fixtures.bytes(path) == before)
    }

    @Test func aFIFOInTheStoreIsRefusedNotWaitedFor() async throws {
        let sandbox = try ProcessSandbox()
        try fifo(sandbox.config + "/ff.plist")
        for arguments in [["read", "ff", "k"], ["read", "ff"], ["write", "ff", "k", "1"], ["delete", "ff"], ["write", sandbox.config + "/ff.plist", "k", "1"]] {
            let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment, timeout: 20)
            #expect(run.status == 65 && run.error.contains("ff.plist: not a regular file"), "\(arguments): \(run.status) \(run.error)")
        }
        #expect(try await sandbox.prefs("domains").error.contains("ff.plist: not a regular file; skipped"))
        try #require(await sandbox.prefs("write", "app", "k", "1").status == 0)
        for registration in [sandbox.data + "/prefs/defaults/app.plist", sandbox.packages + "/prefs/defaults/app.plist"] {
            try fifo(registration)
            let run = try await runProcess(Paths.binary, ["read", "app", "k"], environment: sandbox.environment, timeout: 20)
            #expect(run.status == 65 && run.error.contains("not a regular file"), "\(registration): \(run.status) \(run.error)")
            try FileManager.default.removeItem(atPath: registration)
        }
        let pipe = try await runProcess("/bin/bash", ["-c", "prefs read app z --defaults <(echo '{\"z\": 7}') && prefs import other <(echo '{\"z\": 8}') && prefs read other z"],
                                  environment: sandbox.environment, timeout: 20)
        #expect(pipe.status == 0 && pipe.outputText == "7\n8\n", "\(pipe.error)")
    }
}
