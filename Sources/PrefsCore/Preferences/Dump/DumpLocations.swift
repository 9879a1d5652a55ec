/// What a dump holds, and where each part goes back on load: the one place that says so. A dump is a
/// typed-JSON document (see `SuiteStore.dump`) whose root dictionary has `prefs-dump` (the version)
/// and one dictionary per section, each mapping a name to the stored contents of one suite:
///
///     suites       every named suite by its name, and the global suite as `NSGlobalDomain`
///     registered   (with `--registered`) the user's registered defaults, by suite name
///                  (`NSGlobalDomain` for the global suite's)
///     suitesByHost this machine's ByHost suites (`-currentHost`), by host ID, then by suite name
///                  (`NSGlobalDomain` for the global suite's); left out when there are none
///
/// Each section is listed by `dumpedSuites` and mapped back by `location(section:name:host:)`.
package struct DumpedSuite: Sendable, Equatable {
    package enum Section: String, Sendable, CaseIterable {
        case registered, suites, suitesByHost
    }

    package let section: Section
    /// The name in its section: a suite name or `NSGlobalDomain`.
    package let name: String
    package let location: SuiteLocation
    /// The host of a ByHost suite.
    package var host: String? = nil

    /// How reports name it: the suite, `SUITE (registered)` or `SUITE (ByHost HOST)`.
    package var displayName: String {
        switch section {
        case .suites: return name
        case .registered: return "\(name) (registered)"
        case .suitesByHost: return "\(name) (ByHost \(host ?? ""))"
        }
    }
}

extension SuiteStore {
    /// The version `prefs-dump` holds; a dump of another version is refused.
    package static let dumpVersion: Int64 = 1
    package static let dumpMarker = "prefs-dump"

    /// Every suite a dump holds, in the order written (by section, then by name in code-point
    /// order), and the entries skipped finding them. A name that no DOMAIN argument would name
    /// (`-g.plist`, `NSGlobalDomain.plist` beside the global suite) is skipped, and said so.
    package func dumpedSuites(registered: Bool) throws -> (suites: [DumpedSuite], skipped: [SkippedEntry]) {
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
        if let host = try readingHost() {
            let listing = try storage.suiteNames(onHost: host)
            skipped += listing.skipped
            var names = listing.names.filter { DumpedSuite.location(section: .suitesByHost, name: $0, host: host) == .byHost(suite: $0, host: host) }
            if try load(at: .byHost(suite: nil, host: host)) != nil { names.append(SuiteStore.globalDomainName) }
            names.sort { $0.utf8Compare($1) < 0 }
            suites += names.compactMap { name in
                DumpedSuite.location(section: .suitesByHost, name: name, host: host).map { DumpedSuite(section: .suitesByHost, name: name, location: $0, host: host) }
            }
        }
        return (suites, skipped)
    }
}

extension DumpedSuite {
    /// Where a suite of a dump goes back to; nil for a name that does not name one there (`-g`, a
    /// path, an empty or dotted name), or a ByHost suite without a valid host ID.
    package static func location(section: Section, name: String, host: String? = nil) -> SuiteLocation? {
        guard let domain = try? Domain(argument: name), let registrationName = domain.registrationName, registrationName == name else { return nil }
        switch section {
        case .suites: return domain == .global ? .global : .suite(name)
        case .registered: return .registered(name)
        case .suitesByHost:
            guard let host, Environment.isHostID(host) else { return nil }
            return .byHost(suite: domain == .global ? nil : name, host: host)
        }
    }
}
