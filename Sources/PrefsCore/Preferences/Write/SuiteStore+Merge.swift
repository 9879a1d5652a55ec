extension SuiteStore {
    /// Merges a dictionary into a domain key by key, as `defaults import` does: its keys replace
    /// those stored, other keys stay. One atomic change.
    package func merge(_ incoming: PrefDictionary, into domain: Domain) throws -> ChangeOutcome {
        try change(try target(for: domain), keys: KeySet(incoming.keys), dryRun: false, external: ExternalOptions(reading: [])) { contents in
            for entry in incoming { contents[entry.key] = entry.value }
        }
    }
}
