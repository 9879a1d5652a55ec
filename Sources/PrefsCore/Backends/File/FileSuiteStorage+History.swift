/// The file store's history of a suite's changes: a directory per suite,
/// `$XDG_STATE_HOME/prefs/history/S/` (`.GlobalPreferences/` for the global suite; 0700), holding
/// the log `versions.log` (0600, `VersionLog`). A change appends its version under the suite's lock,
/// right after its own file is renamed into place, and the two are made durable in one step
/// (`FileSystem.replace(_:newFileMode:streaming:alongside:commit:)`): a change costs its own
/// version whatever the history holds, and a change killed between its rename and its version's
/// append leaves its version out, never a version of a change that did not happen. Versions an
/// older prefs wrote, one file each (`NUMBER.plist`, NUMBER in 20 digits, a binary property list),
/// are read with the log's, and removed by the change that prunes them.
extension FileSuiteStorage {
    package func recordingVersions(_ stamp: VersionStamp) -> any SuiteBackend {
        var recording = self
        recording.versioning = stamp
        return recording
    }

    package func versions(of location: SuiteLocation) throws -> [SuiteVersion]? {
        try versions(of: location, after: .min)
    }

    package func versions(of location: SuiteLocation, after number: Int64) throws -> [SuiteVersion]? {
        guard let directory = try historyDirectory(of: location) else { return nil }
        let history = try readHistory(directory)
        if history.log.foreign { throw PrefsError.malformed(source: history.logPath, format: nil, reason: "not a history prefs wrote") }
        return try history.kept.filter { $0 > number }.map(history.version)
    }

    /// Whether a change's version may be on its way: a writer still holds the suite's file (it
    /// appends the version before letting go), or a temporary file stands in the history (a
    /// removal's, or a file system's whose replaced file no writer holds; or one a killed writer
    /// left, which its suite's next change removes).
    package func mayBeRecordingVersion(of location: SuiteLocation) throws -> Bool {
        guard let directory = try historyDirectory(of: location) else { return false }
        let suite = try path(of: location)
        if fileSystem.isHeldByAWriter((try? fileSystem.resolvingSymlinks(suite)) ?? suite) { return true }
        return try fileSystem.contentsOfDirectory(directory).contains { $0 != VersionLog.name && FileSuiteStorage.versionNumber($0) == nil }
    }

    /// Where a location's history is kept; nil for a place that has none (registered defaults,
    /// schemas, files named by their paths, ByHost suites), or when neither `XDG_STATE_HOME` nor
    /// `HOME` names a directory: then changes keep no version.
    func historyDirectory(of location: SuiteLocation) throws -> String? {
        guard location.keepsHistory else { return nil }
        let name = location == .global ? ".GlobalPreferences" : FileSuiteStorage.suiteName(location)
        return try environment.optionalBaseDirectory("XDG_STATE_HOME", fallback: ".local/state").map { $0 + "/prefs/history/" + name }
    }

    /// A suite's history as it is on disk: its log, and the version files an older prefs wrote.
    func readHistory(_ directory: String) throws -> SuiteHistory {
        var files: [Int64] = [], hasLog = false, temporaries: [String] = []
        for name in try fileSystem.contentsOfDirectory(directory) {
            if name == VersionLog.name {
                hasLog = true
            } else if let number = FileSuiteStorage.versionNumber(name) {
                files.append(number)
            } else {
                temporaries.append(directory + "/" + name)
            }
        }
        let logPath = directory + "/" + VersionLog.name
        var log = VersionLog([])
        if hasLog {
            // A FIFO or device in its place is no log (and is never opened).
            if let status = try fileSystem.status(of: logPath), status.isSpecial || status.isDirectory {
                log = VersionLog.notAFile
            } else {
                do { log = VersionLog(try fileSystem.contents(of: logPath)) } catch PrefsError.fileNotFound {}
            }
        }
        return SuiteHistory(storage: self, directory: directory, logPath: logPath, log: log, files: files.sorted(), temporaries: temporaries)
    }

    /// The number of a version file an older prefs wrote (`NUMBER.plist`, 20 digits); nil for
    /// another name.
    static func versionNumber(_ name: String) -> Int64? {
        guard name.utf8.count == 26, name.hasSuffix(".plist") else { return nil }
        return Int64(name.prefix(20))
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

    /// Before a change commits, under the suite's lock: the history as it is, its newest version
    /// checked against the one a `rollback` expects (`VersionStamp.checkHead`); nil when no version
    /// is recorded.
    func versionsBeforeChange(_ location: SuiteLocation) throws -> SuiteHistory? {
        guard let stamp = versioning, stamp.keep > 0 || stamp.expectedHead != nil, let directory = try historyDirectory(of: location) else { return nil }
        let history: SuiteHistory
        do {
            history = try readHistory(directory)
        } catch let error as PrefsError where stamp.expectedHead == nil {
            // A history that cannot be read stops no change: the change keeps no version.
            _ = error
            return nil
        }
        try stamp.checkHead(history.numbers.last ?? 0, domain: FileSuiteStorage.suiteName(location))
        return history
    }

    /// The version of the change that turns `before` into `after`, as what the suite's replace adds
    /// to the log (`FileSystem.replace(_:newFileMode:streaming:alongside:commit:)`): appended, or
    /// the log rewritten with the versions kept once it holds `VersionLog.slack` more; the version
    /// files of an older prefs it prunes removed. With it, the values of the versions it prunes.
    /// Nil when none is kept (a log prefs did not write is left as it is).
    func pendingVersion(_ history: SuiteHistory?, before: PrefDictionary, after: PrefDictionary) -> PendingVersion? {
        guard let history, !history.log.foreign, let stamp = versioning, stamp.keep > 0,
              let version = stamp.version((history.numbers.last ?? 0) + 1, from: before, to: after),
              let record = try? VersionLog.record(version, keep: stamp.keep) else { return nil }
        let keptAfter = Set((history.numbers + [version.number]).suffix(stamp.keep))
        let pruned = history.kept.filter { !keptAfter.contains($0) }.compactMap { try? history.version($0) }
        let removing = history.files.filter { !keptAfter.contains($0) }.map { versionFile(history.directory, $0) } + history.temporaries
        let log = history.log
        if log.records.count + 1 > stamp.keep + VersionLog.slack(keeping: stamp.keep) {
            var bytes = VersionLog.header
            for kept in log.records where keptAfter.contains(kept.number) { bytes += log.bytes[kept.bytes] }
            return PendingVersion(log: LogAppend(path: history.logPath, bytes: bytes + record, offset: 0, rewrite: true, removing: removing), pruned: pruned)
        }
        return PendingVersion(log: LogAppend(path: history.logPath, bytes: log.end == 0 ? VersionLog.header + record : record, offset: log.end,
                                             removing: removing), pruned: pruned)
    }

    /// Removes a suite's file, then records the change's version (`recordVersion`). A temporary
    /// file stands beside the log from before the removal until the version is added: a reader
    /// that sees the file gone before its version sees that a version is on its way
    /// (`mayBeRecordingVersion`).
    func removeRecordingVersion(_ target: String, _ history: SuiteHistory?, before: PrefDictionary,
                                after: PrefDictionary, _ change: StoredChange? = nil) throws {
        var marker: String?
        if let history, versioning.map({ $0.keep > 0 }) == true {
            let temporary = history.directory + "/" + TemporaryName.make(for: VersionLog.name)
            do {
                if try fileSystem.status(of: history.directory) == nil { try fileSystem.createDirectory(history.directory, mode: 0o700) }
                try fileSystem.replace(temporary, with: [], newFileMode: 0o600)
                marker = temporary
            } catch {}
        }
        defer { if let marker { try? fileSystem.removeFileUnsynced(marker) } }
        try fileSystem.removeFile(target)
        recordVersion(history, before: before, after: after, change)
    }

    /// A change that is no replace of the suite's file (the suite removed): its version added
    /// after the removal, on its own. The change stands whatever happens here: a version that
    /// cannot be written (a full disk) is left out, and the command does not report a committed
    /// change as failed.
    func recordVersion(_ history: SuiteHistory?, before: PrefDictionary, after: PrefDictionary, _ change: StoredChange? = nil) {
        guard let pending = pendingVersion(history, before: before, after: after), fileSystem.append(pending.log) else { return }
        change?.recorded(pending.pruned)
    }
}

/// A suite's history as a change or a reader finds it (`FileSuiteStorage.readHistory`).
struct SuiteHistory {
    let storage: FileSuiteStorage
    let directory: String
    let logPath: String
    let log: VersionLog
    /// The numbers of the version files an older prefs wrote, oldest first.
    let files: [Int64]
    /// Anything else there: what a writer killed while adding a version left (under the suite's
    /// lock, no one else's), removed by the next change.
    let temporaries: [String]

    /// Every version there, oldest first.
    var numbers: [Int64] {
        files.isEmpty ? log.records.map(\.number) : Array(Set(files + log.records.map(\.number))).sorted()
    }

    /// The versions kept: the newest as many as the log's newest writer kept (all of them when the
    /// log has no record).
    var kept: ArraySlice<Int64> {
        let numbers = numbers
        return numbers.suffix(log.keep ?? numbers.count)
    }

    /// The version numbered `number`: the log's record, else an older prefs' file; a damaged one is
    /// a corrupt history (65).
    func version(_ number: Int64) throws -> SuiteVersion {
        if let record = log.records.last(where: { $0.number == number }) { return try log.version(record, path: logPath) }
        return try storage.readVersion(directory, number)
    }
}

/// A change's version, ready to be added to its suite's log with the suite's file.
struct PendingVersion {
    var log: LogAppend
    var pruned: [SuiteVersion]
}
