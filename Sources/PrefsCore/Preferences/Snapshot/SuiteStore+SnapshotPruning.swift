/// A snapshot file `gc` removed (or would remove): the store and suite it was of (nil for a file that
/// is no snapshot), its name and size.
package struct PrunedSnapshot: Sendable, Equatable {
    package let store: String?
    package let suite: String?
    package let file: String
    package let size: Int
}

extension SuiteStore {
    /// How long a snapshot no read of its store confirmed is kept: 30 days.
    package static let snapshotLifetime: Int64 = 30 * 86400

    /// `gc`: removes the host's snapshots (of every store) that no read confirmed for
    /// `snapshotLifetime`, files there that are no snapshot (damaged, a symlink), and unfinished
    /// ones older than `grace` seconds (a writer killed before its rename). With `dryRun`, only says
    /// which. Directories are left alone.
    package func pruneSnapshots(grace: Double, dryRun: Bool) throws -> [PrunedSnapshot] {
        guard let files = try SnapshotCache.files(self) else { return [] }
        let now = Int64(WallClock.now())
        var pruned: [PrunedSnapshot] = []
        for entry in files.entries() where entry.kind != .directory {
            let snapshot: ReadSnapshot?
            if entry.kind == .file && entry.name.hasPrefix(".tmp-") {
                guard Double(now - entry.modified) > grace else { continue }
                snapshot = nil
            } else {
                snapshot = entry.kind == .file ? files.read(entry.name, limit: SnapshotCache.sizeLimit).flatMap { ReadSnapshot.decoded($0.bytes) } : nil
                if snapshot != nil && now - entry.modified <= SuiteStore.snapshotLifetime { continue }
            }
            pruned.append(PrunedSnapshot(store: snapshot?.store, suite: snapshot?.suite, file: entry.name, size: entry.size))
            if !dryRun { files.remove(entry.name) }
        }
        return pruned
    }
}
