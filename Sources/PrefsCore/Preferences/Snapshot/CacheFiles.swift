/// A directory of the host's cache (`$XDG_CACHE_HOME/prefs/snapshots`): files a user's runs of prefs
/// keep only to go faster or to answer when a store is away, so nothing of it is ever an error.
/// Below the cache home no symlink is followed; each directory is the user's own and 0700 (made so,
/// or its group and other bits taken away), each file the user's own regular file, 0600. Anything
/// else there is not read, not written through, and not touched but by `remove`. A write replaces
/// a file atomically (a new file renamed over it) and is not synced: a cache may lose its last
/// change in a crash, never hold half of one.
package protocol CacheFiles: Sendable {
    /// The file's bytes and modification time (seconds since the epoch); nil when it is not there,
    /// larger than `limit`, or not to be trusted.
    func read(_ name: String, limit: Int) -> (bytes: [UInt8], modified: Double)?
    /// Replaces the file with `bytes`; whether it did.
    @discardableResult func write(_ name: String, _ bytes: [UInt8]) -> Bool
    /// Sets the file's modification time to now.
    func touch(_ name: String)
    /// Removes the entry (a symlink itself, never what it points to).
    func remove(_ name: String)
    /// The directory's entries, as `lstat` sees them; none when it is not there or not trusted.
    func entries() -> [ConfinedEntry]
}
