/// What a dump holds, and where each part goes back on load: the one place that says so. A dump is a
/// typed-JSON document (see `SuiteStore.dump`) whose root dictionary has `prefs-dump` (the version)
/// and one dictionary per section, each mapping a name to the stored contents of one suite:
///
///     suites       every named suite by its name, and the global suite as `NSGlobalDomain`
///     registered   (with `--registered`) the user's registered defaults, by suite name
///                  (`NSGlobalDomain` for the global suite's)
///
/// A kind of suite added later (ByHost suites) gets a section here — listed by `dumpedSuites`, mapped
/// back by `location(section:name:)` — and `dump` and `load` carry it with no other change.
public struct DumpedSuite: Sendable, Equatable {
    public enum Section: String, Sendable, CaseIterable {
        case registered, suites
    }

    public let section: Section
    /// The name in its section: a suite name or `NSGlobalDomain`.
    public let name: String
    public let location: SuiteLocation

    /// How reports name it: the suite, or `SUITE (registered)`.
    public var displayName: String { section == .registered ? "\(name) (registered)" : name }
}

extension SuiteStore {
    /// The version `prefs-dump` holds; a dump of another version is refused.
    public static let dumpVersion: Int64 = 1
    public static let dumpMarker = "prefs-dump"

    /// Every suite a dump holds, in the order written (by section, then by name in code-point
    /// order), and the entries skipped finding them. A name that no DOMAIN argument would name
    /// (`-g.plist`, `NSGlobalDomain.plist` beside the global suite) is skipped, and said so.
    public func dumpedSuites(registered: Bool) throws -> (suites: [DumpedSuite], skipped: [SkippedEntry]) {
        var suites: [DumpedSuite] = []
        var skipped: [SkippedEntry] = []
        if registered {
            let listing = try storage.registeredNames()
            skipped += listing.skipped
            suites += listing.names.map { DumpedSuite(section: .registered, name: $0, location: .registered($0)) }
        }
        let listing = try suiteNames()
        skipped += listing.skipped
        var names: [(String, SuiteLocation)] = []
        for name in listing.names {
            guard let location = DumpedSuite.location(section: .suites, name: name), location == .suite(name) else {
                skipped.append(SkippedEntry(path: describe(.suite(name)), reason: "no DOMAIN argument names this suite"))
                continue
            }
            names.append((name, location))
        }
        names.append((SuiteStore.globalDomainName, .global))
        names.sort { $0.0.utf8Compare($1.0) < 0 }
        suites += names.map { DumpedSuite(section: .suites, name: $0.0, location: $0.1) }
        return (suites, skipped)
    }
}

extension DumpedSuite {
    /// Where a suite of a dump goes back to; nil for a name that does not name one there (`-g`, a
    /// path, an empty or dotted name).
    public static func location(section: Section, name: String) -> SuiteLocation? {
        guard let domain = try? Domain(argument: name), let registrationName = domain.registrationName, registrationName == name else { return nil }
        switch section {
        case .suites: return domain == .global ? .global : .suite(name)
        case .registered: return .registered(name)
        }
    }
}
