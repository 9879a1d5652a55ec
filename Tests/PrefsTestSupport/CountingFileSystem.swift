import Foundation
import PrefsCore

/// A file system that passes every call to another one and records, per path, how each file was
/// read and written: whole arrays (`contents(of:)`) or a buffer lent to a body (`withContents`),
/// how many bytes, and the bytes of the last replacement.
///
/// Both the store's slow and fast paths read a suite whole once and write it whole once (a
/// replacement is always a complete new file), so byte counts alone cannot tell them apart; what
/// differs is which read is used and what the written bytes are.
package final class CountingFileSystem: FileSystem, @unchecked Sendable {
    package struct Counts: Equatable, Sendable, CustomStringConvertible {
        package var contentsCalls = 0
        package var contentsBytes = 0
        package var withContentsCalls = 0
        package var withContentsBytes = 0
        package var replaceCalls = 0
        package var bytesWritten = 0

        package init() {}

        package var description: String {
            "contents(of:) \(contentsCalls)× \(contentsBytes) B, withContents \(withContentsCalls)× \(withContentsBytes) B, "
                + "replace \(replaceCalls)× \(bytesWritten) B"
        }
    }

    package let base: any FileSystem
    private let lock = NSLock()
    private var counts: [String: Counts] = [:]
    private var lastWritten: [String: [UInt8]] = [:]

    package init(_ base: any FileSystem) { self.base = base }

    /// What happened to `path` since the last `reset()`.
    package func counts(_ path: String) -> Counts { lock.withLock { counts[path] ?? Counts() } }

    /// The bytes `path` was last replaced with, if it was.
    package func written(_ path: String) -> [UInt8]? { lock.withLock { lastWritten[path] } }

    package func reset() {
        lock.withLock {
            counts = [:]
            lastWritten = [:]
        }
    }

    private func record(_ path: String, _ change: (inout Counts) -> Void) {
        lock.withLock { change(&counts[path, default: Counts()]) }
    }

    package func contents(of path: String) throws -> [UInt8] {
        let bytes = try base.contents(of: path)
        record(path) {
            $0.contentsCalls += 1
            $0.contentsBytes += bytes.count
        }
        return bytes
    }

    package func withContents<T>(of path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        try base.withContents(of: path) { bytes in
            record(path) {
                $0.withContentsCalls += 1
                $0.withContentsBytes += bytes.count
            }
            return try body(bytes)
        }
    }

    package func status(of path: String) throws -> FileStatus? { try base.status(of: path) }

    package func resolvingSymlinks(_ path: String) throws -> String { try base.resolvingSymlinks(path) }

    package func contentsOfDirectory(_ path: String) throws -> [String] { try base.contentsOfDirectory(path) }

    package func createDirectory(_ path: String, mode: mode_t) throws { try base.createDirectory(path, mode: mode) }

    package func writeSpecial(_ path: String, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        try base.writeSpecial(path, streaming: produce)
    }

    package func replace(_ path: String, with bytes: [UInt8], newFileMode: mode_t) throws {
        try base.replace(path, with: bytes, newFileMode: newFileMode)
        record(path) {
            $0.replaceCalls += 1
            $0.bytesWritten += bytes.count
        }
        lock.withLock { lastWritten[path] = bytes }
    }

    package func removeFile(_ path: String) throws { try base.removeFile(path) }

    /// Run before each `isHeldByAWriter`, with its path: a test plays a writer's next step there.
    package var beforeLookingForAWriter: ((String) -> Void)?

    package func isHeldByAWriter(_ path: String) -> Bool {
        lock.withLock { beforeLookingForAWriter }?(path)
        return base.isHeldByAWriter(path)
    }

    package func withLock<T>(ofFile path: String, timeout: Double, _ body: () throws -> T) throws -> T {
        try base.withLock(ofFile: path, timeout: timeout, body)
    }

    package func createConfinedFile(in directory: ConfinedPath, name: () -> String) throws(ConfinedError) -> any ConfinedFile {
        try base.createConfinedFile(in: directory, name: name)
    }

    package func openConfinedFile(_ path: ConfinedPath) throws(ConfinedError) -> any ConfinedFile { try base.openConfinedFile(path) }

    package func confinedEntries(_ directory: ConfinedPath) throws(ConfinedError) -> [ConfinedEntry] { try base.confinedEntries(directory) }

    package func removeIfUnused(_ path: ConfinedPath) throws(ConfinedError) -> BlobRemoval { try base.removeIfUnused(path) }
    package func isSettled(_ path: ConfinedPath) -> Bool { base.isSettled(path) }

    package func removeConfinedDirectoryIfEmpty(_ path: ConfinedPath) -> Bool { base.removeConfinedDirectoryIfEmpty(path) }
}
