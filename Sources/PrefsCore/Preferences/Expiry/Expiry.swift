import Glibc

/// Values that expire (`write … --ttl D`, `--expires-at DATE`). A deadline is stored beside its
/// value, not around it: the suite holds one reserved top-level key, `.prefs-expires`, a dictionary
/// from each expiring key to its deadline (a date, UTC). A reader that does not know it (Foundation's
/// `UserDefaults`, an older prefs) sees every value as stored, and that one dictionary besides; every
/// read of prefs hides the key, and hides a value once the wall clock has reached its deadline, so
/// the next layer shows (`ExpiringStorage`). The deadlines change in the same locked write (files)
/// or transaction (etcd) as their values.
package enum Expiry {
    /// The reserved key that holds the deadlines.
    package static let key = ".prefs-expires"

    /// The wall clock now.
    package static func now() -> PrefDate {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return PrefDate(secondsSinceReferenceDate: Double(time.tv_sec) - WallClock.referenceDate + Double(time.tv_nsec) / 1e9)
    }

    /// The deadline of `key` in the stored deadlines (the value of `.prefs-expires`); nil when it has
    /// none (an entry that is not a date is no deadline).
    package static func deadline(of key: String, in table: PrefValue?) -> PrefDate? {
        guard case .dictionary(let deadlines)? = table, case .date(let date)? = deadlines[key] else { return nil }
        return date
    }

    /// Whether `key`'s value is past its deadline at `now`.
    static func hasExpired(_ key: String, in table: PrefValue?, at now: PrefDate) -> Bool {
        guard let deadline = deadline(of: key, in: table) else { return false }
        return deadline <= now
    }

    /// The contents a reader sees: without the reserved key, and without the values past their
    /// deadlines at `now`.
    package static func visible(_ contents: PrefDictionary, at now: PrefDate) -> PrefDictionary {
        guard let table = contents[key] else { return contents }
        var visible = contents
        _ = visible.removeValue(forKey: key)
        guard case .dictionary(let deadlines) = table else { return visible }
        for entry in deadlines {
            if case .date(let deadline) = entry.value, deadline <= now { _ = visible.removeValue(forKey: entry.key) }
        }
        return visible
    }

    /// The deadlines still ahead at `now` of the keys `contents` holds, from its reserved key.
    package static func deadlines(in contents: PrefDictionary, at now: PrefDate) -> [(key: String, deadline: PrefDate)] {
        guard case .dictionary(let deadlines)? = contents[key] else { return [] }
        return deadlines.compactMap { entry in
            guard case .date(let deadline) = entry.value, deadline > now, contents[entry.key] != nil else { return nil }
            return (entry.key, deadline)
        }
    }

    /// Why a change may not store the reserved key itself (64).
    static var reserved: PrefsError {
        .usage("the key \(key) is reserved: prefs keeps the deadlines of expiring values there (write KEY … --ttl D instead)")
    }

    /// `12m`, `3h`, `2d`, `40s`: how far `deadline` is from `now`, roughly, for `--origin` and
    /// `describe` (`expires 2026-11-28T11:02:00Z (in 12m)`).
    package static func describe(_ deadline: PrefDate, now: PrefDate = Expiry.now()) -> String {
        let left = deadline.secondsSinceReferenceDate - now.secondsSinceReferenceDate
        let text = deadline.isInSupportedRange ? deadline.iso8601() : "\(deadline.secondsSinceReferenceDate)"
        guard left > 0 else { return "expired \(text)" }
        let span: String
        switch left {
        case ..<60: span = "\(Int(left.rounded(.up)))s"
        case ..<3600: span = "\(Int((left / 60).rounded()))m"
        case ..<172_800: span = "\(Int((left / 3600).rounded()))h"
        default: span = "\(Int((left / 86_400).rounded()))d"
        }
        return "expires \(text) (in \(span))"
    }
}

/// What a change does to the deadlines of the keys it writes (`SuiteStore.expiry`). Without one, a
/// key whose value a change sets (to another value) or removes loses its deadline, and the others
/// keep theirs.
package struct ExpiryChange: Sendable {
    /// The keys written: their deadline becomes `deadline` (nil: none, as a plain write clears it).
    package var keys: KeySet
    package var deadline: PrefDate?
    /// Whether a written key whose value stays the same takes `deadline` too (false for
    /// `--if-absent`, which leaves a stored key as it is).
    package var unchangedToo: Bool
    /// Keys a rename moves: the new key takes the old one's deadline.
    package var moves: [(from: String, to: String)]

    package init(keys: KeySet = [], deadline: PrefDate? = nil, unchangedToo: Bool = true, moves: [(from: String, to: String)] = []) {
        self.keys = keys
        self.deadline = deadline
        self.unchangedToo = unchangedToo
        self.moves = moves
    }
}

extension SuiteStore {
    /// The deadlines still ahead of a domain's own stored keys (`read --origin`, `describe`,
    /// `find --expiring`), in key order; none where nothing expires.
    package func deadlines(in domain: Domain) throws -> [(key: String, deadline: PrefDate)] {
        let location = try location(of: domain)
        guard let storage = storage(for: location) as? ExpiringStorage, case .dictionary(let table)? = try storage.deadlines(in: location) else { return [] }
        let now = Expiry.now()
        return table.compactMap { entry in
            guard case .date(let deadline) = entry.value, deadline > now else { return nil }
            return (entry.key, deadline)
        }
    }
}

/// Told of the deadlines ahead of the values a read returned (`ExpiringStorage` tells it), so a
/// cache of reads (`ReadCache`) keeps a value no longer than its deadline: no file changes when one
/// passes. Set for one read with `DeadlineWitness.$current.withValue`.
final class DeadlineWitness: @unchecked Sendable {
    @TaskLocal static var current: DeadlineWitness?
    /// The earliest deadline seen (wall clock); nil: none. Touched by the one read it is set for.
    private(set) var earliest: PrefDate?

    func note(_ deadline: PrefDate) {
        if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
    }
}
