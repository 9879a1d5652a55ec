/// What `domains` lists: the suites' names, the entries passed over (warnings), and why the global
/// suite could not be read, when it could not (it is listed then, so that it is looked at).
package struct DomainListing: Equatable, Sendable {
    package var names: [String] = []
    package var skipped: [SkippedEntry] = []
    package var failure: PrefsError?
}

extension SuiteStore {
    /// The name `domains` lists the global suite under, one that names it as a DOMAIN argument too.
    package static let globalDomainName = "NSGlobalDomain"

    /// `domains`: the named suites and, when it holds values or cannot be read (a corrupt file, a
    /// malformed answer from the store: the `failure`), the global suite as `NSGlobalDomain`, in
    /// code-point order; and what was skipped.
    package func domainNames() throws -> DomainListing {
        let suites = try suiteNames()
        var listing = DomainListing(names: suites.names, skipped: suites.skipped)
        let global: Bool
        do {
            global = !(try load(at: .global)?.contents.isEmpty ?? true)
        } catch {
            listing.failure = error as? PrefsError ?? .internalError("\(error)")
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
