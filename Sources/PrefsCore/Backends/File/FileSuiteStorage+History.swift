/// The file store's history of a suite's changes: a directory per suite,
/// `$XDG_STATE_HOME/prefs/history/S/` (`.GlobalPreferences/` for the global suite; 0700), one file
/// per version, `NUMBER.plist` (NUMBER in 20 digits; 0600), the version as a binary property list
/// (`SuiteVersion.stored`). A change writes its version under the suite's lock as the companion of
/// the suite's own replace (`FileSystem.replace(_:newFileMode:streaming:alongside:commit:)`): a
/// temporary file fsynced with the suite's, renamed right after it, the oldest beyond the count
/// kept removed, all made durable in the suite's own step; a change costs its own version whatever
/// the history holds. A change killed between the two renames leaves its version out, never a
/// version of a change that did not happen.
extension FileSuiteStorage {
    package func recordingVersions(_ stamp: VersionStamp) -> any SuiteBackend {
        var recording = self
        recording.versioning = stamp
        return recording
    }

    package func versions(of location: SuiteLocation) throws -> [SuiteVersion]? {
        guard let directory = try historyDirectory(of: location) else { return nil }
        return try versionNumbers(directory).map { try readVersion(directory, $0) }
    }

    package func versions(of location: SuiteLocation, after number: Int64) throws -> [SuiteVersion]? {
        guard let directory = try historyDirectory(of: location) else { return nil }
        return try versionNumbers(directory).filter { $0 > number }.map { try readVersion(directory, $0) }
    }

    /// Whether the history holds anything but versions: a change's version written and not yet
    /// renamed in (or one a killed writer left, which its suite's next change removes).
    package func mayBeRecordingVersion(of location: SuiteLocation) throws -> Bool {
        guard let directory = try historyDirectory(of: location) else { return false }
        return try fileSystem.contentsOfDirectory(directory).contains { name in
            !(name.utf8.count == 26 && name.hasSuffix(".plist") && Int64(name.prefix(20)) != nil)
        }
    }

    /// Where a location's history is kept; nil for a place that has none (registered defaults,
    /// schemas, files named by their paths, ByHost suites), or when neither `XDG_STATE_HOME` nor
    /// `HOME` names a directory: then changes keep no version.
    func historyDirectory(of location: SuiteLocation) throws -> String? {
        guard location.keepsHistory else { return nil }
        let name = location == .global ? ".GlobalPreferences" : FileSuiteStorage.suiteName(location)
        return try environment.optionalBaseDirectory("XDG_STATE_HOME", fallback: ".local/state").map { $0 + "/prefs/history/" + name }
    }

    /// The numbers of the versions kept, oldest first (other names are passed over: a writer's
    /// temporary file).
    func versionNumbers(_ directory: String) throws -> [Int64] {
        try fileSystem.contentsOfDirectory(directory).compactMap { name -> Int64? in
            guard name.utf8.count == 26, name.hasSuffix(".plist") else { return nil }
            return Int64(name.prefix(20))
        }.sorted()
    }

    func versionFile(_ directory: String, _ number: Int64) -> String {
        let digits = String(number)
        return directory + "/" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".plist"
    }

    func readVersion(_ directory: String, _ number: Int64) throws -> SuiteVersion {
        let file = versionFile(directory, number)
        let decoded: PrefValue
        do { decoded = try PropertyList.decode(try fileSystem.contents(of: file), as: .binary) } catch let error as PrefsError { throw error.attributed(to: file) }
        guard let version = SuiteVersion(stored: decoded), version.number == number else {
            throw PrefsError.malformed(source: file, format: .binary, reason: "not a version prefs wrote")
        }
        return version
    }

    /// Before a change commits, under the suite's lock: the numbers of the versions kept now,
    /// checked against the version a `rollback` expects (`VersionStamp.checkHead`); nil when no
    /// version is recorded.
    func versionsBeforeChange(_ location: SuiteLocation) throws -> (directory: String, numbers: [Int64])? {
        guard let stamp = versioning, stamp.keep > 0 || stamp.expectedHead != nil, let directory = try historyDirectory(of: location) else { return nil }
        let numbers: [Int64]
        do {
            numbers = try versionNumbers(directory)
        } catch let error as PrefsError where stamp.expectedHead == nil {
            // A history that cannot be listed stops no change: the change keeps no version.
            _ = error
            return nil
        }
        try stamp.checkHead(numbers.last ?? 0, domain: FileSuiteStorage.suiteName(location))
        return (directory, numbers)
    }

    /// The version of the change that turns `before` into `after`, as the file that will hold it
    /// (the companion of the suite's replace, `FileSystem.replace(_:newFileMode:streaming:alongside:commit:)`,
    /// which also removes the oldest beyond `keep`), and the values of the versions it prunes; nil
    /// when none is kept.
    func pendingVersion(_ kept: (directory: String, numbers: [Int64])?, before: PrefDictionary, after: PrefDictionary) -> PendingVersion? {
        guard let kept, let stamp = versioning, stamp.keep > 0,
              let version = stamp.version((kept.numbers.last ?? 0) + 1, from: before, to: after),
              let bytes = try? version.encoded() else { return nil }
        var pruned: [SuiteVersion] = [], removing: [String] = []
        for number in kept.numbers.prefix(max(0, kept.numbers.count + 1 - stamp.keep)) {
            if let old = try? readVersion(kept.directory, number) { pruned.append(old) }
            removing.append(versionFile(kept.directory, number))
        }
        return PendingVersion(file: CompanionFile(path: versionFile(kept.directory, version.number), bytes: bytes, newFileMode: 0o600,
                                                  directoryMode: 0o700, removing: removing), pruned: pruned)
    }

    /// Removes a suite's file, then records the change's version (`recordVersion`). The version's
    /// bytes are staged first in a temporary file beside the versions, removed once the version is
    /// in place: as for a replace, a reader that sees the file gone before its version sees that a
    /// version is on its way (`mayBeRecordingVersion`).
    func removeRecordingVersion(_ target: String, _ kept: (directory: String, numbers: [Int64])?, before: PrefDictionary,
                                after: PrefDictionary, _ change: StoredChange? = nil) throws {
        var staged: String?
        if let pending = pendingVersion(kept, before: before, after: after) {
            let temporary = pending.file.directory + "/" + TemporaryName.make(for: splitPath(pending.file.path).name)
            do {
                if try fileSystem.status(of: pending.file.directory) == nil { try fileSystem.createDirectory(pending.file.directory, mode: 0o700) }
                try fileSystem.replace(temporary, with: pending.file.bytes, newFileMode: 0o600)
                staged = temporary
            } catch {}
        }
        defer { if let staged { try? fileSystem.removeFileUnsynced(staged) } }
        try fileSystem.removeFile(target)
        recordVersion(kept, before: before, after: after, change)
    }

    /// A change that is no replace of the suite's file (the suite removed): its version written
    /// after the removal, on its own. The change stands whatever happens here: a version that
    /// cannot be written (a full disk) is left out, and the command does not report a committed
    /// change as failed.
    func recordVersion(_ kept: (directory: String, numbers: [Int64])?, before: PrefDictionary, after: PrefDictionary, _ change: StoredChange? = nil) {
        guard let pending = pendingVersion(kept, before: before, after: after) else { return }
        // The pruned versions go first, unsynced: the new version's replace syncs the directory
        // once for both (a crash before it leaves the old versions, and no new one).
        for path in pending.file.removing { try? fileSystem.removeFileUnsynced(path) }
        do {
            if try fileSystem.status(of: pending.file.directory) == nil { try fileSystem.createDirectory(pending.file.directory, mode: 0o700) }
            try fileSystem.replace(pending.file.path, with: pending.file.bytes, newFileMode: 0o600)
        } catch {
            return
        }
        change?.recorded(pending.pruned)
    }
}

/// A change's version, ready to be put in place with the suite's file.
struct PendingVersion {
    var file: CompanionFile
    var pruned: [SuiteVersion]
}
