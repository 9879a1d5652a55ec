import Glibc

/// The file store's blobs, under `$XDG_DATA_HOME/prefs/external/SUITE/KEYDIR/UUID` (directories 0700,
/// blobs 0600). A blob is the value's bytes: a string's UTF-8, a data value's raw bytes, an array's
/// or dictionary's binary property list. It is written whole (temporary file, fsync, rename, fsync of
/// the directory) and held with a shared `flock` until its writer releases it.
///
/// Everything below `$XDG_DATA_HOME/prefs` is a confined place (`ConfinedPath`): no symlink there is
/// followed, so neither a planted link nor a hand-edited reference reaches outside the store; one
/// found there is reported by `inventory` and never written through or removed behind.
package struct FileBlobStore: BlobStore {
    let fileSystem: any FileSystem
    /// `$XDG_DATA_HOME/prefs`, found as any path is; `external/…` below it is confined.
    let base: String

    init(fileSystem: any FileSystem, base: String) {
        self.fileSystem = fileSystem
        self.base = base
    }

    /// `…/prefs/external`.
    var root: ConfinedPath { ConfinedPath(base: base, ["external"]) }

    /// The directory of one suite's blobs.
    func directory(of suite: String) -> ConfinedPath { root.appending(suite) }

    func path(of reference: ExternalReference, suite: String) -> ConfinedPath {
        directory(of: suite).appending(reference.directory).appending(reference.uuid)
    }

    package func write(suite: String, key: String, kind: ExternalReference.Kind,
                      _ produce: (inout BlobSink) throws -> Void) throws -> PendingBlob {
        let keyDirectory = ExternalReference.directoryName(forKey: key)
        let directory = self.directory(of: suite).appending(keyDirectory)
        let uuid = ExternalReference.newUUID()
        let file: any ConfinedFile
        do {
            file = try fileSystem.createConfinedFile(in: directory) { BlobEntry.temporaryPrefix + ExternalReference.newUUID() }
        } catch {
            throw error.writing
        }
        do {
            var sink = BlobSink { try file.write($0) }
            try produce(&sink)
            try file.sync()
            try file.commit(as: uuid)
            let reference = ExternalReference(kind: kind, size: sink.size, digest: sink.finish(), directory: keyDirectory, uuid: uuid)
            let made = file.createdDirectories
            return PendingBlob(reference: reference, release: file.close, removeMade: { removeIfEmpty(made) }, removeWhileHeld: {
                file.abandon()
                // Then the key and suite directories, when that leaves them empty (as `remove` does).
                if fileSystem.removeConfinedDirectoryIfEmpty(directory) { fileSystem.removeConfinedDirectoryIfEmpty(directory.parent) }
            })
        } catch {
            file.abandon()
            file.close()
            removeIfEmpty(file.createdDirectories)
            if let error = error as? ConfinedError { throw error.writing }
            throw error
        }
    }

    /// Removes directories a write made, innermost first, those that are empty (one already gone,
    /// or holding another writer's blob, stays as it is): a write that failed, or a blob removed
    /// before it was ever committed, leaves none behind.
    func removeIfEmpty(_ made: [ConfinedPath]) {
        for directory in made.reversed() { fileSystem.removeConfinedDirectoryIfEmpty(directory) }
    }

    package func open(_ reference: ExternalReference, suite: String) throws(ExternalReference.Problem) -> any BlobSource {
        let path = self.path(of: reference, suite: suite)
        let file: any ConfinedFile
        do {
            file = try fileSystem.openConfinedFile(path)
        } catch {
            if case .missing = error { throw ExternalReference.Problem("blob \(reference.directory)/\(reference.uuid) is missing", missing: true) }
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

    package func remove(_ reference: ExternalReference, suite: String) {
        let path = self.path(of: reference, suite: suite)
        guard (try? fileSystem.removeIfUnused(path)) == .removed else { return }
        if fileSystem.removeConfinedDirectoryIfEmpty(path.parent) { fileSystem.removeConfinedDirectoryIfEmpty(path.parent.parent) }
    }

    package func suites() throws -> [String] {
        do {
            return try fileSystem.confinedEntries(root).filter { $0.kind == .directory && $0.nameIsUTF8 && !$0.name.hasPrefix(".") }.map(\.name)
        } catch {
            throw PrefsError.cannotRead(path: error.path.display, errno: ELOOP)
        }
    }

    package func inventory(of suite: String) -> BlobInventory {
        var inventory = BlobInventory()
        let base = directory(of: suite)
        func entries(_ path: ConfinedPath) -> [ConfinedEntry] {
            do { return try fileSystem.confinedEntries(path) } catch {
                inventory.problems.append("\(suite): \(error.reason)")
                return []
            }
        }
        for keyDirectory in entries(base) {
            let path = base.appending(keyDirectory.name)
            guard keyDirectory.kind == .directory, keyDirectory.nameIsUTF8 else {
                if keyDirectory.kind != .file { inventory.problems.append("\(suite): \(path.display) is \(Self.describe(keyDirectory)); it is left alone") }
                continue
            }
            for entry in entries(path) {
                guard entry.kind == .file, entry.nameIsUTF8 else {
                    inventory.problems.append("\(suite): \(path.appending(entry.name).display) is \(Self.describe(entry)); it is left alone")
                    continue
                }
                inventory.blobs.append(BlobEntry(directory: keyDirectory.name, name: entry.name, size: entry.size, modified: entry.modified))
            }
        }
        return inventory
    }

    static func describe(_ entry: ConfinedEntry) -> String {
        guard entry.nameIsUTF8 else { return "a name that is not UTF-8" }
        switch entry.kind {
        case .symlink: return "a symbolic link (nothing in external storage is followed)"
        case .directory: return "a directory where a blob belongs"
        case .file: return "a file where a key directory belongs"
        case .other: return "neither a directory nor a regular file"
        }
    }

    package func isSettled(_ blob: BlobEntry, suite: String) -> Bool {
        fileSystem.isSettled(directory(of: suite).appending(blob.directory).appending(blob.name))
    }

    package func removeIfUnused(_ blob: BlobEntry, suite: String) throws -> BlobRemoval {
        let path = directory(of: suite).appending(blob.directory).appending(blob.name)
        let removal: BlobRemoval
        do {
            removal = try fileSystem.removeIfUnused(path)
        } catch {
            throw ExternalReference.Problem(error.reason)
        }
        if removal == .removed && fileSystem.removeConfinedDirectoryIfEmpty(path.parent) {
            fileSystem.removeConfinedDirectoryIfEmpty(path.parent.parent)
        }
        return removal
    }
}
