import Foundation
import Testing
@testable import PrefsCore

/// A one-key read and a one-key write of a large binary or XML suite take the fast paths.
///
/// What tells the paths apart (both read the whole file once and write a whole new file once, so
/// byte counts through the file system cannot):
/// - a read: the fast path (`PropertyList.lookup`) borrows the file (`withContents`) and does not
///   interpret the other values, so a value damaged elsewhere goes unnoticed; the slow path
///   (`load`, a full decode) takes an array (`contents(of:)`) and fails on that value;
/// - a write: the fast path (`TopLevelPatch`) hands `change` only the keys it named and writes the
///   old document with just those entries replaced (XML: a comment and a hexadecimal integer
///   elsewhere stay; binary: every old object stays byte for byte, the new value is appended); the
///   slow path decodes every entry, hands them all to `change`, and re-encodes the whole file.
@Suite struct SuiteStoreFastPathTests {
    static let formats: [PlistFormat] = [.binary, .xml]

    final class Fixture {
        let store: StoreFixture
        let counting: CountingFileSystem
        let suite: SuiteStore
        let path: String

        init(_ kind: FileSystemKind, _ bytes: [UInt8]) throws {
            store = try StoreFixture(kind)
            try store.put("config/big.plist", bytes)
            counting = CountingFileSystem(store.fileSystem)
            suite = SuiteStore(fileSystem: counting, environment: Environment([
                "XDG_CONFIG_HOME": store.config, "XDG_DATA_HOME": store.root + "/data", "PREFS_LOCK_TIMEOUT": "1",
                "XDG_DATA_DIRS": store.root + "/pkg", "XDG_CONFIG_DIRS": store.root + "/xdg",
            ]))
            path = store.config + "/big.plist"
        }
    }

    @Test(arguments: formats, FileSystemKind.allCases)
    func aOneKeyReadDecodesOnlyThatKey(format: PlistFormat, kind: FileSystemKind) throws {
        let bytes = try LargeSuite.damaged(try LargeSuite.bytes(format))
        let fixture = try Fixture(kind, bytes)
        let key = LargeSuite.key(2500)

        #expect(try fixture.suite.value(at: PrefKeyPath([key]), in: .suite("big")) == LargeSuite.value(2500))
        let counts = fixture.counting.counts(fixture.path)
        #expect(counts.withContentsCalls == 1 && counts.withContentsBytes == bytes.count, "\(counts)")
        #expect(counts.contentsCalls == 0, "\(counts)")
        #expect(try fixture.suite.value(at: PrefKeyPath([LargeSuite.key(0)]), in: .suite("big")) == LargeSuite.value(0))
        #expect(try fixture.suite.value(at: PrefKeyPath(["absent"]), in: .suite("big")) == nil)

        // The damage is real: decoding the whole suite, or the damaged value, fails.
        #expect(throws: PrefsError.self) { try fixture.suite.load(.suite("big")) }
        #expect(throws: PrefsError.self) { try fixture.suite.value(at: PrefKeyPath([LargeSuite.damageableKey]), in: .suite("big")) }
    }

    @Test(arguments: formats, FileSystemKind.allCases)
    func aOneKeyWritePatchesTheFileInPlace(format: PlistFormat, kind: FileSystemKind) throws {
        let bytes = format == .xml ? try LargeSuite.handEditedXML() : try LargeSuite.bytes(format)
        let fixture = try Fixture(kind, bytes)
        let key = LargeSuite.key(2500)

        var seen: [String] = []
        let changed = try fixture.suite.update(.suite("big"), keys: [key]) { contents in
            seen = contents.keys.sorted()
            contents[key] = "changed"
        }
        #expect(changed)
        // Only the named key was decoded for the change.
        #expect(seen == [key])
        let counts = fixture.counting.counts(fixture.path)
        #expect(counts.contentsCalls == 0 && counts.withContentsCalls == 1 && counts.replaceCalls == 1, "\(counts)")
        let written = try #require(fixture.counting.written(fixture.path))
        let problems = try LargeSuite.patchProblems(written, from: bytes, format: format, changing: key, to: "changed")
        #expect(problems.isEmpty, "\(problems)")
        #expect(try fixture.store.fileSystem.contents(of: fixture.path) == written)
    }
}
