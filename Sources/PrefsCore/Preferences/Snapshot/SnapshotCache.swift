import Glibc
import Synchronization

/// The host's last-known-good snapshots of the suites read from a remote store: one file per store and
/// suite, `$XDG_CACHE_HOME/prefs/snapshots/HASH.plist` (HASH: the SHA-256 of the store's
/// `snapshotName` and the suite's name; both are inside the file too, and a file whose store or
/// suite is not the one asked for is not used). Every read of the store that got an answer leaves
/// what it read there (`record`); a read may answer from it with `--max-stale` or
/// `--fallback-cache` (`SuiteStore.reading`). A snapshot's time is its file's modification time:
/// when the store last confirmed it; the file is rewritten only when what it holds changed (a
/// place's version moved, or a key not read before), else only that time moves (the file named
/// once, read and decoded once, nothing written). Nothing here is
/// ever an error: a snapshot that cannot be read or trusted is no snapshot, one that cannot be
/// written is not kept.
package struct SnapshotCache: Sendable {
    let files: any CacheFiles
    /// The store's `snapshotName`.
    let store: String

    /// The largest snapshot file read (a larger one is not trusted).
    static let sizeLimit = 256 << 20

    /// The snapshots of `store`'s storage, where this host keeps them; nil when it keeps none (the
    /// store needs none, or there is no cache home).
    init?(_ store: SuiteStore) throws {
        guard let name = store.storage.snapshotName, let files = try SnapshotCache.files(store) else { return nil }
        self.files = files
        self.store = name
    }

    /// `$XDG_CACHE_HOME/prefs/snapshots` (default `~/.cache/prefs/snapshots`) on the store's file
    /// system; nil without a cache home, or on a file system that is not the host's.
    static func files(_ store: SuiteStore) throws -> (any CacheFiles)? {
        guard let home = try store.environment.cacheHome() else { return nil }
        return store.fileSystem.cacheFiles(in: ConfinedPath(base: home, ["prefs", "snapshots"]))
    }

    func fileName(suite: String) -> String {
        Hex.encode(SHA256.hash(Array((store + "\u{0}" + suite).utf8))) + ".plist"
    }

    /// The suite's snapshot and when the store last confirmed it (seconds since the epoch).
    func snapshot(of suite: String) -> (snapshot: ReadSnapshot, confirmed: Double)? {
        guard let file = files.read(fileName(suite: suite), limit: SnapshotCache.sizeLimit), let snapshot = decoded(file.bytes, suite) else { return nil }
        return (snapshot, file.modified)
    }

    /// The snapshot of `suite` in `bytes`, a file's; nil when they hold none, or another store's or
    /// suite's.
    func decoded(_ bytes: [UInt8], _ suite: String) -> ReadSnapshot? {
        guard let snapshot = ReadSnapshot.decoded(bytes), snapshot.store == store, snapshot.suite == suite else { return nil }
        return snapshot
    }

    /// Keeps what `readings` tell of the suite: merged into its snapshot and written when that
    /// changed, else only its time moved to now; the snapshot removed when the store holds nothing
    /// of `own` places (the suite was deleted).
    func record(_ readings: [PlaceReading], suite: String, own: [SuiteLocation]) {
        guard !readings.isEmpty else { return }
        let name = fileName(suite: suite)
        // (Not through `snapshot(of:)`: its optional pair is one more generic type to set up.)
        let existing = files.read(name, limit: SnapshotCache.sizeLimit).flatMap { decoded($0.bytes, suite) }
        var updated = existing ?? ReadSnapshot(store: store, suite: suite)
        updated.add(readings)
        if updated.isGone(own: own) {
            files.remove(name)
        } else if let existing, existing.places == updated.places {
            files.touch(name)
        } else if let bytes = try? updated.encoded(written: PrefDate(secondsSinceReferenceDate: WallClock.now() - WallClock.referenceDate)) {
            files.write(name, bytes)
        }
    }
}

/// The time of day, for the age of snapshots.
enum WallClock {
    /// Seconds since the epoch.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// 2001-01-01T00:00:00Z (a `PrefDate`'s zero) in seconds since the epoch.
    static let referenceDate = 978_307_200.0
}

/// A `ReadObserver` that keeps what it is told, for a snapshot.
final class ReadRecorder: ReadObserver {
    private let kept = Mutex<[PlaceReading]>([])

    func observe(_ readings: [PlaceReading]) { kept.withLock { $0 += readings } }

    /// What was told since the last call.
    func take() -> [PlaceReading] { kept.withLock { taken in defer { taken = [] }; return taken } }
}
