import Glibc

/// Changing suite files: one locked read-modify-write each, patched in place when the change names
/// its keys, and removed whole only after checking that they are suites.
extension FileSuiteStorage {
    /// A suite's directory is created (0700) on the first change that adds something; a file domain's
    /// directory must exist. When the change touches only the top-level `scope` keys, a binary or XML
    /// file is patched (`TopLevelPatch`): still checked whole, but only those entries are decoded and
    /// rewritten, and the change then sees just those keys.
    package func modify(_ location: SuiteLocation, scope: KeySet?, removingEmpty: Bool, _ change: StoredChange) throws -> Bool {
        let target = try fileSystem.resolvingSymlinks(try path(of: location))
        try checkNotSpecial(target)
        let directory = splitPath(target).directory
        if try fileSystem.status(of: directory) == nil {
            // No directory, so no file: only create the directory when the change adds something.
            var contents = PrefDictionary()
            try change.probe(&contents)
            guard !contents.isEmpty else { return false }
            try checkDates(contents, format: newSuiteFileFormat(target).forNewSuite(holding: contents), location)
            if case .file = location { throw PrefsError.cannotWrite(path: target, errno: ENOENT) }
            try fileSystem.createDirectory(directory, mode: 0o700)
        }
        return try locked(target) {
            let kept = try versionsBeforeChange(location)
            if !removingEmpty, let scope, let patched = try patch(target, scope: scope, location, change, versions: kept) { return patched }
            let bytes: [UInt8]?
            do { bytes = try fileSystem.contents(of: target) } catch PrefsError.fileNotFound { bytes = nil }
            let current = try bytes.map { try FileSuiteStorage.decode($0, path: target) }
            var contents = current?.contents ?? PrefDictionary()
            var format = current?.format ?? newSuiteFileFormat(target)
            try change.apply(&contents, format)
            if current == nil { format = format.forNewSuite(holding: contents) }
            try checkDates(contents, format: format, location)
            if let current, current.contents == contents { return false }
            if current == nil && contents.isEmpty { return false }
            if removingEmpty && contents.isEmpty {
                change.willCommit()
                // (With the file gone, a new locker takes the directory's lock, which this one does
                // not hold: `check` allows for what is removed here, see `checkExternal`.)
                try removeRecordingVersion(target, kept, before: current?.contents ?? [:], after: contents, change)
                change.didCommit()
                return true
            }
            let encoded = try FileSuiteStorage.encode(contents, as: format)
            // Values can differ and still encode alike (a date fraction in XML): same bytes, no write.
            guard encoded != bytes else { return false }
            let version = pendingVersion(kept, before: current?.contents ?? [:], after: contents)
            change.willCommit()
            try fileSystem.replace(target, newFileMode: 0o600, streaming: { write in try encoded.withUnsafeBytes(write) },
                                   alongside: version?.log) { rename in try committing(rename, change, version) }
            return true
        }
    }

    /// Patches the file in place of a full rewrite; nil when it cannot be patched (missing, empty,
    /// another format, or a structure the patch declines).
    func patch(_ target: String, scope: KeySet, _ location: SuiteLocation, _ change: StoredChange,
               versions kept: SuiteHistory? = nil) throws -> Bool? {
        do {
            return try fileSystem.withContents(of: target) { bytes -> Bool? in
                guard !bytes.isEmpty else { return nil }
                let format = PlistFormat.detect(bytes)
                var before = PrefDictionary(), after = PrefDictionary()
                let outcome = try TopLevelPatch.applyInPieces(to: bytes, keys: scope) { contents in
                    before = contents
                    try change.apply(&contents, format)
                    if let format { try checkDates(contents, format: format, location) }
                    after = contents
                }
                switch outcome {
                case .unchanged:
                    return false
                case .patched(let document):
                    guard !document.isOriginal else { return false }
                    let version = pendingVersion(kept, before: before, after: after)
                    change.willCommit()
                    try fileSystem.replace(target, newFileMode: 0o600, streaming: { write in
                        try document.withPieces { pieces in for piece in pieces { try write(piece) } }
                    }, alongside: version?.log) { rename in try committing(rename, change, version) }
                    return true
                case .unsupported:
                    return nil
                }
            }
        } catch PrefsError.fileNotFound {
            return nil
        } catch let error as PrefsError {
            throw error.attributed(to: target)
        }
    }

    /// Renames the new file over the suite's (and adds the change's version to the history), then runs
    /// `didCommit` while the suite is still locked: the lock taken on the old file no longer keeps
    /// anyone out once the new one is in its place, but the new file is locked too until `replace`
    /// returns (its writer's lock on the temporary file). A version recorded is told first
    /// (`StoredChange.recorded`).
    func committing(_ rename: () throws -> Bool, _ change: StoredChange, _ version: PendingVersion?) throws {
        if try rename(), let version { change.recorded(version.pruned) }
        change.didCommit()
    }

    package func checkStorable(_ contents: PrefDictionary, format: PlistFormat?) throws {
        guard let format else { return }
        try checkDates(contents, format: format, nil)
        _ = try FileSuiteStorage.encode(contents, as: format)
    }

    /// Refuses (65) a date the file's format would not give back as given: in an XML file, one
    /// with a fraction of a second (XML dates are whole seconds). The XML reader takes whole
    /// seconds only, so such a date is always one the change brings. `location` names the suite
    /// in the message (nil: the caller names it).
    func checkDates(_ contents: PrefDictionary, format: PlistFormat, _ location: SuiteLocation?) throws {
        guard format == .xml, let (path, date) = format.firstDateLosingPrecision(in: .dictionary(contents)) else { return }
        let key = path.count == 1 ? path[0] : path.map { ":" + PrefKeyPath.escape($0) }.joined()
        throw PrefsError.invalidValue(domain: location.map(FileSuiteStorage.suiteName), key: key, flag: nil, given: date.iso8601(),
            reason: "an XML suite keeps dates in whole seconds, and this date has a fraction of a second: give a whole second, or keep the suite in a binary file; nothing changed")
    }

    /// How a message names a location: a suite by its name, a file by its path.
    static func suiteName(_ location: SuiteLocation) -> String {
        switch location {
        case .suite(let name), .registered(let name), .schema(let name), .managed(let name): return name
        case .global: return "NSGlobalDomain"
        case .file(let path): return path
        case .byHost(let suite, let host): return (suite ?? "NSGlobalDomain") + " (host " + host + ")"
        }
    }

    /// Deletes a suite's file (the target of a symlink; the link stays), under its lock and only
    /// after checking that it is a suite: a file that cannot be parsed, or whose root is not a
    /// dictionary, is refused and kept.
    package func remove(_ location: SuiteLocation) throws -> PrefDictionary? {
        let target = try fileSystem.resolvingSymlinks(try path(of: location))
        try checkNotSpecial(target)
        guard try fileSystem.status(of: target) != nil else { return nil }
        return try locked(target) {
            guard let suite = try load(path: target) else { return nil }
            let kept = try versionsBeforeChange(location)
            try removeRecordingVersion(target, kept, before: suite.contents, after: [:])
            return suite.contents
        }
    }

    package func withChangesHeld<T>(_ location: SuiteLocation, creating: Bool, _ body: () throws -> T) throws -> T {
        let target = try fileSystem.resolvingSymlinks(try path(of: location))
        try checkNotSpecial(target)
        let directory = splitPath(target).directory
        if try fileSystem.status(of: directory) == nil {
            guard creating else { return try body() }
            try fileSystem.createDirectory(directory, mode: 0o700)
        }
        return try locked(target, body)
    }

    /// Runs `body` holding the lock of the file `target` (see `FileSystem.withLock(ofFile:)`).
    /// With a `fence`, its check runs first, under the lock.
    func locked<T>(_ target: String, _ body: () throws -> T) throws -> T {
        try fileSystem.withLock(ofFile: target, timeout: try environment.lockTimeout()) {
            try fence?.check()
            return try body()
        }
    }

    /// Encodes suite contents in a file's format, refusing values the format would silently change
    /// (`PlistFormat.holding`): an OpenStep file holds only strings, data, arrays and dictionaries,
    /// and a plain JSON file has no dates, data or UIDs (they would come back as strings).
    static func encode(_ contents: PrefDictionary, as format: PlistFormat) throws -> [UInt8] {
        if let (key, value) = format.firstValue(in: .dictionary(contents), where: { $0 != .kept }) {
            throw PrefsError.unrepresentable(format: format, keyPath: key,
                reason: "this \(format.displayName) file cannot hold a value of type \(value.typeName); convert the file first (prefs export FILE FILE --format xml)")
        }
        return try PropertyList.encode(.dictionary(contents), as: format)
    }
}
