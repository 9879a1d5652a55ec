import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// `Suite.cachingReads()`: a value is read from the store once and kept until the suite may have
/// changed; never older than the last completed write, whoever made it.
@Suite struct ReadCacheTests {
    /// How many times the suite's file was read whole.
    static func reads(_ files: CountingFileSystem, _ path: String) -> Int {
        let counts = files.counts(path)
        return counts.contentsCalls + counts.withContentsCalls
    }

    @Test func aKeptValueIsServedWithoutReadingTheFileUntilItChanges() throws {
        let directory = try TemporaryDirectory()
        let files = CountingFileSystem(LocalFileSystem())
        let store = SuiteStore(fileSystem: files, environment: Environment(["XDG_CONFIG_HOME": directory.path, "XDG_DATA_DIRS": directory.file("none")]))
        let path = directory.file("com.example.app.plist")
        let cached = Prefs.Suite("com.example.app", store: store).cachingReads()
        let other = Prefs.Suite("com.example.app", store: store)
        try other.set(.retries, 5)
        #expect(try cached[.retries] == 5)
        let afterFirst = ReadCacheTests.reads(files, path)
        for _ in 0..<100 { #expect(try cached[.retries] == 5) }
        #expect(ReadCacheTests.reads(files, path) == afterFirst, "kept values do not read the file")
        #expect(cached.cache?.signalName == "kernel")
        // Another suite written in the same directory changes nothing kept.
        try Prefs.Suite("com.example.other", store: store).set(.retries, 1)
        for _ in 0..<10 { #expect(try cached[.retries] == 5) }
        #expect(ReadCacheTests.reads(files, path) == afterFirst)
        try other.set(.retries, 6)
        let afterWrite = ReadCacheTests.reads(files, path)
        for _ in 0..<100 { #expect(try cached[.retries] == 6) }
        #expect(ReadCacheTests.reads(files, path) == afterWrite + 1, "read again once after the change")
        // Its own writes are read back at once; another key of the suite is kept apart.
        try cached.set(.retries, 7)
        #expect(try cached[.retries] == 7 && cached[.nickname] == nil)
        try other.reset(.retries)
        #expect(try cached[.retries] == 3)
    }

    /// Every layer counts, not only the suite's own file: registered defaults, the global suite,
    /// an administrator's managed values; and a directory that does not exist yet.
    @Test(arguments: FileSystemKind.allCases)
    func aChangeToAnyLayerIsSeen(kind: FileSystemKind) throws {
        let fixture = try LayerFixture(kind)
        let cached = Prefs.Suite("app", store: fixture.store).cachingReads()
        #expect(try cached[.retries] == 3)
        try fixture.put("data/prefs/defaults/app.json", ["retries": 4])
        #expect(try cached[.retries] == 4)
        try fixture.put("config/.GlobalPreferences.plist", ["retries": 5])
        #expect(try cached[.retries] == 5)
        try fixture.put("config/app.plist", ["retries": 6])
        #expect(try cached[.retries] == 6)
        try fixture.put("xdg2/prefs/managed/app.plist", ["retries": 7])
        #expect(try cached[.retries] == 7)
        #expect(cached.cache?.signalName == (kind == .memory ? "identity" : "kernel"))
    }

    /// A suite whose file is a symlink: its target's directory is watched too.
    @Test func aSymlinkedSuitesTargetIsWatched() throws {
        let directory = try TemporaryDirectory()
        for name in ["config", "elsewhere"] { try FileManager.default.createDirectory(atPath: directory.file(name), withIntermediateDirectories: true) }
        let store = SuiteStore(fileSystem: LocalFileSystem(), environment: Environment(["XDG_CONFIG_HOME": directory.file("config"), "XDG_DATA_DIRS": directory.file("none")]))
        try Prefs.Suite("target", store: SuiteStore(fileSystem: LocalFileSystem(), environment: Environment(["XDG_CONFIG_HOME": directory.file("elsewhere")]))).set(.retries, 1)
        try FileManager.default.createSymbolicLink(atPath: directory.file("config/app.plist"), withDestinationPath: directory.file("elsewhere/target.plist"))
        let cached = Prefs.Suite("app", store: store).cachingReads()
        #expect(try cached[.retries] == 1)
        try Prefs.Suite("app", store: store).set(.retries, 2)
        #expect(try cached[.retries] == 2)
        let plist = Array("<plist><dict><key>retries</key><integer>3</integer></dict></plist>".utf8)
        try Data(plist).write(to: URL(fileURLWithPath: directory.file("elsewhere/target.plist")), options: .atomic)
        #expect(try cached[.retries] == 3)
    }

    /// A real second process writes, each time a value of the same length, by atomic rename or
    /// rewritten in place (same inode, same size, often the same timestamp), as fast as it can;
    /// after each write has completed, reads of the cached suite give that value — through the
    /// kernel's queue, and through the files' identities (what stands in when inotify cannot watch).
    @Test(arguments: ["atomic", "in-place"], ["kernel", "identity"])
    func anotherProcesssWriteIsSeenByTheNextRead(writing: String, signal: String) throws {
        let directory = try TemporaryDirectory()
        try ReadCacheTests.checkFreshness(in: directory.path, writing: writing, signal: signal)
    }

    /// The same on a file system that keeps whole seconds (ext4 with 128-byte inodes, on a loop
    /// device): there a rewrite in place within the same second leaves every field of the file's
    /// identity as it was, and only the racy window keeps the cache from serving the old value
    /// (without it, 897 of 900 reads were stale). On this machine's own file system the kernel
    /// (6.13 and later) gives a change after a look at the times finer ones, which hides that.
    @Test(.enabled(if: getuid() == 0, "needs root: mke2fs and mount -o loop"))
    func onAFileSystemOfWholeSecondsToo() throws {
        let coarse = try WholeSecondFileSystem()
        for writing in ["atomic", "in-place"] {
            for signal in ["kernel", "identity"] {
                let directory = coarse.path + "/" + writing + "-" + signal
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try ReadCacheTests.checkFreshness(in: directory, writing: writing, signal: signal)
            }
        }
    }

    static func checkFreshness(in directory: String, writing: String, signal: String) throws {
        let python = try requireProgram("python3", install: "python3")
        let store = SuiteStore(fileSystem: LocalFileSystem(), environment: Environment(["XDG_CONFIG_HOME": directory, "XDG_DATA_DIRS": directory + "/none"]))
        var cached = Prefs.Suite("com.example.app", store: store).cachingReads()
        if signal == "identity" {
            let layers = try Layers(.suite("com.example.app"), in: store)
            cached.cache = ReadCache { FileIdentities.onDisk(paths: { try ReadCache.files(of: layers, suite: "com.example.app") }, reason: "test") }
        }
        let writer = try LineProcess(python, ["-c", ReadCacheTests.writer, directory + "/com.example.app.plist", writing])
        defer { writer.end() }
        var stale = 0
        for round in 0..<300 {
            let word = "w" + String(1000 + round)
            try writer.send(word)
            for _ in 0..<3 where try cached[.word] != word { stale += 1 }
        }
        #expect(stale == 0, "\(writing), \(signal)")
        #expect(cached.cache?.signalName?.hasPrefix(signal) == true)
    }

    /// Writes `{"word": LINE}` for each line read, then answers "ok" once the file is in place.
    static let writer = """
        import os, plistlib, sys
        path, how = sys.argv[1], sys.argv[2]
        for line in sys.stdin:
            data = plistlib.dumps({"word": line.strip()}, fmt=plistlib.FMT_XML)
            if how == "atomic":
                with open(path + ".new", "wb") as f:
                    f.write(data)
                os.replace(path + ".new", path)
            else:
                with open(path, "r+b" if os.path.exists(path) else "wb") as f:
                    f.write(data)
                    f.truncate()
            print("ok", flush=True)
        """

    @Test func identitiesOfFilesChangedJustNowVouchForNothing() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("a.plist", "x")
        let identities = FileIdentities.onDisk(paths: { [path] }, reason: "test")
        #expect(identities.identify(path).racy)
        #expect(!identities.prepare(), "a file changed now is read again each time")
        #expect(identities.mayHaveChanged())
        // (The status-change time cannot be set back:) a file left alone for the window vouches for itself.
        let settled = FileIdentities(name: "test", paths: { [path] }) { _ in (.file(device: 1, inode: 2, size: 1, modified: 0, changed: 0), false) }
        #expect(settled.prepare() && !settled.mayHaveChanged())
    }

    /// On etcd the store's watch tells of changes: kept values follow another client's writes
    /// within the watch's latency, and the suite's own writes at once.
    @Test func onEtcdTheWatchKeepsValuesFresh() throws {
        let client = try SharedEtcd.client()
        let prefix = String(decoding: uniquePrefix().dropLast(), as: UTF8.self)
        let environment = Environment(["XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/p", "XDG_CONFIG_DIRS": "/x"])
        let storage = EtcdSuiteStorage(etcd: client, prefix: prefix, name: "etcd://test/" + prefix, environment: environment)
        let store = SuiteStore(storage: storage, files: FileSuiteStorage(fileSystem: LocalFileSystem(), environment: environment))
        let cached = Prefs.Suite("app", store: store).cachingReads()
        let other = Prefs.Suite("app", store: store)
        #expect(try cached[.retries] == 3)
        // Kept once the watch is on.
        let on = MonotonicClock.now() + 10
        while cached.cache?.signalName != "watch+kernel" || !ReadCacheTests.keeps(cached) {
            guard MonotonicClock.now() < on else { Issue.record("the watch never started"); return }
            usleep(10_000)
        }
        for value in 10..<15 {
            try other.set(.retries, value)
            let deadline = MonotonicClock.now() + 5
            while try cached[.retries] != value {
                guard MonotonicClock.now() < deadline else { Issue.record("\(value) never seen"); return }
                usleep(1000)
            }
        }
        try cached.set(.retries, 20)
        #expect(try cached[.retries] == 20)
    }

    /// Whether a read of the suite now is served from the cache (a second read finds the value kept).
    static func keeps(_ suite: Prefs.Suite) -> Bool {
        _ = try? suite[.retries]
        return suite.cache?.isKept("retries") == true
    }

    @Test func mountPointsWithSpacesAreReadFromMountinfo() {
        #expect(KernelChangeQueue.unescaped(ArraySlice(Array("/mnt/a\\040b".utf8))) == "/mnt/a b")
        #expect(KernelChangeQueue.mountType(of: "/") != nil)
        #expect(KernelChangeQueue.mountType(of: "/proc/self") == "proc")
        #expect(!KernelChangeQueue.isRemote(NSTemporaryDirectory()))
    }
}

/// A file system whose times are whole seconds (ext4 with 128-byte inodes) in an image file,
/// mounted on a loop device under a temporary directory until the value is released.
final class WholeSecondFileSystem {
    let directory: TemporaryDirectory
    var path: String { directory.file("mount") }

    init() throws {
        directory = try TemporaryDirectory()
        let image = directory.file("image")
        let script = "set -e; truncate -s 16M '\(image)'; mke2fs -q -t ext4 -I 128 -F '\(image)' 2>/dev/null; mkdir '\(path)'; mount -o loop '\(image)' '\(path)'"
        let run = try runProcess("/bin/sh", ["-c", script])
        guard run.status == 0 else { throw TestFailure("mounting a whole-second file system failed: \(run.error)") }
    }

    deinit { _ = try? runProcess("/bin/umount", ["-l", path]) }
}

/// A process spoken to a line at a time: each line sent is answered by one line.
final class LineProcess {
    let process = Process()
    let input = Pipe(), output = Pipe()
    private var pending: [UInt8] = []

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Sends `line` and waits for the answer.
    @discardableResult
    func send(_ line: String) throws -> String {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let answer = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                return answer
            }
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw TestFailure("the process ended") }
            pending += more
        }
    }

    func end() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
