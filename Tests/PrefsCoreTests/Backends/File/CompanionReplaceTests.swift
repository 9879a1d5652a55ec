import Foundation
import PrefsTestSupport
import Testing
@testable import PrefsCore

/// A replace with a companion (a suite's file with its version): the companion is in place only
/// with the file, stands or falls on its own, and leaves no temporary file behind whatever fails —
/// on disk and in the in-memory file system the tests of the stores use.
@Suite struct CompanionReplaceTests {
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

        /// Replaces the suite's file with `text` and the companion `name` in the history with `version`,
        /// removing `removing` there; what `rename` said of the companion.
        func replace(_ text: String, companion name: String = "2.plist", _ version: String = "v2", removing: [String] = [],
                     failing: Bool = false) throws -> Bool {
            var placed = false
            let companion = CompanionFile(path: history + "/" + name, bytes: Array(version.utf8), newFileMode: 0o600,
                                          directoryMode: 0o700, removing: removing.map { history + "/" + $0 })
            try fileSystem.replace(suite, newFileMode: 0o600, streaming: { write in
                if failing { throw PrefsError.cannotWrite(path: suite, errno: ENOSPC) }
                try Array(text.utf8).withUnsafeBytes(write)
            }, alongside: companion) { rename in placed = try rename() }
            return placed
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

    @Test(arguments: Kind.allCases)
    func theCompanionGoesInWithTheFileAndRemovesWhatItReplaces(kind: Kind) throws {
        let f = try Fixture(kind)
        #expect(try f.replace("one", companion: "1.plist", "v1"))
        #expect(try f.fileSystem.status(of: f.history)?.mode == 0o700)
        #expect(try f.fileSystem.status(of: f.history + "/1.plist")?.mode == 0o600)
        #expect(try f.replace("two", removing: ["1.plist"]))
        #expect(try f.text(f.suite) == "two")
        #expect(try f.text(f.history + "/2.plist") == "v2")
        #expect(try f.fileSystem.contentsOfDirectory(f.history) == ["2.plist"])
        #expect(try f.temporaries(f.root + "/config") == [])
    }

    /// Where the companion's directory should be there is a file: the file is replaced, the
    /// companion is not, and the file in its way stays as it was.
    @Test(arguments: Kind.allCases)
    func aCompanionThatCannotBeWrittenStopsNothing(kind: Kind) throws {
        let f = try Fixture(kind)
        try f.fileSystem.createDirectory(f.root + "/history", mode: 0o700)
        try f.fileSystem.replace(f.history, with: Array("in the way".utf8), newFileMode: 0o600)
        #expect(try f.replace("one") == false)
        #expect(try f.text(f.suite) == "one")
        #expect(try f.text(f.history) == "in the way")
        #expect(try f.temporaries(f.root + "/config") == [])
        #expect(try f.temporaries(f.root + "/history") == [])
    }

    /// The companion's own name is taken by a directory, so its rename fails: the file is
    /// replaced, the companion's temporary file is gone, and what it would have removed stays.
    @Test(arguments: Kind.allCases)
    func aCompanionThatCannotBePlacedRemovesNothing(kind: Kind) throws {
        let f = try Fixture(kind)
        #expect(try f.replace("one", companion: "1.plist", "v1"))
        try f.fileSystem.createDirectory(f.history + "/2.plist", mode: 0o700)
        #expect(try f.replace("two", removing: ["1.plist"]) == false)
        #expect(try f.text(f.suite) == "two")
        #expect(try f.text(f.history + "/1.plist") == "v1")
        #expect(try f.temporaries(f.history) == [])
    }

    /// The file's own replace fails (its bytes cannot be produced): neither is in place, nothing is
    /// removed, no temporary file stays.
    @Test(arguments: Kind.allCases)
    func aFileThatFailsTakesItsCompanionWithIt(kind: Kind) throws {
        let f = try Fixture(kind)
        #expect(try f.replace("one", companion: "1.plist", "v1"))
        #expect(throws: PrefsError.self) { try f.replace("two", removing: ["1.plist"], failing: true) }
        #expect(try f.text(f.suite) == "one")
        #expect(try f.fileSystem.contentsOfDirectory(f.history) == ["1.plist"])
        #expect(try f.temporaries(f.root + "/config") == [])
    }
}
