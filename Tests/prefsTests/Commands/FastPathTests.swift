import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

/// `prefs read S K` and `prefs write S K V` on a large binary or XML suite take the store's fast
/// paths (see SuiteStoreFastPathTests for what tells them apart): the read borrows the file and
/// does not notice damage in another value; the write leaves the old document with one entry
/// replaced.
@Suite struct FastPathTests {
    static let path = "/home/u/.config/big.plist"

    static func home(_ bytes: [UInt8]) throws -> (InMemoryHome, CountingFileSystem) {
        let home = InMemoryHome()
        try home.fileSystem.write(path, bytes)
        return (home, CountingFileSystem(home.fileSystem))
    }

    @Test(arguments: [PlistFormat.binary, .xml])
    func aOneKeyReadDecodesOnlyThatKey(format: PlistFormat) throws {
        let bytes = try LargeSuite.damaged(try LargeSuite.bytes(format))
        let (home, counting) = try Self.home(bytes)
        let read = prefs(["read", "big", LargeSuite.key(4321)], environment: home.environment, fileSystem: counting)
        #expect(read.status == .success && read.output == "value 4321\n", "\(read.error)")
        let counts = counting.counts(Self.path)
        #expect(counts.withContentsCalls == 1 && counts.withContentsBytes == bytes.count && counts.contentsCalls == 0, "\(counts)")
        #expect(prefs(["read-type", "big", LargeSuite.key(7)], environment: home.environment, fileSystem: counting).output == "string\n")
        // The damage is real: reading the whole suite fails.
        let whole = prefs(["read", "big"], environment: home.environment, fileSystem: counting)
        #expect(whole.status == .dataError && whole.error.hasPrefix("prefs: \(Self.path): "), "\(whole.error)")
    }

    @Test(arguments: [PlistFormat.binary, .xml])
    func aOneKeyWritePatchesTheFileInPlace(format: PlistFormat) throws {
        let bytes = format == .xml ? try LargeSuite.handEditedXML() : try LargeSuite.bytes(format)
        let (home, counting) = try Self.home(bytes)
        let key = LargeSuite.key(1234)
        let write = prefs(["write", "big", key, "-string", "changed"], environment: home.environment, fileSystem: counting)
        #expect(write.status == .success, "\(write.error)")
        let counts = counting.counts(Self.path)
        #expect(counts.contentsCalls == 0 && counts.withContentsCalls == 1 && counts.replaceCalls == 1, "\(counts)")
        let written = try #require(counting.written(Self.path))
        let problems = try LargeSuite.patchProblems(written, from: bytes, format: format, changing: key, to: "changed")
        #expect(problems.isEmpty, "\(problems)")
    }
}
