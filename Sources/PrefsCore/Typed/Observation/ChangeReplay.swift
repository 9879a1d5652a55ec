import Glibc

/// What `Suite.changes(of:)` reports each time its watcher wakes: every change its suite's history
/// accounts for, in commit order, and a gap before whatever it does not.
///
/// The layers that keep a history (the suite's own and the global suite's, where the store keeps
/// one: `SuiteStore.versions(of:)`) are followed version by version. For each, it keeps the
/// contents as stored at the last reading it reported and the number of the last version it
/// replayed. At a wake it lists the newer versions and replays them, in number order, on those
/// contents; each version must be the next number and find the values it changed as it recorded
/// them, and the replay must end on what the store holds now. Each version's key changes are
/// then seen through every layer, as a read gives them (`ReplayedStorage`: the layer holding the
/// replayed contents, every other layer as it is now), one change per key per version; the
/// versions of the two layers interleave by their time.
///
/// A read that shows a change whose version is not listed yet (on files the version is appended to
/// the history's log right after the suite's file is renamed in) is read again until the version
/// is there, for at most `versionGrace`, while a version may be on its way
/// (`SuiteBackend.mayBeRecordingVersion`). What no version accounts for — a number that jumps
/// (versions pruned before they were read, `PREFS_HISTORY` of another writer), a change that
/// recorded none (`PREFS_HISTORY=0`, a `UserDefaults` app writing the file), a change of a layer
/// that keeps no history (ByHost, managed values, registered defaults, a file domain, a store
/// without history) — comes as one gap (`WatchChange.isGap`) followed by the difference between
/// the values before and after it (`isSummary`). A value whose deadline passed (`write --ttl`)
/// is one change, with no gap.
final class ChangeReplay {
    /// A layer whose changes record versions: its contents as stored at the last reading reported
    /// (empty: no suite), and the number of the last version replayed (0: none).
    struct Tracked {
        let location: SuiteLocation
        var contents: PrefDictionary
        var seen: Int64
    }

    /// How long a read that is ahead of the versions listed waits for them before it is a gap.
    static let versionGrace = 0.5
    /// How long it sleeps between two readings meanwhile.
    static let retryMicroseconds: UInt32 = 250

    let layers: Layers
    let keys: [(name: String, path: PrefKeyPath)]?
    /// The store under the expiry: contents as stored, deadlines and references included.
    let storage: any SuiteBackend
    private(set) var tracked: [Tracked] = []
    /// What a read gave at the last reading reported.
    private(set) var reported: WatchedValues.Reading = []
    /// How long a read ahead of the versions waits for them (`versionGrace`).
    var grace = ChangeReplay.versionGrace

    /// Reads the starting point: the values now, and the newest version of each layer that keeps
    /// a history.
    init(_ layers: Layers, keys: [(name: String, path: PrefKeyPath)]?) throws {
        self.layers = layers
        self.keys = keys
        storage = ExpiringStorage.unwrapped(layers.store.storage)
        var locations: [SuiteLocation] = []
        for layer in try layers.layers() where layer.location.keepsHistory && !locations.contains(layer.location) {
            // A store, or a place in it, that keeps no history (no state directory) is a layer like
            // any other; one that cannot be read now is followed (its rounds are gaps until it can).
            let keeps: Bool
            do { keeps = try storage.versions(of: layer.location, after: .max - 1) != nil } catch { keeps = true }
            if !keeps { continue }
            locations.append(layer.location)
        }
        tracked = locations.map { Tracked(location: $0, contents: PrefDictionary(), seen: 0) }
        try start()
    }

    /// Takes the values now as the starting point: the stored contents between two listings of
    /// the versions that agree (a change committing meanwhile makes it read again).
    private func start() throws {
        var contents: [PrefDictionary] = []
        var heads: [Int64] = []
        for _ in 0..<10 {
            let before = newestVersions()
            contents = try tracked.map { try storage.load($0.location)?.contents ?? PrefDictionary() }
            heads = newestVersions()
            if heads == before { break }
        }
        for index in tracked.indices {
            tracked[index].contents = contents[index]
            tracked[index].seen = heads[index]
        }
        reported = try read(contents)
    }

    private func newestVersions() -> [Int64] {
        tracked.map { layer in ((try? storage.versions(of: layer.location, after: layer.seen)) ?? nil)?.last?.number ?? layer.seen }
    }

    /// What a read gives with the tracked layers holding `contents` (the others as they are now).
    func read(_ contents: [PrefDictionary]) throws -> WatchedValues.Reading {
        var replayed: [SuiteLocation: PrefDictionary] = [:]
        for (layer, held) in zip(tracked, contents) { replayed[layer.location] = held }
        let store = layers.store.reading(ReplayedStorage(inner: storage, replayed: replayed))
        return try WatchedValues.read(try layers.on(store), keys: keys)
    }

    /// The changes since the last reading reported, in commit order, with a gap before what the
    /// versions do not account for. A layer that cannot be read throws, and nothing is reported
    /// until it can be.
    func next() throws -> [WatchChange] {
        guard case .replay(let versions, let now) = try settle() else {
            let before = reported
            try start()
            return ChangeReplay.gap(WatchedValues.changes(from: before, to: reported))
        }
        var contents = tracked.map(\.contents)
        // Before the versions: what changed in the layers that keep none.
        var last = try read(contents)
        var current = last
        // A value whose deadline passed is one change, not a gap.
        let unexplained = ChangeReplay.differences(from: reported, to: current)
        let expired = unexplained.filter { change in tracked.contains { hasExpired(change.key, in: $0) } }
        var changes = expired + ChangeReplay.gap(unexplained.filter { change in !expired.contains { $0.key.utf8.elementsEqual(change.key.utf8) } })
        for (index, version) in ChangeReplay.interleaved(versions) {
            for change in version.changes ?? [] { contents[index][change.key] = change.new }
            last = try read(contents)
            let touched = Set(version.keys.map { Array($0.utf8) })
            let expiry = touched.contains(Array(Expiry.key.utf8))
            let made = ChangeReplay.differences(from: current, to: last).filter { expiry || touched.contains(Array($0.key.utf8)) }
            WatchedValues.apply(made, to: &current)
            changes += made
        }
        // The contents as the store holds them (equal to the replay, but for what a format drops:
        // read again only then).
        let final = contents == now ? last : try read(now)
        changes += ChangeReplay.gap(ChangeReplay.differences(from: current, to: final))
        reported = final
        for index in tracked.indices {
            tracked[index].contents = now[index]
            tracked[index].seen = versions[index].last?.number ?? tracked[index].seen
        }
        return changes
    }

    /// Whether `key`'s value in `layer`'s contents is past its deadline now.
    private func hasExpired(_ key: String, in layer: Tracked) -> Bool {
        layer.contents[key] != nil && Expiry.hasExpired(key, in: layer.contents[Expiry.key], at: Expiry.now())
    }

    /// A gap and the changes across it, marked as their sum; nothing when there are none.
    static func gap(_ changes: [WatchChange]) -> [WatchChange] {
        guard !changes.isEmpty else { return [] }
        return [.gap(suite: nil)] + changes.map { change in
            var summed = change
            summed.isSummary = true
            return summed
        }
    }

    /// How two readings differ, but for dates equal to the second (what an XML file keeps).
    static func differences(from old: WatchedValues.Reading, to new: WatchedValues.Reading) -> [WatchChange] {
        WatchedValues.changes(from: old, to: new).filter { !same($0.old, $0.new) }
    }

    /// The versions to replay and the contents they end on; or a gap.
    enum Settled {
        case replay([[SuiteVersion]], ending: [PrefDictionary])
        case gap
    }

    /// Lists the versions newer than the last replayed and finds where their replay meets the
    /// contents as stored: all of them (the usual case); some of them (versions committed after
    /// the contents were read: read again); none (a change whose version is not there yet, or
    /// that recorded none: read again for at most `versionGrace` while the store says a version
    /// may be on its way, `mayBeRecordingVersion`, then a gap). A version that
    /// cannot follow (a number skipped, values that do not match, values not kept) is a gap.
    func settle() throws -> Settled {
        let deadline = MonotonicClock.now() + grace
        var rereads = 0, lookedAgain = false
        while true {
            let contents = try tracked.map { try storage.load($0.location)?.contents ?? PrefDictionary() }
            var lists: [[SuiteVersion]] = [], behind = false, ahead = false, pending = false
            for (layer, now) in zip(tracked, contents) {
                guard let listed = try? storage.versions(of: layer.location, after: layer.seen) ?? [] else {
                    // A version pruned while the history was read: read again.
                    behind = true
                    pending = true
                    lists.append([])
                    continue
                }
                switch ChangeReplay.match(listed, from: layer, to: now) {
                case .all: lists.append(listed)
                case .prefix(let count):
                    ahead = true
                    lists.append(Array(listed.prefix(count)))
                case .none:
                    behind = true
                    pending = try pending || storage.mayBeRecordingVersion(of: layer.location)
                    lists.append([])
                case .broken: return .gap
                }
            }
            if !behind && (!ahead || rereads >= 10) { return .replay(lists, ending: contents) }
            if ahead && !behind {
                rereads += 1
                continue
            }
            // A change that recorded no version, unless one may be on its way. The version may have
            // come, and its writer gone, between the listing and the look for one on its way: the
            // versions are listed once more before it is a gap.
            guard pending, MonotonicClock.now() < deadline else {
                if lookedAgain { return .gap }
                lookedAgain = true
                continue
            }
            usleep(ChangeReplay.retryMicroseconds)
        }
    }

    enum Match: Equatable { case all, prefix(Int), none, broken }

    /// How far `versions` (newer than `layer.seen`, oldest first), replayed on `layer`'s contents,
    /// go toward `stored`: the longest run that ends on it.
    static func match(_ versions: [SuiteVersion], from layer: Tracked, to stored: PrefDictionary) -> Match {
        var state = layer.contents
        var longest: Int? = same(state, stored) ? 0 : nil
        for (index, version) in versions.enumerated() {
            guard version.number == layer.seen + Int64(index) + 1, let changes = version.changes else { return .broken }
            for change in changes {
                guard same(state[change.key], change.old) else { return .broken }
                state[change.key] = change.new
            }
            if same(state, stored) { longest = index + 1 }
        }
        guard let longest else { return .none }
        return longest == versions.count ? .all : .prefix(longest)
    }

    /// The versions of every layer in one list, each layer's in number order, the layers'
    /// interleaved by time (the earlier layer first at the same time).
    static func interleaved(_ lists: [[SuiteVersion]]) -> [(layer: Int, version: SuiteVersion)] {
        var next = lists.map { _ in 0 }
        var merged: [(layer: Int, version: SuiteVersion)] = []
        while true {
            var pick: Int?
            for layer in lists.indices where next[layer] < lists[layer].count {
                if let chosen = pick, lists[chosen][next[chosen]].time <= lists[layer][next[layer]].time { continue }
                pick = layer
            }
            guard let layer = pick else { return merged }
            merged.append((layer, lists[layer][next[layer]]))
            next[layer] += 1
        }
    }

    // MARK: Equality as a format keeps values

    /// Equal values, dates to the second: an XML file drops a date's fraction, which its version keeps.
    static func same(_ a: PrefValue?, _ b: PrefValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.date(let x)?, .date(let y)?):
            return abs(x.secondsSinceReferenceDate - y.secondsSinceReferenceDate) < 1
        case (.array(let x)?, .array(let y)?):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.dictionary(let x)?, .dictionary(let y)?):
            return same(x, y)
        default: return a == b
        }
    }

    static func same(_ a: PrefDictionary, _ b: PrefDictionary) -> Bool {
        guard a.count == b.count else { return false }
        var equal = true
        PrefDictionary.zip(a, b) { x, y in
            if equal && !same(x?.value, y?.value) { equal = false }
        }
        return equal
    }
}
