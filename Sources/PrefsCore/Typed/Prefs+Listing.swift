import Synchronization

extension Prefs.Suite {
    /// The names of the suite's top-level keys, in code-point order: those of every layer a read
    /// sees and of the defaults registered in code (not the keys' own defaults, which the suite
    /// does not know). A read: it takes no lock, so it never waits for a writer, and it may run
    /// inside `update`.
    public func keys() throws -> [String] {
        let resolved = try layers().resolved(evenIfMissing: true).values
        var names = resolved
        for entry in registeredDefaults where names[entry.key] == nil { names[entry.key] = entry.value }
        return names.map(\.key)
    }

    /// Every top-level key with the value a read of it gives (`UserDefaults.dictionaryRepresentation()`):
    /// the first layer that has it, else the default registered in code; a value kept in external
    /// storage is read whole. Like `keys()`, a read that takes no lock.
    public func dictionaryRepresentation() throws -> PrefDictionary {
        let layers = try layers()
        let resolved = try layers.resolved(evenIfMissing: true)
        var values = registeredDefaults
        for (entry, origin) in zip(resolved.values, resolved.origins) {
            let place = try layers.blobPlace(for: origin)
            values[entry.key] = try store.materialized(entry.value, place: place, domain: place?.suite ?? name, key: entry.key)
        }
        return values
    }

    /// The suite's layers, as a read sees them.
    func layers() throws -> Layers { try store.layers(of: try domain()) }
}

/// The defaults registered in code of a suite and its copies.
final class RegisteredDefaults: Sendable {
    let values = Mutex(PrefDictionary())
}
