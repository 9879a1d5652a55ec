/// When a read of a suite may answer from the host's snapshot of it (`read`, `exec`, `export`).
package struct SnapshotPolicy: Sendable {
    /// Answer from a snapshot the store confirmed at most this many seconds ago, without asking the
    /// store (`--max-stale`); one that does not hold what the read needs asks the store.
    package var maxStale: Double?
    /// Answer from the snapshot, whatever its age, when no endpoint of the store answers
    /// (`--fallback-cache`, `PREFS_FALLBACK_CACHE=1`); else that is 69.
    package var fallback: Bool

    package init(maxStale: Double? = nil, fallback: Bool = false) {
        self.maxStale = maxStale
        self.fallback = fallback
    }
}

/// A read answered from a snapshot: when the store last confirmed it, and why it was used.
package struct SnapshotAnswer: Sendable {
    /// Seconds since the epoch.
    package let confirmed: Double
    /// Seconds since then (never below 0).
    package let age: Double
    /// The store's failure, when it was used because no endpoint answered; nil when it was young
    /// enough (`--max-stale`).
    package let unavailable: PrefsError?
    /// How the store names the places the snapshot holds (the sources of their origins).
    let places: [String]

    package var confirmedDate: PrefDate { PrefDate(secondsSinceReferenceDate: confirmed - WallClock.referenceDate) }

    /// Whether a value of `origin` came from the snapshot: the suite's and the global suite's stored
    /// values, and the layers of the store's places; not this machine's files.
    package func holds(_ origin: Origin) -> Bool {
        switch origin {
        case .stored, .global, .byHost, .globalByHost: return true
        case .registered(let source), .schema(let source), .managed(let source): return places.contains { $0.utf8Compare(source) == 0 }
        case .system, .commandLine: return false
        }
    }
}

extension SuiteStore {
    /// `read` on this store, or on the host's snapshot of the domain's suite as `policy` allows;
    /// `answered` is told, before the answer (or the error, such as a key not found) comes back,
    /// when it came from a snapshot. An answer from the store leaves what it read in the snapshot
    /// (also when it was "not found"). A store that keeps no snapshots (files), a file domain or
    /// standard input is read as it is.
    package func reading<T>(_ domain: Domain, policy: SnapshotPolicy, answered: (SnapshotAnswer) -> Void = { _ in },
                            _ read: (SuiteStore) throws -> T) throws -> T {
        guard host == nil, let suite = domain.registrationName, SuiteLocation(domain) != nil, let cache = try SnapshotCache(self) else {
            return try read(self)
        }
        if let maxStale = policy.maxStale, let found = cache.snapshot(of: suite) {
            let age = WallClock.now() - found.confirmed
            if age >= 0 && age <= maxStale, let value = try answer(found, read, unavailable: nil, answered) { return value }
        }
        let (live, keep) = try recording(suite, of: domain, in: cache)
        do {
            let value = try read(live)
            keep()
            return value
        } catch let error as PrefsError {
            guard case .unavailable = error else {
                if SuiteStore.isAbsence(error) { keep() }
                throw error
            }
            guard policy.fallback, let found = cache.snapshot(of: suite), let value = try answer(found, read, unavailable: error, answered) else {
                throw error
            }
            return value
        }
    }

    /// This store with what it reads of `domain` kept in the host's snapshot of it each time `keep`
    /// is called (a watch calls it after each reading it reports); this store itself, and a `keep`
    /// that does nothing, when it keeps no snapshots.
    package func recordingSnapshots(of domain: Domain) throws -> (store: SuiteStore, keep: () -> Void) {
        guard host == nil, let suite = domain.registrationName, SuiteLocation(domain) != nil, let cache = try SnapshotCache(self) else {
            return (self, {})
        }
        return try recording(suite, of: domain, in: cache)
    }

    private func recording(_ suite: String, of domain: Domain, in cache: SnapshotCache) throws -> (store: SuiteStore, keep: () -> Void) {
        let recorder = ReadRecorder()
        let own = try ownPlaces(of: domain, named: suite)
        var live = self
        live.storage = storage.observing(recorder)
        return (live, { cache.record(recorder.take(), suite: suite, own: own) })
    }

    /// `read` on the snapshot; nil when it does not hold what the read needs.
    private func answer<T>(_ found: (snapshot: ReadSnapshot, confirmed: Double), _ read: (SuiteStore) throws -> T, unavailable: PrefsError?,
                           _ answered: (SnapshotAnswer) -> Void) throws -> T? {
        var store = self
        store.storage = ExpiringStorage.wrapping(SnapshotStorage(snapshot: found.snapshot, live: ExpiringStorage.unwrapped(storage)))
        let answer = SnapshotAnswer(confirmed: found.confirmed, age: max(0, WallClock.now() - found.confirmed), unavailable: unavailable,
                                    places: found.snapshot.places.keys.map(storage.describe))
        do {
            let value = try read(store)
            answered(answer)
            return value
        } catch let error as PrefsError {
            if case .unavailable = error { return nil }
            answered(answer)
            throw error
        }
    }

    /// The places of the store that make a suite exist: its values, registered defaults, managed
    /// values and schema.
    func ownPlaces(of domain: Domain, named name: String) throws -> [SuiteLocation] {
        guard let own = SuiteLocation(domain) else { return [] }
        return [own, .registered(name), .schema(name)] + (try storage.managedLocations(for: name))
    }
}
