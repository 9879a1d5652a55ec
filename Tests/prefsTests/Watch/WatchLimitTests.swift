import Foundation
import Testing
@testable import PrefsCore

/// At inotify's limits `watch` says which limit was reached and the sysctl that sets it, not "no
/// space left on device" (inotify_add_watch's ENOSPC) or "too many open files" (inotify_init1's
/// EMFILE). The limits are reached for real in a user namespace of the test's own: its
/// `/proc/sys/user/max_inotify_*` apply to it alone (counted per user namespace, under the
/// machine's), so lowering them there to 0 touches no other process.
@Suite(.runsProcesses) struct WatchLimitTests {
    @Test(arguments: [
        ("max_inotify_watches", "watch limit (fs.inotify.max_user_watches)"),
        ("max_inotify_instances", "instance limit (fs.inotify.max_user_instances)"),
    ])
    func watchAtAnInotifyLimitNamesIt(file: String, named: String) async throws {
        let unshare = try requireProgram("unshare", install: "apt-get install util-linux")
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let script = "echo 0 > /proc/sys/user/\(file) || exit 99; exec \"$0\" watch app --timeout 0"
        let run = try await runProcess(unshare, ["--user", "--map-root-user", "/bin/sh", "-c", script, Paths.binary], environment: sandbox.environment)
        try #require(run.status != 99, "could not lower \(file) in a user namespace: \(run.error)")
        #expect(run.status == 74)
        #expect(run.error.hasPrefix("prefs: "), "\(run.error)")
        #expect(run.error.hasSuffix(": cannot watch: the inotify \(named) was reached; raise it with sysctl\n"), "\(run.error)")
        #expect(!run.error.contains("no space left"))
        #expect(run.outputText == "")
    }

    /// The watch limit's message names the directory that could not be watched.
    @Test func theWatchLimitNamesTheDirectory() async throws {
        let unshare = try requireProgram("unshare", install: "apt-get install util-linux")
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "k", "v")
        let script = "echo 0 > /proc/sys/user/max_inotify_watches || exit 99; exec \"$0\" watch app --timeout 0"
        let run = try await runProcess(unshare, ["--user", "--map-root-user", "/bin/sh", "-c", script, Paths.binary], environment: sandbox.environment)
        try #require(run.status != 99, "could not lower max_inotify_watches in a user namespace: \(run.error)")
        let path = String(run.error.dropFirst("prefs: ".count).prefix { $0 != ":" })
        #expect(path.hasPrefix(sandbox.directory.path), "\(run.error)")
    }

    /// Below the process: the errno values inotify gives at its limits, and only those, become the
    /// limit's error.
    @Test func inotifyErrnoIsMappedWhereItIsRaised() {
        #expect(InotifyFeed.watchError(ENOSPC, path: "/d") == .inotifyLimit(path: "/d", limit: "watch", setting: "fs.inotify.max_user_watches"))
        #expect(InotifyFeed.watchError(ENOMEM, path: "/d") == .cannotRead(path: "/d", errno: ENOMEM))
        #expect(InotifyFeed.initError(EMFILE, descriptorFree: true)
                == .inotifyLimit(path: "inotify", limit: "instance", setting: "fs.inotify.max_user_instances"))
        // No descriptor free either: the process's own limit, which strerror names.
        #expect(InotifyFeed.initError(EMFILE, descriptorFree: false) == .cannotRead(path: "inotify", errno: EMFILE))
        #expect(InotifyFeed.initError(ENFILE, descriptorFree: true) == .cannotRead(path: "inotify", errno: ENFILE))
    }
}
