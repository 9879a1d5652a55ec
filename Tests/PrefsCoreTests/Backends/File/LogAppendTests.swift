import Foundation
import Glibc
import PrefsTestSupport
import Testing
@testable import PrefsCore

/// A replace that adds to a log (a suite's file and its history's `versions.log`): the log is added
/// to only once the file is in place, stands or falls on its own, cuts what a crash left past its
/// last record, and leaves no temporary file behind whatever fails — on disk and in the in-memory
/// file system the tests of the stores use.
@Suite struct LogAppendTests {
    enum Kind: String, CaseIterable { case local, inMemory }

    struct Fixture {
        let fileSystem: any FileSystem
        let root: String
        let scratch: TemporaryDirectory?

        init(_ kind: Kind) throws {
            switch kind {
            case .local:
                let scratch = try TemporaryDirectory()
                self.scratch = scratch
                fileSystem = LocalFileSystem()
                root = scratch.path
            case .inMemory:
                scratch = nil
                fileSystem = InMemoryFileSystem()
                root = "/home/u"
                try fileSystem.createDirectory(root, mode: 0o700)
            }
            try fileSystem.createDirectory(root + "/config", mode: 0o700)
        }

        var suite: String { root + "/config/s.plist" }
        var history: String { root + "/history/s" }
        var log: String { history + "/versions.log" }

        /// Replaces the suite's file with `text` and adds `record` to the log at `offset` (or
        /// rewrites it), removing `removing` there; what `rename` said of the log.
        func replace(_ text: String, _ record: String, at offset: Int, rewrite: Bool = false, removing: [String] = [],
                     failing: Bool = false) throws -> Bool {
            var added = false
            let log = LogAppend(path: log, bytes: Array(record.utf8), offset: offset, rewrite: rewrite, removing: removing.map { history + "/" + $0 })
            try fileSystem.replace(suite, newFileMode: 0o600, streaming: { write in
                if failing { throw PrefsError.cannotWrite(path: suite, errno: ENOSPC) }
                try Array(text.utf8).withUnsafeBytes(write)
            }, alongside: log) { rename in added = try rename() }
            return added
        }

        func text(_ path: String) throws -> String? {
            guard try fileSystem.status(of: path) != nil else { return nil }
            return String(decoding: try fileSystem.contents(of: path), as: UTF8.self)
        }

        /// The names in a directory that are no one's file: temporary files left behind.
        func temporaries(_ directory: String) throws -> [String] {
            try fileSystem.contentsOfDirectory(directory).filter { $0.hasPrefix(".") }
        }
    }

    /// Made with its directory (0700, the log 0600), appended to, cut back where a crash left part
    /// of a record, rewritten whole; the files it supersedes go with it.
    @Test(arguments: Kind.allCases)
    func theLogIsAddedToWithTheFile(kind: Kind) throws {
        let f = try Fixture(kind)
        #expect(try f.replace("one", "h|1|", at: 0))
        #expect(try f.fileSystem.status(of: f.history)?.mode == 0o700)
        #expect(try f.fileSystem.status(of: f.log)?.mode == 0o600)
        try f.fileSystem.replace(f.history + "/old.plist", with: Array("old".utf8), newFileMode: 0o600)
        #expect(try f.replace("two", "2|", at: 4, removing: ["old.plist"]))
        #expect(try f.text(f.suite) == "two")
        #expect(try f.text(f.log) == "h|1|2|")
        #expect(try f.fileSystem.contentsOfDirectory(f.history) == ["versions.log"])
        // Past the offset: what a crash left of a record, cut.
        try f.fileSystem.replace(f.log, with: Array("h|1|2|3-torn".utf8), newFileMode: 0o600)
        #expect(try f.replace("three", "3|", at: 6))
        #expect(try f.text(f.log) == "h|1|2|3|")
        #expect(try f.replace("four", "h|3|4|", at: 0, rewrite: true))
        #expect(try f.text(f.log) == "h|3|4|")
        #expect(try f.temporaries(f.root + "/config") == [])
        #expect(try f.temporaries(f.history) == [])
    }

    /// Where the log's directory should be there is a file: the file is replaced, the log is not
    /// made, and the file in its way stays as it was.
    @Test(arguments: Kind.allCases)
    func aLogThatCannotBeWrittenStopsNothing(kind: Kind) throws {
        let f = try Fixture(kind)
        try f.fileSystem.createDirectory(f.root + "/history", mode: 0o700)
        try f.fileSystem.replace(f.history, with: Array("in the way".utf8), newFileMode: 0o600)
        #expect(try f.replace("one", "h|1|", at: 0) == false)
        #expect(try f.text(f.suite) == "one")
        #expect(try f.text(f.history) == "in the way")
        #expect(try f.temporaries(f.root + "/config") == [])
        #expect(try f.temporaries(f.root + "/history") == [])
    }

    /// The log's name is taken by a directory: the file is replaced, nothing is added, and what it
    /// would have removed stays.
    @Test(arguments: Kind.allCases)
    func aLogThatIsADirectoryRemovesNothing(kind: Kind) throws {
        let f = try Fixture(kind)
        try f.fileSystem.createDirectory(f.log, mode: 0o700)
        try f.fileSystem.replace(f.history + "/old.plist", with: Array("old".utf8), newFileMode: 0o600)
        #expect(try f.replace("one", "h|1|", at: 0, removing: ["old.plist"]) == false)
        #expect(try f.replace("two", "h|1|", at: 0, rewrite: true, removing: ["old.plist"]) == false)
        #expect(try f.text(f.suite) == "two")
        #expect(try f.text(f.history + "/old.plist") == "old")
        #expect(try f.temporaries(f.history) == [])
    }

    /// A FIFO in the log's place is never opened to wait for a reader: nothing is added, at once.
    @Test func aFIFOInTheLogsPlaceIsPassedOver() throws {
        let f = try Fixture(.local)
        try f.fileSystem.createDirectory(f.history, mode: 0o700)
        #expect(mkfifo(f.log, 0o600) == 0)
        #expect(try f.replace("one", "h|1|", at: 0) == false)
        #expect(try f.text(f.suite) == "one")
        #expect(try f.fileSystem.status(of: f.log)?.isSpecial == true)
    }

    /// A writer holds the suite's file until it has added to the log: a reader can tell a version
    /// may be on its way (`isHeldByAWriter`). On disk the new file is held from its rename until
    /// the replace returns; on both, while `withLock(ofFile:)` runs.
    @Test(arguments: Kind.allCases)
    func theFileIsHeldUntilTheLogIsAddedTo(kind: Kind) throws {
        let f = try Fixture(kind)
        #expect(try f.replace("one", "h|1|", at: 0))
        #expect(!f.fileSystem.isHeldByAWriter(f.suite))
        try f.fileSystem.withLock(ofFile: f.suite, timeout: 5) { #expect(f.fileSystem.isHeldByAWriter(f.suite)) }
        #expect(!f.fileSystem.isHeldByAWriter(f.suite))
        guard kind == .local else { return }
        var heldAfterRename = false
        try f.fileSystem.replace(f.suite, newFileMode: 0o600, streaming: { write in try Array("two".utf8).withUnsafeBytes(write) },
                                 alongside: LogAppend(path: f.log, bytes: Array("2|".utf8), offset: 4)) { rename in
            _ = try rename()
            heldAfterRename = f.fileSystem.isHeldByAWriter(f.suite)
        }
        #expect(heldAfterRename && !f.fileSystem.isHeldByAWriter(f.suite))
        #expect(try f.text(f.suite) == "two" && f.text(f.log) == "h|1|2|")
    }

    /// The file's own replace fails (its bytes cannot be produced): the log is not added to,
    /// nothing is removed, no temporary file stays.
    @Test(arguments: Kind.allCases)
    func aFileThatFailsLeavesTheLogAsItWas(kind: Kind) throws {
        let f = try Fixture(kind)
        #expect(try f.replace("one", "h|1|", at: 0))
        try f.fileSystem.replace(f.history + "/old.plist", with: Array("old".utf8), newFileMode: 0o600)
        #expect(throws: PrefsError.self) { try f.replace("two", "2|", at: 4, removing: ["old.plist"], failing: true) }
        #expect(try f.text(f.suite) == "one")
        #expect(try f.text(f.log) == "h|1|")
        #expect(try f.fileSystem.contentsOfDirectory(f.history).sorted() == ["old.plist", "versions.log"])
        #expect(try f.temporaries(f.root + "/config") == [])
    }
}
