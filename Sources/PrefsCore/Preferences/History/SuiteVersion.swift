import Glibc

/// One kept version of a suite (`prefs history`, `diff`, `rollback`): what one change did — its
/// number (increasing per suite), when, who, which verb, and each top-level key it changed with the
/// value before and after, as stored (external values as their references, the deadlines key
/// `.prefs-expires` like any other). Versions are deltas: a suite's history costs what its changes
/// changed, and undoing versions needs nothing but them.
package struct SuiteVersion: Sendable, Equatable {
    package var number: Int64
    /// Seconds since 1970.
    package var time: Double
    package var user: String
    package var host: String
    package var verb: String
    /// The keys it changed, sorted by code point.
    package var keys: [String]
    /// Their values before and after (nil where the key was absent); nil when they were too large
    /// to keep in the store's history (etcd: more than one transaction takes): the version is
    /// listed, but cannot be undone.
    package var changes: [KeyChange]?

    package init(number: Int64, time: Double, user: String, host: String, verb: String, keys: [String], changes: [KeyChange]?) {
        self.number = number
        self.time = time
        self.user = user
        self.host = host
        self.verb = verb
        self.keys = keys
        self.changes = changes
    }

    /// What turned `before` into `after`, top-level key by key; empty when they are equal.
    package static func changes(from before: PrefDictionary, to after: PrefDictionary) -> [KeyChange] {
        var changes: [KeyChange] = []
        PrefDictionary.zip(before, after) { old, new in
            guard old?.value != new?.value else { return }
            changes.append(KeyChange(key: (new ?? old)!.key, old: old?.value, new: new?.value))
        }
        return changes.sorted { $0.key.utf8Compare($1.key) < 0 }
    }

    /// The external values its values name (a large value kept by reference).
    package var references: [ExternalReference] {
        (changes ?? []).flatMap { [$0.old, $0.new] }.compactMap { value in try? value.flatMap { try ExternalReference.parse($0) } }
    }

    // MARK: Stored form

    /// As a store keeps it: a dictionary, written as a binary property list.
    package var stored: PrefValue {
        var entries: [(String, PrefValue)] = [
            ("version", .integer(number)), ("time", .real(time)), ("user", .string(user)), ("host", .string(host)),
            ("verb", .string(verb)), ("keys", .array(keys.map { .string($0) })),
        ]
        if let changes {
            entries.append(("changes", .array(changes.map { change in
                var entry: [(String, PrefValue)] = [("key", .string(change.key))]
                if let old = change.old { entry.append(("old", old)) }
                if let new = change.new { entry.append(("new", new)) }
                return .dictionary(PrefDictionary(entry))
            })))
        }
        return .dictionary(PrefDictionary(entries))
    }

    /// A version from its stored form; nil when the value is not one.
    package init?(stored: PrefValue) {
        guard case .dictionary(let d) = stored, case .integer(let number)? = d["version"], case .real(let time)? = d["time"],
              case .string(let user)? = d["user"], case .string(let host)? = d["host"], case .string(let verb)? = d["verb"],
              case .array(let keyValues)? = d["keys"] else { return nil }
        var keys: [String] = []
        for value in keyValues {
            guard case .string(let key) = value else { return nil }
            keys.append(key)
        }
        var changes: [KeyChange]?
        if case .array(let entries)? = d["changes"] {
            changes = []
            for entry in entries {
                guard case .dictionary(let e) = entry, case .string(let key)? = e["key"] else { return nil }
                changes?.append(KeyChange(key: key, old: e["old"], new: e["new"]))
            }
        }
        self.init(number: number, time: time, user: user, host: host, verb: verb, keys: keys, changes: changes)
    }

    package func encoded() throws -> [UInt8] { try PropertyList.encode(stored, as: .binary) }

    package init?(encoded bytes: [UInt8]) {
        guard let value = try? PropertyList.decode(bytes, as: .binary) else { return nil }
        self.init(stored: value)
    }
}

/// What a change records in its suite's history: the verb, and how many versions are kept; the
/// number of the version a `rollback` read, when the change must find the history there still.
package struct VersionStamp: Sendable, Equatable {
    package var verb: String
    /// Versions kept per suite (`PREFS_HISTORY`, default 10); 0 keeps none.
    package var keep: Int
    /// The newest version the change expects (`rollback`'s compare-and-swap): another found when it
    /// commits is a conflict (4), and nothing changes.
    package var expectedHead: Int64? = nil

    package init(verb: String, keep: Int, expectedHead: Int64? = nil) {
        self.verb = verb
        self.keep = keep
        self.expectedHead = expectedHead
    }

    /// The version a change that turned `before` into `after` records as `number`, made now by this
    /// process; nil when nothing changed.
    func version(_ number: Int64, from before: PrefDictionary, to after: PrefDictionary) -> SuiteVersion? {
        let changes = SuiteVersion.changes(from: before, to: after)
        guard !changes.isEmpty else { return nil }
        let who = VersionStamp.user()
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return SuiteVersion(number: number, time: Double(now.tv_sec) + Double(now.tv_nsec / 1_000_000) / 1000, user: who.user, host: who.host,
                            verb: verb, keys: changes.map(\.key), changes: changes)
    }

    /// `$USER` (else `$LOGNAME`, else the user ID) and the host name, as `prefs locks` names a holder.
    static func user() -> (user: String, host: String) {
        let identity = LockHolder.Identity.current(.current)
        guard let at = identity.user.utf8.lastIndex(of: UInt8(ascii: "@")) else { return (identity.user, "") }
        return (String(identity.user[..<at]), String(identity.user[identity.user.index(after: at)...]))
    }

    /// Checks the newest version found (0: none) against the one expected.
    func checkHead(_ found: Int64, domain: String) throws {
        guard let expectedHead, expectedHead != found else { return }
        throw PrefsError.versionConflict(domain: domain,
            reason: "the suite moved since its history was read (newest version \(expectedHead), now \(found)); nothing changed")
    }
}

extension Environment {
    /// `$PREFS_HISTORY`: how many versions of each suite are kept (default 10, 0 keeps none, at most 1000).
    package func historyLength() throws -> Int {
        guard let text = try self["PREFS_HISTORY"] else { return 10 }
        guard let count = Int(text), (0...1000).contains(count) else {
            throw PrefsError.badEnvironment(name: "PREFS_HISTORY", value: text, accepted: "a number of versions from 0 to 1000")
        }
        return count
    }
}
