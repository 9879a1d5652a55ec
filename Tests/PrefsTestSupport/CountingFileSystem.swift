import Foundation
import PrefsCore

/// A file system that passes every call to another one and records, per path, how each file was
/// read and written: whole arrays (`contents(of:)`) or a buffer lent to a body (`withContents`),
/// how many bytes, and the bytes of the last replacement.
///
/// Both the store's slow and fast paths read a suite whole once and write it whole once (a
/// replacement is always a complete new file), so byte counts alone cannot tell them apart; what
/// differs is which read is used and what the written bytes are.
public final class CountingFileSystem: FileSystem, @unchecked Sendable {
    public struct Counts: Equatable, Sendable, CustomStringConvertible {
        public var contentsCalls = 0
        public var contentsBytes = 0
        public var withContentsCalls = 0
        public var withContentsBytes = 0
        public var replaceCalls = 0
        public var bytesWritten = 0

        public init() {}

        public var description: String {
            "contents(of:) \(contentsCalls)× \(contentsBytes) B, withContents \(withContentsCalls)× \(withContentsBytes) B, "
                + "replace \(replaceCalls)× \(bytesWritten) B"
        }
    }

    public let base: any FileSystem
    private let lock = NSLock()
    private var counts: [String: Counts] = [:]
    private var lastWritten: [String: [UInt8]] = [:]

    public init(_ base: any FileSystem) { self.base = base }

    /// What happened to `path` since the last `reset()`.
    public func counts(_ path: String) -> Counts { lock.withLock { counts[path] ?? Counts() } }

    /// The bytes `path` was last replaced with, if it was.
    public func written(_ path: String) -> [UInt8]? { lock.withLock { lastWritten[path] } }

    public func reset() {
        lock.withLock {
            counts = [:]
            lastWritten = [:]
        }
    }

    private func record(_ path: String, _ change: (inout Counts) -> Void) {
        lock.withLock { change(&counts[path, default: Counts()]) }
    }

    public func contents(of path: String) throws -> [UInt8] {
        let bytes = try base.contents(of: path)
        record(path) {
            $0.contentsCalls += 1
            $0.contentsBytes += bytes.count
        }
        return bytes
    }

    public func withContents<T>(of path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        try base.withContents(of: path) { bytes in
            record(path) {
                $0.withContentsCalls += 1
                $0.withContentsBytes += bytes.count
            }
            return try body(bytes)
        }
    }

    public func status(of path: String) throws -> FileStatus? { try base.status(of: path) }

    public func resolvingSymlinks(_ path: String) throws -> String { try base.resolvingSymlinks(path) }

    public func contentsOfDirectory(_ path: String) throws -> [String] { try base.contentsOfDirectory(path) }

    public func createDirectory(_ path: String, mode: mode_t) throws { try base.createDirectory(path, mode: mode) }

    public func writeSpecial(_ path: String, streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        try base.writeSpecial(path, streaming: produce)
    }

    public func replace(_ path: String, with bytes: [UInt8], newFileMode: mode_t) throws {
        try base.replace(path, with: bytes, newFileMode: newFileMode)
        record(path) {
            $0.replaceCalls += 1
            $0.bytesWritten += bytes.count
        }
        lock.withLock { lastWritten[path] = bytes }
    }

    public func removeFile(_ path: String) throws { try base.removeFile(path) }

    public func withLock<T>(ofFile path: String, timeout: Double, _ body: () throws -> T) throws -> T {
        try base.withLock(ofFile: path, timeout: timeout, body)
    }

    public func createConfinedFile(in directory: ConfinedPath, name: () -> String) throws(ConfinedError) -> any ConfinedFile {
        try base.createConfinedFile(in: directory, name: name)
    }

    public func openConfinedFile(_ path: ConfinedPath) throws(ConfinedError) -> any ConfinedFile { try base.openConfinedFile(path) }

    public func confinedEntries(_ directory: ConfinedPath) throws(ConfinedError) -> [ConfinedEntry] { try base.confinedEntries(directory) }

    public func removeIfUnused(_ path: ConfinedPath) throws(ConfinedError) -> ConfinedRemoval { try base.removeIfUnused(path) }
    public func isSettled(_ path: ConfinedPath) -> Bool { base.isSettled(path) }

    public func removeConfinedDirectoryIfEmpty(_ path: ConfinedPath) -> Bool { base.removeConfinedDirectoryIfEmpty(path) }
}
