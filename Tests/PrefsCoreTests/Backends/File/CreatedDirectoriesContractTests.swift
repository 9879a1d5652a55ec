import Foundation
import Testing
@testable import PrefsCore

/// What `createConfinedFile` says it made, on both file systems alike: exactly the directories that
/// were missing (the base's missing ancestors included), outermost first — what a failed write
/// removes again — and a blob given up with them leaves the tree as it was.
@Suite struct CreatedDirectoriesContractTests {
    @Test(arguments: FileSystemKind.allCases)
    func aNewFileTellsWhichDirectoriesItMade(kind: FileSystemKind) throws {
        let fixture = try StoreFixture(kind)
        let base = fixture.root + "/data/prefs"
        let first = try fixture.fileSystem.createConfinedFile(in: ConfinedPath(base: base, ["external", "s", "k"])) { ".tmp-1" }
        #expect(first.createdDirectories == [ConfinedPath(base: fixture.root + "/data", []), ConfinedPath(base: base, []),
                                             ConfinedPath(base: base, ["external"]), ConfinedPath(base: base, ["external", "s"]),
                                             ConfinedPath(base: base, ["external", "s", "k"])])
        let second = try fixture.fileSystem.createConfinedFile(in: ConfinedPath(base: base, ["external", "s", "j"])) { ".tmp-2" }
        #expect(second.createdDirectories == [ConfinedPath(base: base, ["external", "s", "j"])])
        // Given up innermost first, while they are empty: the first's go but for the one the second uses.
        for file in [first, second] {
            file.abandon()
            file.close()
        }
        let blobs = FileBlobStore(fileSystem: fixture.fileSystem, base: base)
        blobs.removeIfEmpty(first.createdDirectories)
        #expect(try fixture.fileSystem.status(of: base + "/external/s/j")?.isDirectory == true)
        #expect(try fixture.fileSystem.status(of: base + "/external/s/k") == nil)
        blobs.removeIfEmpty(second.createdDirectories)
        blobs.removeIfEmpty(first.createdDirectories)
        #expect(try fixture.fileSystem.status(of: fixture.root + "/data") == nil)
        #expect(try fixture.fileSystem.status(of: fixture.root)?.isDirectory == true)
    }
}
