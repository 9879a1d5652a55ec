extension SuiteStore {
    /// Removes from a domain's suite the values whose deadline passed more than `grace` seconds ago,
    /// with their deadlines (`gc`): no reader has seen them since (one whose clock is less than
    /// `grace` behind this host's), so nothing a read gives changes. One change, under the suite's
    /// lock or in one transaction, kept in the suite's history as `gc`'s. With `dryRun`, what it
    /// would remove. The keys removed, with their deadlines, sorted by key.
    package func collectExpired(_ domain: Domain, grace: Double, dryRun: Bool = false, now: PrefDate = Expiry.now()) throws
        -> [(key: String, deadline: PrefDate)] {
        let location = try location(of: domain)
        var store = self
        store.changeVerb = "gc"
        let storage = ExpiringStorage.unwrapped(try store.changing(location))
        func expired(_ table: PrefValue?) -> [String] {
            guard case .dictionary(let deadlines)? = table else { return [] }
            return deadlines.compactMap { entry in
                guard case .date(let deadline) = entry.value, deadline.secondsSinceReferenceDate + grace < now.secondsSinceReferenceDate else { return nil }
                return entry.key
            }
        }
        // Most suites have none: they are read, not locked.
        let candidates = expired(try storage.lookup(Expiry.key, in: location).value)
        guard !candidates.isEmpty else { return [] }
        var collected: [(key: String, deadline: PrefDate)] = []
        let collect: (inout PrefDictionary) -> Void = { raw in
            collected = []
            guard case .dictionary(var deadlines)? = raw[Expiry.key] else { return }
            for key in expired(raw[Expiry.key]) {
                if raw.removeValue(forKey: key) != nil, let deadline = Expiry.deadline(of: key, in: raw[Expiry.key]) { collected.append((key, deadline)) }
                _ = deadlines.removeValue(forKey: key)
            }
            raw[Expiry.key] = deadlines.isEmpty ? nil : .dictionary(deadlines)
        }
        if dryRun {
            var raw = try storage.load(location)?.contents ?? PrefDictionary()
            collect(&raw)
        } else {
            _ = try storage.modify(location, scope: KeySet(candidates + [Expiry.key]), removingEmpty: false, StoredChange(apply: { raw, _ in collect(&raw) }, probe: collect))
        }
        return collected.sorted { $0.key.utf8Compare($1.key) < 0 }
    }
}
