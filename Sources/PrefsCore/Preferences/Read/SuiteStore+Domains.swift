extension SuiteStore {
    /// The name `domains` lists the global suite under, one that names it as a DOMAIN argument too.
    package static let globalDomainName = "NSGlobalDomain"

    /// `domains`: the named suites and, when it holds values (or cannot be read, so that it is looked
    /// at), the global suite as `NSGlobalDomain`, in code-point order; and what was skipped.
    package func domainNames() throws -> SuiteListing {
        var listing = try suiteNames()
        let global: Bool
        do {
            global = !(try load(at: .global)?.contents.isEmpty ?? true)
        } catch {
            global = true
        }
        let name = SuiteStore.globalDomainName
        if global && !listing.names.contains(where: { $0.utf8.elementsEqual(name.utf8) }) {
            let index = listing.names.firstIndex { $0.utf8Compare(name) > 0 } ?? listing.names.endIndex
            listing.names.insert(name, at: index)
        }
        return listing
    }
}
