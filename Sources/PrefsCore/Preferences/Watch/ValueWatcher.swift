/// One change of a watched key's effective value (`prefs watch`): nil is "absent".
public struct WatchChange: Equatable, Sendable {
    public let key: String
    public let old: PrefValue?
    public let new: PrefValue?
    /// The suite it happened in, when the typed API reports it (`Suite.changes(of:)`), for the
    /// errors of `old(as:)` and `new(as:)`; not compared.
    var suite: String? = nil
    /// Whether this is no change but a gap (`Suite.changes(of:)`): changes may have been missed
    /// here. Its `key` is empty, `old` and `new` are nil; the changes that follow it with
    /// `isSummary` are what changed across it.
    public internal(set) var isGap = false
    /// Whether this change sums up what changed across the gap just before it (`isGap`): the value
    /// a read gave before the gap and gives after it, however many changes came between.
    public internal(set) var isSummary = false

    /// A gap in the changes of `suite` (`isGap`).
    static func gap(suite: String?) -> WatchChange { WatchChange(key: "", old: nil, new: nil, suite: suite, isGap: true) }

    public static func == (lhs: WatchChange, rhs: WatchChange) -> Bool {
        lhs.key == rhs.key && lhs.old == rhs.old && lhs.new == rhs.new && lhs.isGap == rhs.isGap && lhs.isSummary == rhs.isSummary
    }
}

/// What `prefs watch` and `Prefs.Suite.values(of:)` run (`Layers.watcher(keys:)`): the core's
/// `Watcher` over the change feed of the store that holds the watched suite, possibly wrapped
/// (`ExpiringWatcher`, `RetryingWatcher`).
package protocol ValueWatcher: AnyObject {
    /// Whether every reading after a wake goes to `onChanges`, even one that finds no change (each
    /// watcher starts with false), and, on files, a version renamed into a watched suite's history wakes the watch
    /// too: `Suite.changes(of:)` reads the history at each wake (`ChangeReplay`), where a change and
    /// its undoing between two readings leave the values as they were. Set before `run`.
    var reportsEveryReading: Bool { get set }

    /// Reads the current values, which `initial` receives (as changes from absent, for the keys
    /// that have a value); then, until `onChanges` returns false, `timeout` seconds pass, or
    /// `closedWhen` hangs up, hands each batch of changes to `onChanges`. A read that fails later (a
    /// corrupt value) goes to `onError` once, and the watch goes on from the last values read.
    func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool,
             onChanges: ([WatchChange]) -> Bool, onError: (PrefsError) -> Void) throws -> WatchStop
}

/// What every watcher compares, whatever tells it when to look: the values an application sees of
/// the watched keys, and how two readings differ.
enum WatchedValues {
    typealias Reading = [(key: String, value: PrefValue?)]

    /// What an application sees now: every top-level key, or the watched ones (absent: nil).
    static func read(_ layers: Layers, keys: [(name: String, path: PrefKeyPath)]?) throws -> Reading {
        guard let keys else { return try layers.resolved(evenIfMissing: true).values.map { ($0.key, $0.value) } }
        return try keys.map { key in
            do {
                return (key.name, try layers.value(at: key.path)?.value)
            } catch let error as PrefsError where error == layers.absent {
                return (key.name, nil)
            } catch PrefsError.typeMismatch {
                // The path now leads through a value that is not a container: the key is gone.
                return (key.name, nil)
            }
        }
    }

    /// The first reading, as changes from absent for the keys that have a value.
    static func initial(_ reading: Reading) -> [WatchChange] {
        reading.compactMap { $0.value == nil ? nil : WatchChange(key: $0.key, old: nil, new: $0.value) }
    }

    /// Key by key, in the order of `new` (then the keys only `old` had).
    static func changes(from old: Reading, to new: Reading) -> [WatchChange] {
        func index(_ list: Reading) -> [[UInt8]: PrefValue?] {
            Dictionary(list.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { $1 })
        }
        let before = index(old), after = index(new)
        var changes: [WatchChange] = []
        for entry in new where (before[Array(entry.key.utf8)] ?? nil) != entry.value {
            changes.append(WatchChange(key: entry.key, old: before[Array(entry.key.utf8)] ?? nil, new: entry.value))
        }
        for entry in old where after[Array(entry.key.utf8)] == nil && entry.value != nil {
            changes.append(WatchChange(key: entry.key, old: entry.value, new: nil))
        }
        return changes
    }
}
