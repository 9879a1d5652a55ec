import Foundation
import Testing
@testable import PrefsCore

/// Confined places (external storage's directories) on both file systems: the same table of
/// scenarios, the same results, so the in-memory twin cannot drift from the disk.
@Suite struct ConfinedContractTests {
    static func place(_ fixture: StoreFixture, _ components: String...) -> ConfinedPath {
        ConfinedPath(base: fixture.root + "/data", components)
    }

    static func write(_ file: any ConfinedFile, _ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { try file.write($0) }
    }

    static func read(_ file: any ConfinedFile) throws -> String {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    @Test(arguments: FileSystemKind.allCases)
    func aNewFileIsHeldUntilClosedThenCommittedAndRemovable(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        let directory = Self.place(fixture, "external", "s", "k")
        let file = try fixture.fileSystem.createConfinedFile(in: directory) { ".tmp-1" }
        try Self.write(file, "blob")
        try file.sync()
        try file.commit(as: "uuid")
        #expect(try fixture.fileSystem.confinedEntries(directory).map(\.name) == ["uuid"])
        #expect(try fixture.fileSystem.removeIfUnused(directory.appending("uuid")) == .inUse)
        file.close()
        #expect(try Self.read(try fixture.fileSystem.openConfinedFile(directory.appending("uuid"))) == "blob")
        #expect(try fixture.fileSystem.removeIfUnused(directory.appending("uuid")) == .removed)
        #expect(try fixture.fileSystem.removeIfUnused(directory.appending("uuid")) == .missing)
        #expect(fixture.fileSystem.removeConfinedDirectoryIfEmpty(directory))
        #expect(try fixture.fileSystem.confinedEntries(Self.place(fixture, "external", "s")) == [])
        // A name that is taken is never reused: the next one is asked for.
        var names = ["a", "a", "b"].makeIterator()
        let first = try fixture.fileSystem.createConfinedFile(in: directory) { names.next()! }
        let second = try fixture.fileSystem.createConfinedFile(in: directory) { names.next()! }
        first.close()
        second.close()
        #expect(try fixture.fileSystem.confinedEntries(directory).map(\.name) == ["a", "b"])
    }

    @Test(arguments: FileSystemKind.allCases)
    func anAbandonedFileIsGone(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        let directory = Self.place(fixture, "external", "s", "k")
        let file = try fixture.fileSystem.createConfinedFile(in: directory) { ".tmp-2" }
        file.abandon()
        file.close()
        #expect(try fixture.fileSystem.confinedEntries(directory) == [])
    }

    /// A symlink at any depth below the base is never followed: creating through it, opening,
    /// listing and removing all stop there and name it; the link and its target stay.
    @Test(arguments: FileSystemKind.allCases, ["external", "external/s", "external/s/k"])
    func aSymlinkBelowTheBaseIsNeverFollowed(kind: FileSystemKind, linked: String) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("victim/a/b", Array("precious".utf8))
        try fixture.fileSystem.createDirectory(fixture.root + "/data/" + splitPath(linked).directory, mode: 0o700)
        try fixture.symlink("data/" + linked, to: fixture.root + "/victim")
        let link = ConfinedPath(base: fixture.root + "/data", linked.split(separator: "/").map(String.init))
        let below = ConfinedPath(base: fixture.root + "/data", ["external", "s", "k"])
        #expect(throws: ConfinedError.symlink(link)) { try fixture.fileSystem.createConfinedFile(in: below) { "x" } }
        #expect(throws: ConfinedError.symlink(link)) { try fixture.fileSystem.openConfinedFile(below.appending("a")) }
        #expect(throws: ConfinedError.symlink(link)) { try fixture.fileSystem.confinedEntries(below) }
        #expect(throws: ConfinedError.symlink(link)) { try fixture.fileSystem.removeIfUnused(link.appending("a").appending("b")) }
        #expect(!fixture.fileSystem.removeConfinedDirectoryIfEmpty(link))
        // The entry itself is reported as a symlink by its parent's listing.
        #expect(try fixture.fileSystem.confinedEntries(link.parent).first { $0.name == link.name }?.kind == .symlink)
        #expect(try fixture.bytes("victim/a/b") == Array("precious".utf8))
        #expect(try fixture.fileSystem.contentsOfDirectory(fixture.root + "/victim/a") == ["b"])
    }

    @Test(arguments: FileSystemKind.allCases)
    func aSymlinkedFileIsNeitherOpenedNorRemoved(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.put("victim", Array("precious".utf8))
        try fixture.fileSystem.createDirectory(fixture.root + "/data/external/s/k", mode: 0o700)
        try fixture.symlink("data/external/s/k/blob", to: fixture.root + "/victim")
        let blob = Self.place(fixture, "external", "s", "k", "blob")
        #expect(throws: ConfinedError.symlink(blob)) { try fixture.fileSystem.openConfinedFile(blob) }
        #expect(throws: ConfinedError.symlink(blob)) { try fixture.fileSystem.removeIfUnused(blob) }
        #expect(throws: ConfinedError.missing(Self.place(fixture, "external", "s", "k", "none"))) {
            try fixture.fileSystem.openConfinedFile(Self.place(fixture, "external", "s", "k", "none"))
        }
        #expect(try fixture.bytes("victim") == Array("precious".utf8))
    }

    /// The base itself is followed, as any path is (a user may link their data home elsewhere).
    @Test(arguments: FileSystemKind.allCases)
    func theBaseIsFollowed(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        try fixture.fileSystem.createDirectory(fixture.root + "/elsewhere", mode: 0o700)
        try fixture.symlink("data", to: fixture.root + "/elsewhere")
        let file = try fixture.fileSystem.createConfinedFile(in: Self.place(fixture, "external")) { "f" }
        file.close()
        #expect(try fixture.fileSystem.contentsOfDirectory(fixture.root + "/elsewhere/external") == ["f"])
    }

    /// External storage runs on either file system: a large value goes to a blob, reads back checked,
    /// and a damaged blob is refused.
    @Test(arguments: FileSystemKind.allCases)
    func externalStorageWorksOnBothFileSystems(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        let store = SuiteStore(fileSystem: fixture.fileSystem, environment: Environment([
            "XDG_CONFIG_HOME": fixture.config, "XDG_DATA_HOME": fixture.root + "/data", "XDG_CONFIG_DIRS": fixture.root + "/xdg", "PREFS_EXTERNAL_THRESHOLD": "10"]))
        let value = PrefValue.string(String(repeating: "large ", count: 10))
        try store.update(.suite("s")) { $0["big"] = value }
        let stored = try #require(try store.load(.suite("s"))?.contents["big"])
        let reference = try #require(try ExternalReference.parse(stored))
        #expect(try Layers(.suite("s"), in: store).value(at: PrefKeyPath(["big"]))?.value == value)
        let blob = ConfinedPath(base: fixture.root + "/data/prefs", ["external", "s", reference.directory, reference.uuid])
        let removed = try fixture.fileSystem.removeIfUnused(blob)
        #expect(removed == .removed, "the writer released its blob once the suite was committed")
        #expect(throws: PrefsError.self) { try Layers(.suite("s"), in: store).value(at: PrefKeyPath(["big"])) }
    }
}
