import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// What the file store does with its files, on both file systems: formats, modes, patches, symlinks,
/// temporaries, locks. The semantics every backend shares (absence, no-op writes, corrupt stores,
/// key paths, deletes) are `BackendContractTests`.
@Suite struct FileStoreTests {
    static let xml = Array("<plist><dict><key>k</key><string>v</string></dict></plist>".utf8)

    @Test(arguments: FileSystemKind.allCases)
    func aNewSuiteIsXMLWithPrivateModesInAPrivateDirectory(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        #expect(try fixture.store.update(.suite("app")) { $0["k"] = 1 })
        let (value, format) = try PropertyList.decode(try fixture.bytes("config/app.plist"))
        #expect(value == ["k": 1] && format == .xml)
        #expect(try fixture.status("config/app.plist")?.mode == 0o600)
        #expect(try fixture.status("config")?.mode == 0o700)
        #expect(try fixture.names("config") == ["app.plist"])
    }

    @Test(arguments: FileSystemKind.allCases)
    func aSuiteKeepsItsFormatAndMode(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("config/bin.plist", try BinaryPlistEncoder.encode(["a": 1]), mode: 0o640)
        try fixture.put("data.json", Array("{\"a\": 1}".utf8))
        try fixture.store.update(.suite("bin")) { $0["b"] = 2 }
        try fixture.store.update(.file(fixture.root + "/data.json")) { $0["b"] = 2 }
        #expect(try PropertyList.decode(try fixture.bytes("config/bin.plist")) == (["a": 1, "b": 2], .binary))
        #expect(try fixture.status("config/bin.plist")?.mode == 0o640)
        #expect(try PropertyList.decode(try fixture.bytes("data.json")) == (["a": 1, "b": 2], .json))
    }

    /// A file replaced from pieces holds them one after the other and keeps its mode.
    @Test(arguments: FileSystemKind.allCases)
    func aFileReplacedFromPiecesHoldsThemInOrder(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("config/file", [1, 2, 3], mode: 0o640)
        let pieces: [[UInt8]] = [Array("first ".utf8), [], Array(repeating: 7, count: 70_000), Array(" last".utf8)]
        try pieces[0].withUnsafeBytes { a in
            try pieces[1].withUnsafeBytes { b in
                try pieces[2].withUnsafeBytes { c in
                    try pieces[3].withUnsafeBytes { d in
                        try fixture.fileSystem.replace(fixture.root + "/config/file", newFileMode: 0o600) { write in
                            for piece in [a, b, c, d] { try write(piece) }
                        }
                    }
                }
            }
        }
        #expect(try fixture.bytes("config/file") == pieces.flatMap { $0 })
        #expect(try fixture.status("config/file")?.mode == 0o640)
    }

    /// A one-key change of a large suite (written as a patch, in pieces) gives the file a full
    /// re-encode gives, and a change to the same value writes nothing.
    @Test(arguments: FileSystemKind.allCases, [PlistFormat.xml, .binary])
    func aOneKeyChangeOfALargeSuiteIsTheFullReencode(kind: FileSystemKind, format: PlistFormat) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("config/big.plist", try LargeSuite.bytes(format))
        let key = LargeSuite.key(LargeSuite.count / 2)
        #expect(try fixture.store.update(.suite("big"), keys: [key]) { $0[key] = "changed" })
        var expected = LargeSuite.contents
        expected[key] = "changed"
        let bytes = try fixture.bytes("config/big.plist")
        #expect(try PropertyList.decode(bytes) == (.dictionary(expected), format))
        if format == .xml { #expect(bytes == (try PropertyList.encode(.dictionary(expected), as: .xml))) }
        let before = try fixture.status("config/big.plist")
        #expect(try fixture.store.update(.suite("big"), keys: [key]) { $0[key] = "changed" } == false)
        #expect(try fixture.status("config/big.plist") == before)
    }

    /// A no-op write of a file another program wrote leaves its bytes as they are, never re-encoded.
    @Test(arguments: FileSystemKind.allCases)
    func aNoOpWriteLeavesTheFileUntouched(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("config/app.plist", FileStoreTests.xml)
        let before = try fixture.status("config/app.plist")
        #expect(try fixture.store.update(.suite("app")) { $0["k"] = "v" } == false)
        #expect(try fixture.status("config/app.plist") == before)
        #expect(try fixture.bytes("config/app.plist") == FileStoreTests.xml)
    }

    @Test(arguments: FileSystemKind.allCases)
    func aRootThatIsNotADictionaryIsADataError(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("config/list.plist", Array("<plist><array/></plist>".utf8))
        do {
            _ = try fixture.store.load(.suite("list"))
            Issue.record("loaded a root array")
        } catch let error as PrefsError {
            #expect(error.exitStatus == .dataError)
            guard case .malformed(let source?, _, let reason) = error else { Issue.record("\(error)"); return }
            #expect(source.hasSuffix("list.plist") && reason.contains("not a dictionary"), "\(error)")
        }
        #expect(throws: PrefsError.self) { try fixture.store.value(at: PrefKeyPath(["k"]), in: .suite("list")) }
    }

    @Test(arguments: FileSystemKind.allCases)
    func aSymlinkedSuiteIsFollowedAndKept(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("dotfiles/app.plist", FileStoreTests.xml)
        try fixture.fileSystem.createDirectory(fixture.config, mode: 0o700)
        try fixture.symlink("config/app.plist", to: fixture.root + "/dotfiles/app.plist")
        try fixture.store.update(.suite("app")) { $0["n"] = 1 }
        #expect(try PropertyList.decode(try fixture.bytes("dotfiles/app.plist")).value == ["k": "v", "n": 1])
        #expect(try fixture.fileSystem.resolvingSymlinks(fixture.config + "/app.plist") == fixture.root + "/dotfiles/app.plist")
        #expect(try fixture.names("dotfiles") == ["app.plist"])
    }

    @Test(arguments: FileSystemKind.allCases)
    func aZeroLengthFileIsAnEmptySuite(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("config/empty.plist", [])
        #expect(try fixture.store.load(.suite("empty"))?.contents == [:])
        try fixture.store.update(.suite("empty")) { $0["a"] = true }
        #expect(try PropertyList.decode(try fixture.bytes("config/empty.plist")).value == ["a": true])
    }

    @Test(arguments: FileSystemKind.allCases)
    func anOpenStepSuiteRefusesTypesItCannotHold(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        let text = Array("{ a = b; }".utf8)
        try fixture.put("config/old.plist", text)
        #expect(throws: PrefsError.self) { try fixture.store.update(.suite("old")) { $0["n"] = 1 } }
        #expect(try fixture.bytes("config/old.plist") == text)
        try fixture.store.update(.suite("old")) { $0["c"] = "d" }
        #expect(try PropertyList.decode(try fixture.bytes("config/old.plist")) == (["a": "b", "c": "d"], .openStep))
    }

    @Test(arguments: FileSystemKind.allCases)
    func aFileDomainInAMissingDirectoryCannotBeWritten(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        #expect(throws: PrefsError.cannotWrite(path: fixture.root + "/missing/app.plist", errno: ENOENT)) {
            try fixture.store.update(.file(fixture.root + "/missing/app.plist")) { $0["a"] = 1 }
        }
        #expect(try fixture.status("missing") == nil)
    }

    @Test(arguments: FileSystemKind.allCases)
    func staleTemporaryFilesAreRemovedByTheNextWrite(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("config/app.plist", FileStoreTests.xml)
        try fixture.put("config/.app.plist.prefs-dead1", Array("half".utf8))
        try fixture.put("config/.other.plist.prefs-dead2", Array("half".utf8))
        try fixture.store.update(.suite("app")) { $0["k"] = "new" }
        #expect(try fixture.names("config") == [".other.plist.prefs-dead2", "app.plist"])
    }

    /// A suite name that leaves no room in a file name for `.NAME.plist.prefs-RANDOM` (240 bytes;
    /// its file, 246, fits): its temporaries are named with a head of the name and a hash of all of
    /// it, it is written and rewritten, and a write removes its killed writers' leftovers — never a
    /// temporary of a suite whose name starts the same, nor of one whose name is the start of it.
    @Test(arguments: FileSystemKind.allCases)
    func aLongSuiteNameIsWrittenAndItsStaleTemporariesRemoved(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        let name = String(repeating: "é", count: 120)        // 240 bytes: the head is cut between characters
        let twin = String(repeating: "é", count: 119) + "ee"  // the same head, another hash
        let plain = String(repeating: "é", count: 100)       // its temporary's name is plain
        for other in [twin, plain] { try fixture.put("config/\(other).plist", FileStoreTests.xml) }
        let leftovers = [name, twin, plain].map { TemporaryName.make(for: $0 + ".plist") }
        #expect(TemporaryName.isTemporary(leftovers[0], of: name + ".plist") && leftovers[0].utf8.count <= 255)
        for leftover in leftovers { try fixture.put("config/" + leftover, Array("half".utf8)) }
        try fixture.store.update(.suite(name)) { $0["k"] = "new" }
        try fixture.store.update(.suite(name)) { $0["k"] = "newer" }
        #expect(try fixture.store.load(.suite(name))?.contents["k"] == "newer")
        #expect(try fixture.names("config") == ([name, twin, plain].map { $0 + ".plist" } + leftovers.dropFirst()).sorted())
        // A name a plain temporary's prefix starts is not its owner: `.NAME.plist.prefs-x.plist.prefs-1`
        // belongs to the suite NAME.plist.prefs-x, not NAME.
        try fixture.put("config/.\(plain).plist.prefs-x.plist.prefs-1", Array("half".utf8))
        try fixture.store.update(.suite(plain)) { $0["k"] = "new" }
        #expect(try fixture.names("config").contains(".\(plain).plist.prefs-x.plist.prefs-1"))
        #expect(!(try fixture.names("config").contains(leftovers[2])))
    }

    /// A temporary file another writer still holds (its `flock`) is no writer's leftover: the next
    /// write leaves it, and the first write after that writer is gone removes it.
    @Test func aTemporaryStillBeingWrittenIsLeftAlone() throws {
        let fixture = try StoreFixture(.disk)
        try fixture.put("config/app.plist", FileStoreTests.xml)
        try fixture.put("config/.app.plist.prefs-live1", Array("half".utf8))
        let writer = open(fixture.config + "/.app.plist.prefs-live1", O_RDONLY | O_CLOEXEC)
        try #require(writer >= 0 && flock(writer, LOCK_EX) == 0)
        try fixture.store.update(.suite("app")) { $0["k"] = "new" }
        #expect(try fixture.names("config") == [".app.plist.prefs-live1", "app.plist"])
        close(writer)
        try fixture.store.update(.suite("app")) { $0["k"] = "newer" }
        #expect(try fixture.names("config") == ["app.plist"])
    }

    /// Two writers of one file the user named (`writeFile`, which writes its temporary file without
    /// the file's lock): the one that commits first does not remove the other's temporary file, so
    /// both succeed and the last one's bytes are the file's.
    @Test func twoWritersOfOneOutputFileBothSucceed() throws {
        let fixture = try StoreFixture(.disk)
        let path = fixture.root + "/out.plist"
        try fixture.fileSystem.writeFile(path, newFileMode: 0o644, lockTimeout: 1) { write in
            try Array("outer ".utf8).withUnsafeBytes(write)
            // Another writer starts and commits while this one is half written.
            try fixture.fileSystem.writeFile(path, Array("inner".utf8), newFileMode: 0o644, lockTimeout: 1)
            try Array("done".utf8).withUnsafeBytes(write)
        }
        #expect(try fixture.bytes("out.plist") == Array("outer done".utf8))
        #expect(try fixture.names("").filter { $0.hasPrefix(".") } == [], "a temporary file left behind")
    }
}
