import Glibc

/// The blobs of values kept outside their suites, under `$XDG_DATA_HOME/prefs/external/SUITE/KEYDIR/UUID`
/// (directories 0700, blobs 0600). A blob is the value's bytes: a string's UTF-8, a data value's raw
/// bytes, an array's or dictionary's binary property list. It is written whole before any suite
/// refers to it (temporary file, fsync, rename, fsync of the directory) and never changed after.
///
/// Everything below `$XDG_DATA_HOME/prefs` is a confined place (`ConfinedPath`): no symlink there is
/// followed, so neither a planted link nor a hand-edited reference reaches outside the store. Every
/// read verifies the blob's size and SHA-256 against its reference. A blob being written stays held
/// (a shared lock) until its suite is committed, so `gc` never takes a blob a write is about to
/// commit, whatever its grace period.
public struct ExternalStorage: Sendable {
    let fileSystem: any FileSystem
    /// `$XDG_DATA_HOME/prefs`, found as any path is; `external/…` below it is confined.
    let base: String
    static let temporaryPrefix = ".tmp-"

    init(fileSystem: any FileSystem, base: String) {
        self.fileSystem = fileSystem
        self.base = base
    }

    /// `…/prefs/external`.
    var root: ConfinedPath { ConfinedPath(base: base, ["external"]) }

    /// The directory of one suite's blobs (`NAME` is the suite's name, or `NSGlobalDomain`).
    func directory(of suite: String) -> ConfinedPath { root.appending(suite) }

    func path(of reference: ExternalReference, suite: String) -> ConfinedPath {
        directory(of: suite).appending(reference.directory).appending(reference.uuid)
    }

    /// Writes a new blob for a key of `suite`: `produce` is given a sink to write the value's bytes
    /// into (in pieces, so a large value is never held whole). Returns it committed under its UUID
    /// and still held until the pending blob is released (after its suite is committed).
    func write(suite: String, key: String, kind: ExternalReference.Kind,
               _ produce: (inout BlobSink) throws -> Void) throws -> PendingBlob {
        let keyDirectory = ExternalReference.directoryName(forKey: key)
        let directory = self.directory(of: suite).appending(keyDirectory)
        let uuid = ExternalReference.newUUID()
        let file: any ConfinedFile
        do {
            file = try fileSystem.createConfinedFile(in: directory) { ExternalStorage.temporaryPrefix + ExternalReference.newUUID() }
        } catch {
            throw error.writing
        }
        do {
            var sink = BlobSink(file: file)
            try produce(&sink)
            try file.sync()
            try file.commit(as: uuid)
            let reference = ExternalReference(kind: kind, size: sink.size, sha256: sink.hasher.finish(), directory: keyDirectory, uuid: uuid)
            return PendingBlob(reference: reference, file: file)
        } catch {
            file.abandon()
            file.close()
            if let error = error as? ConfinedError { throw error.writing }
            throw error
        }
    }

    /// Opens the blob a reference names: a regular file of the recorded size, never through a
    /// symlink. Its content is checked against the reference's SHA-256 as it is read. Errors are the
    /// reason, for the caller to attribute.
    func open(_ reference: ExternalReference, suite: String) throws(ExternalReference.Problem) -> any ConfinedFile {
        let path = self.path(of: reference, suite: suite)
        let file: any ConfinedFile
        do {
            file = try fileSystem.openConfinedFile(path)
        } catch {
            if case .missing = error { throw ExternalReference.Problem("blob \(reference.directory)/\(reference.uuid) is missing") }
            throw ExternalReference.Problem(error.reason)
        }
        do {
            let size = try file.size()
            guard size == reference.size else {
                throw ExternalReference.Problem("blob \(reference.directory)/\(reference.uuid) has \(size) bytes, the reference says \(reference.size)")
            }
            return file
        } catch {
            file.close()
            if let problem = error as? ExternalReference.Problem { throw problem }
            throw ExternalReference.Problem((error as? ConfinedError)?.reason ?? "\(error)")
        }
    }

    /// Reads a whole blob and checks it against its reference.
    func bytes(_ reference: ExternalReference, suite: String) throws(ExternalReference.Problem) -> [UInt8] {
        let reader = try BlobReader(storage: self, reference: reference, suite: suite)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(reference.size)
        do {
            try reader.forEachChunk { bytes.append(contentsOf: $0) }
        } catch let problem as ExternalReference.Problem {
            throw problem
        } catch {
            throw ExternalReference.Problem("\(error)")
        }
        return bytes
    }

    /// Deletes a blob no suite refers to any more, then its key directory (and the suite's) if now
    /// empty. A blob a writer holds, or a symlink in its place, is left alone.
    func remove(_ reference: ExternalReference, suite: String) {
        let path = self.path(of: reference, suite: suite)
        guard (try? fileSystem.removeIfUnused(path)) == .removed else { return }
        if fileSystem.removeConfinedDirectoryIfEmpty(path.parent) { fileSystem.removeConfinedDirectoryIfEmpty(path.parent.parent) }
    }

    /// The suites that have an external directory.
    func suiteDirectories() throws(ConfinedError) -> [String] {
        try fileSystem.confinedEntries(root).filter { $0.kind == .directory && $0.nameIsUTF8 && !$0.name.hasPrefix(".") }.map(\.name)
    }
}

/// A blob written for a change and not yet committed into its suite: its reference, and the open
/// file whose shared lock keeps `gc` away from it until `release` (or the end of the process).
public final class PendingBlob: @unchecked Sendable {
    public let reference: ExternalReference
    private let file: any ConfinedFile

    init(reference: ExternalReference, file: any ConfinedFile) {
        self.reference = reference
        self.file = file
    }

    /// Drops the hold: the blob is now referenced by its suite, or has been removed.
    public func release() { file.close() }

    deinit { file.close() }
}

/// Where a blob's bytes go as they are produced: the new file, hashed and counted on the way.
struct BlobSink {
    let file: any ConfinedFile
    var hasher = SHA256()
    var size = 0

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        hasher.update(bytes)
        size += bytes.count
        try file.write(bytes)
    }
}
