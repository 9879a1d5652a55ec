import Foundation
import Testing
@testable import PrefsCore
import PrefsTestSupport

/// The host's cache on disk (`LocalCacheFiles`): files 0600 in directories 0700, written by rename;
/// a symlink planted anywhere below the cache home, or a directory or file of another user, is never
/// read, written or followed.
@Suite struct CacheFilesTests {
    let home: TemporaryDirectory
    let files: any CacheFiles

    init() throws {
        home = try TemporaryDirectory()
        files = try #require(LocalFileSystem().cacheFiles(in: ConfinedPath(base: home.path + "/cache", ["prefs", "snapshots"])))
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    func names(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    @Test func filesAre0600InDirectories0700() throws {
        let old = umask(0)
        defer { umask(old) }
        #expect(files.write("a.plist", [1, 2, 3]))
        #expect(try mode(home.path + "/cache/prefs") == 0o700 && mode(home.path + "/cache/prefs/snapshots") == 0o700)
        #expect(try mode(home.path + "/cache/prefs/snapshots/a.plist") == 0o600)
        #expect(files.read("a.plist", limit: 10)?.bytes == [1, 2, 3])
        #expect(files.read("a.plist", limit: 2) == nil, "larger than the limit")
        #expect(names(home.path + "/cache/prefs/snapshots") == ["a.plist"], "no temporary file left")
        // A directory another run left open to others is closed again.
        chmod(home.path + "/cache/prefs/snapshots", 0o755)
        #expect(files.write("a.plist", [4]))
        #expect(try mode(home.path + "/cache/prefs/snapshots") == 0o700)
        #expect(files.entries().map(\.name) == ["a.plist"])
        files.remove("a.plist")
        #expect(files.read("a.plist", limit: 10) == nil)
    }

    @Test func touchMovesTheModificationTimeOnly() throws {
        #expect(files.write("a.plist", [1]))
        let path = home.path + "/cache/prefs/snapshots/a.plist"
        var times = [timespec(tv_sec: 1000, tv_nsec: 0), timespec(tv_sec: 1000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(files.read("a.plist", limit: 10)?.modified == 1000)
        files.touch("a.plist")
        #expect((files.read("a.plist", limit: 10)?.modified ?? 0) > 1_000_000_000)
        #expect(files.read("a.plist", limit: 10)?.bytes == [1])
    }

    /// A symlink at each place below the cache home: nothing is read through it, nothing is written
    /// where it points, and removing the name removes the link, not its target.
    @Test(arguments: ["prefs", "prefs/snapshots", "prefs/snapshots/a.plist"])
    func aPlantedSymlinkIsNeverFollowed(_ planted: String) throws {
        let elsewhere = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: home.path + "/cache/prefs/snapshots", withIntermediateDirectories: true)
        let link = home.path + "/cache/" + planted
        try? FileManager.default.removeItem(atPath: link)
        let target = planted.hasSuffix(".plist") ? elsewhere.file("a.plist") : elsewhere.path
        try elsewhere.write("a.plist", [9])
        #expect(symlink(target, link) == 0)
        #expect(files.read("a.plist", limit: 100) == nil)
        let written = files.write("a.plist", [1])
        #expect(try Data(contentsOf: URL(fileURLWithPath: elsewhere.file("a.plist"))) == Data([9]), "the target is unchanged")
        #expect(names(elsewhere.path) == ["a.plist"], "nothing new where the link points")
        if planted.hasSuffix(".plist") {
            // The rename replaces the link itself with a file of the cache's own.
            #expect(written)
            var info = stat()
            #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        } else {
            #expect(!written)
        }
        files.touch("a.plist")
        files.remove("a.plist")
        #expect(try Data(contentsOf: URL(fileURLWithPath: elsewhere.file("a.plist"))) == Data([9]))
    }

    /// What another user owns (a directory `sudo prefs` made in the user's home, a file put there)
    /// is neither read nor written through. (Run as root: the test gives them to another uid.)
    @Test func anotherUsersDirectoryOrFileIsNotTrusted() throws {
        try #require(geteuid() == 0, "needs root to give a file to another user")
        #expect(files.write("a.plist", [1]))
        let file = home.path + "/cache/prefs/snapshots/a.plist"
        #expect(chown(file, 4242, 4242) == 0)
        #expect(files.read("a.plist", limit: 10) == nil)
        #expect(chown(file, 0, 0) == 0)
        #expect(chown(home.path + "/cache/prefs", 4242, 4242) == 0)
        #expect(files.read("a.plist", limit: 10) == nil)
        #expect(!files.write("b.plist", [2]))
        #expect(names(home.path + "/cache/prefs/snapshots") == ["a.plist"])
    }

    @Test func aFIFOOrADirectoryIsNoFile() throws {
        #expect(files.write("a.plist", [1]))
        let directory = home.path + "/cache/prefs/snapshots/"
        #expect(mkfifo(directory + "f.plist", 0o600) == 0)
        #expect(mkdir(directory + "d.plist", 0o700) == 0)
        #expect(files.read("f.plist", limit: 10) == nil, "never waits on a FIFO")
        #expect(files.read("d.plist", limit: 10) == nil)
        files.remove("d.plist")
        #expect(names(directory).contains("d.plist"), "a directory is not removed")
    }
}
