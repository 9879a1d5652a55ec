/// Where a suite is, as a store knows it.
package enum SuiteLocation: Hashable, Sendable {
    /// A named suite.
    case suite(String)
    /// The global suite (`NSGlobalDomain`).
    case global
    /// The user's registered defaults for a suite (`NSGlobalDomain` for the global suite), which
    /// `prefs register` changes.
    case registered(String)
    /// A file named by its path: a file domain, a `--defaults FILE`, a package's registered defaults.
    case file(String)
    /// A suite's values for one host (`-currentHost`, `-host NAME`; `defaults`' ByHost preferences):
    /// `suite` is nil for the global suite's. Its values always stay inline.
    case byHost(suite: String?, host: String)
    /// The user's schema for a suite (`NSGlobalDomain` for the global suite), which
    /// `prefs register --schema` installs: a dictionary like a suite's (see `Schema`).
    case schema(String)
    /// An administrator's managed values for a suite kept in the store itself (a fleet's:
    /// `SuiteBackend.managedLocations`; `NSGlobalDomain` for the global suite's), which a user's
    /// store only ever reads.
    case managed(String)

    /// Whether its changes keep a history (`prefs history`): suites and the global suite do;
    /// registered defaults, schemas, managed values seen from a user's store, files and ByHost suites do not.
    package var keepsHistory: Bool {
        switch self {
        case .suite, .global: return true
        default: return false
        }
    }

    /// Whether this is a file named by its path (kept by the file store whatever the store).
    package var isFile: Bool {
        if case .file = self { return true }
        return false
    }

    /// The location a domain names; nil for standard input.
    package init?(_ domain: Domain) {
        switch domain {
        case .suite(let name): self = .suite(name)
        case .global: self = .global
        case .file(let path): self = .file(path)
        case .standardInput: return nil
        }
    }
}

/// An administrator's managed values for a suite, and where they are (the file, or the place in
/// the store).
package struct ManagedValues: Sendable, Equatable {
    package let values: PrefDictionary
    package let source: String

    package init(values: PrefDictionary, source: String) {
        self.values = values
        self.source = source
    }
}

/// A suite as stored: its contents (external values as their references) and the format of the file
/// that holds it (nil where the store has no file format, and so no format limits).
package struct StoredSuite: Sendable {
    package var contents: PrefDictionary
    package var format: PlistFormat?
}

/// One change, as a store runs it: `apply` edits the contents (all of them, or just the `scope` keys
/// the store read), knowing the format they will be written in; it may run more than once (a store
/// may retry after a conflict) and must give the same result each time. `probe` is the same change
/// without side effects (no blob written), for a store that must know what a change would give before
/// it commits to anything. `willCommit` is called just before the new contents are committed: after
/// it, a failure may still have committed. `didCommit` is called once they are committed, by a store
/// that still keeps other changes (and `withChangesHeld`) out then — the file store, before it lets go
/// of the suite's lock — so what it does (removing the blobs the change left unreferenced) is done
/// before anyone else sees the suite; a store that has no such moment does not call it.
///
/// `recorded` is called, once the change is committed and before `didCommit`, by a store that kept
/// a version of it (`SuiteBackend.recordingVersions`), with the values of the versions that change
/// pruned (those whose values it has: on etcd, only when they name an external value), so the
/// blobs only they named can go with the change's own.
package struct StoredChange {
    package let apply: (inout PrefDictionary, PlistFormat?) throws -> Void
    package let probe: (inout PrefDictionary) throws -> Void
    package let willCommit: () -> Void
    package let didCommit: () -> Void
    package let recorded: (_ pruned: [SuiteVersion]) -> Void

    package init(apply: @escaping (inout PrefDictionary, PlistFormat?) throws -> Void,
                probe: @escaping (inout PrefDictionary) throws -> Void, willCommit: @escaping () -> Void = {},
                didCommit: @escaping () -> Void = {}, recorded: @escaping (_ pruned: [SuiteVersion]) -> Void = { _ in }) {
        self.apply = apply
        self.probe = probe
        self.willCommit = willCommit
        self.didCommit = didCommit
        self.recorded = recorded
    }
}
