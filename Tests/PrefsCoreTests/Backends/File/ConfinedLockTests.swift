import Foundation
import Testing
@testable import PrefsCore

/// The lock `gc` relies on (a new blob is held shared until its writer closes it) is released when
/// the writer closes the file, even while another process still has the descriptor: a child that
/// another thread forks at that moment holds a copy of every descriptor until its `exec` closes them
/// (O_CLOEXEC), and an flock belongs to the open file, not to one descriptor. Left to `close`, the
/// lock would outlive the writer's close until the child's exec — on a loaded machine long enough
/// for `removeIfUnused` to find the finished blob `.inUse`. The child's copy is made here with `dup`,
/// which shares the open file exactly as fork does.
@Suite struct ConfinedLockTests {
    @Test func closingReleasesTheLockWhateverCopiesOfTheDescriptorRemain() throws {
        let scratch = try TemporaryDirectory()
        let fileSystem = LocalFileSystem()
        let directory = ConfinedPath(base: scratch.path + "/data", ["external", "s", "k"])
        let file = try fileSystem.createConfinedFile(in: directory) { ".tmp-1" }
        try Array("blob".utf8).withUnsafeBytes { try file.write($0) }
        try file.commit(as: "uuid")
        let copy = try #require(try Self.duplicate(of: scratch.path + "/data/external/s/k/uuid"))
        defer { close(copy) }
        file.close()
        #expect(try fileSystem.removeIfUnused(directory.appending("uuid")) == .removed)
    }

    /// A duplicate of this process's descriptor open on `path` (the same file, by device and inode).
    static func duplicate(of path: String) throws -> Int32? {
        var wanted = stat()
        guard stat(path, &wanted) == 0 else { return nil }
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard let descriptor = Int32(name) else { continue }
            var info = stat()
            if fstat(descriptor, &info) == 0, info.st_dev == wanted.st_dev, info.st_ino == wanted.st_ino {
                let copy = dup(descriptor)
                return copy >= 0 ? copy : nil
            }
        }
        return nil
    }
}
