/// The file store's history of a suite's changes: one file per suite,
/// `$XDG_STATE_HOME/prefs/history/S.plist` (`.GlobalPreferences.plist` for the global suite; 0600,
/// its directory 0700), a binary property list `{ versions = ( … ) }`, oldest first. A change writes
/// it while it still holds the suite's lock, right after the suite's own file is in place, with the
/// same atomic replace (temporary file, fsync, rename): a reader sees the old history or the new,
/// never a part; a change killed between the two renames leaves its version out, never a version
/// of a change that did not happen.
extension FileSuiteStorage {
    package func recordingVersions(_ stamp: VersionStamp) -> any SuiteStorage {
        var recording = self
        recording.versioning = stamp
        return recording
    }

    package func versions(of location: SuiteLocation) throws -> [SuiteVersion]? {
        guard let file = try historyFile(of: location) else { return nil }
        return try readVersions(file)
    }

    /// Where a location's history is kept; nil for a place that has none (registered defaults,
    /// schemas, files named by their paths, ByHost suites), or when neither `XDG_STATE_HOME` nor
    /// `HOME` names a directory: then changes keep no version.
    func historyFile(of location: SuiteLocation) throws -> String? {
        let name: String
        switch location {
        case .suite(let suite): name = suite
        case .global: name = ".GlobalPreferences"
        default: return nil
        }
        return try environment.optionalBaseDirectory("XDG_STATE_HOME", fallback: ".local/state").map { $0 + "/prefs/history/" + name + ".plist" }
    }

    func readVersions(_ file: String) throws -> [SuiteVersion] {
        let bytes: [UInt8]
        do { bytes = try fileSystem.contents(of: file) } catch PrefsError.fileNotFound { return [] }
        let decoded: PrefValue
        do { decoded = try PropertyList.decode(bytes, as: .binary) } catch let error as PrefsError { throw error.attributed(to: file) }
        guard case .dictionary(let root) = decoded, case .array(let entries)? = root["versions"] else {
            throw PrefsError.malformed(source: file, format: .binary, reason: "not a prefs history")
        }
        return try entries.map { entry in
            guard let version = SuiteVersion(stored: entry) else {
                throw PrefsError.malformed(source: file, format: .binary, reason: "a version that is not one")
            }
            return version
        }
    }

    /// Before a change commits, under the suite's lock: the versions kept now, checked against the
    /// version a `rollback` expects (`VersionStamp.checkHead`); nil when no version is recorded.
    func versionsBeforeChange(_ location: SuiteLocation) throws -> (file: String, versions: [SuiteVersion])? {
        guard let stamp = versioning, stamp.keep > 0 || stamp.expectedHead != nil, let file = try historyFile(of: location) else { return nil }
        let versions: [SuiteVersion]
        do {
            versions = try readVersions(file)
        } catch let error as PrefsError where error.exitStatus == .dataError && stamp.expectedHead == nil {
            // A damaged history stops no change: the change keeps no version, and the file stays
            // as it is for `prefs history` to report (65).
            return nil
        }
        try stamp.checkHead(versions.last?.number ?? 0, domain: FileSuiteStorage.suiteName(location))
        return (file, versions)
    }

    /// After the suite's file is in place, still under its lock: the version of the change that
    /// turned `before` into `after` added, the oldest beyond `keep` dropped. The change stands
    /// whatever happens here: a history that cannot be written (a full disk) loses this version,
    /// and the command does not report a committed change as failed.
    /// `change` (nil for a whole suite's removal) hears of the version and of the versions pruned.
    func recordVersion(_ kept: (file: String, versions: [SuiteVersion])?, before: PrefDictionary, after: PrefDictionary, _ change: StoredChange? = nil) {
        guard let pruned = try? writeVersion(kept, before: before, after: after) else { return }
        change?.recorded(pruned)
    }

    /// The versions pruned; nil when no version was written.
    func writeVersion(_ kept: (file: String, versions: [SuiteVersion])?, before: PrefDictionary, after: PrefDictionary) throws -> [SuiteVersion]? {
        guard let kept, let stamp = versioning, stamp.keep > 0,
              let version = stamp.version((kept.versions.last?.number ?? 0) + 1, from: before, to: after) else { return nil }
        let all = kept.versions + [version]
        let versions = Array(all.suffix(stamp.keep))
        let bytes = try PropertyList.encode(.dictionary(["versions": .array(versions.map(\.stored))]), as: .binary)
        let directory = splitPath(kept.file).directory
        if try fileSystem.status(of: directory) == nil { try fileSystem.createDirectory(directory, mode: 0o700) }
        try fileSystem.replace(kept.file, with: bytes, newFileMode: 0o600)
        return Array(all.prefix(all.count - versions.count))
    }
}
