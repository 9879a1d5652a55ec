import Glibc
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// On disk, what follows a change's commit (`StoredChange.didCommit`: the writer releasing its new
/// blobs and removing the old ones) is done while the suite is still locked, so `check`, which lists
/// the suite and its blobs holding the lock (`withChangesHeld`), never finds the new suite beside an
/// old blob a live writer is about to remove. The lock taken on the old file keeps no one out once the
/// new file is renamed into its place; the writer's lock on the new file does, until it is done.
@Suite struct CommitUnderLockTests {
    @Test(arguments: [false, true])
    func whatFollowsACommitIsDoneWhileTheSuiteIsStillLocked(patched: Bool) throws {
        let fixture = try StoreFixture(.disk)
        try fixture.store.update(.suite("s")) { $0["k"] = "one"; $0["other"] = "x" }
        let storage = FileSuiteStorage(fileSystem: fixture.fileSystem,
                                       environment: Environment(["XDG_CONFIG_HOME": fixture.config, "PREFS_LOCK_TIMEOUT": "0"]))
        var lockedAtCommit: Bool?
        let change = StoredChange(apply: { contents, _ in contents["k"] = "two" }, probe: { $0["k"] = "two" }, didCommit: {
            // As another process would: open the suite's file (the new one by now) and try its lock.
            do {
                try storage.withChangesHeld(.suite("s"), creating: false) {}
                lockedAtCommit = false
            } catch PrefsError.lockUnavailable {
                lockedAtCommit = true
            } catch {
                Issue.record("\(error)")
            }
        })
        #expect(try storage.modify(.suite("s"), scope: patched ? ["k"] : nil, removingEmpty: false, change))
        #expect(lockedAtCommit == true)
        #expect(try storage.load(.suite("s"))?.contents == ["k": "two", "other": "x"])
        try storage.withChangesHeld(.suite("s"), creating: false) {}
    }

    /// A writer holds the key directory shared from before it makes a new blob until the blob is
    /// held (`createConfinedFile`): while it does, no file there is taken for settled.
    @Test func aFileIsNotSettledWhileAWriterIsMakingOneBeside() throws {
        let scratch = try TemporaryDirectory()
        let fileSystem = LocalFileSystem()
        let directory = ConfinedPath(base: scratch.path + "/data", ["external", "s", "k"])
        let file = try fileSystem.createConfinedFile(in: directory) { ".tmp-1" }
        file.close()
        let path = directory.appending(".tmp-1")
        #expect(fileSystem.isSettled(path))
        let writer = open(scratch.path + "/data/external/s/k", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(writer >= 0)
        defer { close(writer) }
        #expect(flock(writer, LOCK_SH) == 0)
        #expect(!fileSystem.isSettled(path))
        #expect(flock(writer, LOCK_UN) == 0)
        #expect(fileSystem.isSettled(path))
    }
}
