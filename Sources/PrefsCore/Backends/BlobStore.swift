/// Where a store keeps the values too large for its suites (see `ExternalTransaction`): blobs, each
/// written whole and committed before any suite refers to it, never changed after, and held by its
/// writer until the suite that refers to it is committed, so collecting orphans never takes a blob a
/// write is about to commit. Blobs live per suite (`NAME` is a suite's name or `NSGlobalDomain`), and
/// a reference names its blob by key directory and UUID.
package protocol BlobStore: Sendable {
    /// Writes a new blob for a key of `suite`: `produce` is given a sink to write the value's bytes
    /// into, in pieces, so a large value is never held whole. Returns it committed and still held.
    func write(suite: String, key: String, kind: ExternalReference.Kind,
               _ produce: (inout BlobSink) throws -> Void) throws -> PendingBlob

    /// Opens the blob a reference names for reading: there, and of the recorded size. (Its content is
    /// checked against the reference's digest as it is read: see `BlobReader`.)
    func open(_ reference: ExternalReference, suite: String) throws(ExternalReference.Problem) -> any BlobSource

    /// Deletes a blob no suite refers to any more, and what it leaves empty; a blob a writer holds is
    /// left alone. Failures are ignored (`gc` collects what is left).
    func remove(_ reference: ExternalReference, suite: String)

    /// The suites that have blobs.
    func suites() throws -> [String]

    /// Every blob of a suite, and a problem line for anything there that is not one (a symlink, for
    /// the file store), which is left alone.
    func inventory(of suite: String) -> BlobInventory

    /// Removes a blob no reference names, unless a writer holds it; then what that leaves empty.
    func removeIfUnused(_ blob: BlobEntry, suite: String) throws -> BlobRemoval

    /// Whether an inventory's blob is still there and no writer holds it (as one does while it writes
    /// the blob and until the change that refers to it is committed).
    func isSettled(_ blob: BlobEntry, suite: String) -> Bool
}

/// A blob as an inventory lists it.
package struct BlobEntry: Sendable {
    /// The key directory and the name (a UUID, or a temporary name while unfinished).
    package let directory: String
    package let name: String
    package let size: Int
    /// Seconds since the epoch.
    package let modified: Int64

    /// Names a writer uses before the blob is committed.
    package static let temporaryPrefix = ".tmp-"
    package var isUnfinished: Bool { name.hasPrefix(BlobEntry.temporaryPrefix) }
    package var id: String { directory + "/" + name }
}

package struct BlobInventory: Sendable {
    package var blobs: [BlobEntry] = []
    package var problems: [String] = []
}

/// A blob open for reading.
package protocol BlobSource: AnyObject, Sendable {
    func size() throws -> Int
    /// Reads until `buffer` is full or the blob ends; how many bytes came.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    func close()
}

/// A blob written for a change and not yet committed into its suite: its reference, and the hold
/// that keeps `gc` away from it until `release` (or the end of the process).
package final class PendingBlob: @unchecked Sendable {
    package let reference: ExternalReference
    private let releaseHold: () -> Void
    private var released = false
    /// Removes what writing the blob made around it (directories), once the blob is removed.
    let removeMade: () -> Void
    /// Removes the blob while it is still held (the file store's: by its writer's own descriptor);
    /// nil where the store cannot.
    private let removeWhileHeld: (() -> Void)?

    package convenience init(reference: ExternalReference, release: @escaping () -> Void) {
        self.init(reference: reference, release: release, removeMade: {})
    }

    init(reference: ExternalReference, release: @escaping () -> Void, removeMade: @escaping () -> Void,
         removeWhileHeld: (() -> Void)? = nil) {
        self.reference = reference
        releaseHold = release
        self.removeMade = removeMade
        self.removeWhileHeld = removeWhileHeld
    }

    /// Drops the hold: the blob is now referenced by its suite, or has been removed.
    package func release() {
        guard !released else { return }
        released = true
        releaseHold()
    }

    /// Removes the blob no suite is to refer to, then drops the hold: where the store can, it is
    /// removed while still held, so no `check` ever finds it there unheld; elsewhere it is released
    /// and removed from `place` as any blob is (unless another holds it).
    func remove(from place: BlobPlace) {
        if let removeWhileHeld, !released {
            removeWhileHeld()
            release()
        } else {
            release()
            place.store.remove(reference, suite: place.suite)
        }
    }

    deinit { release() }
}

/// Where a blob's bytes go as they are produced: written, hashed (`BlobDigest.Algorithm.current`)
/// and counted on the way (the hashing of a large blob on another thread while it is written).
package struct BlobSink {
    let output: (UnsafeRawBufferPointer) throws -> Void
    let hasher = OverlappedHasher(.current)
    package private(set) var size = 0

    package init(_ output: @escaping (UnsafeRawBufferPointer) throws -> Void) { self.output = output }

    package mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        try write(bytes) {}
    }

    /// `write`, running `more` (reading the next piece) after the bytes are written and while they
    /// are still being hashed.
    package mutating func write(_ bytes: UnsafeRawBufferPointer, while more: () throws -> Void) throws {
        size += bytes.count
        try hasher.update(bytes) {
            try output(bytes)
            try more()
        }
    }

    /// The digest of everything written (the sink is spent).
    mutating func finish() -> BlobDigest { hasher.finish() }
}

/// What `removeIfUnused` did, whatever holds the blob (a file, an etcd key).
package enum BlobRemoval: Equatable, Sendable {
    case removed
    /// A writer holds it (it is being written, or about to be committed).
    case inUse
    case missing
}
