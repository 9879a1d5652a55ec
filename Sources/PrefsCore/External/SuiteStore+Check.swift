import Glibc

/// `prefs check` and `prefs gc`: every reference against its blob, and blobs no reference names.
/// Neither follows a symlink in external storage: one found there is a problem to report (65), and
/// nothing behind it is read or removed.
extension SuiteStore {
    /// What `check` or `gc` found in one suite.
    public struct ExternalReport: Sendable {
        public var references = 0
        /// One line each, naming the suite and the key or blob.
        public var problems: [String] = []
        /// What `gc` removed (or would, in a dry run): `KEYDIR/NAME` and size.
        public var removed: [(name: String, size: Int)] = []
    }

    /// The suites `check` and `gc` look at when none is named: every suite file (`suites`, from
    /// `suiteNames`), the global suite, and every suite with an external directory (even one whose
    /// file is gone).
    public func externalSuites(among suites: [String]) throws -> [Domain] {
        var names = Set(suites)
        // A symlinked or unreadable external directory is reported by each suite's own check.
        if let storage = try externalStorage(), let directories = try? storage.suiteDirectories() { names.formUnion(directories) }
        names.remove("NSGlobalDomain")
        var domains = names.sorted { $0.utf8Compare($1) < 0 }.compactMap { try? Domain(argument: $0) }.filter {
            if case .suite = $0 { return true } else { return false }
        }
        domains.append(.global)
        return domains
    }

    func externalName(of domain: Domain) throws -> (suite: String, storage: ExternalStorage) {
        guard let suite = domain.registrationName else { throw PrefsError.usage("\(domain.displayName): a file keeps its values inline; name a suite") }
        guard let storage = try externalStorage() else { throw PrefsError.usage("external storage needs XDG_DATA_HOME or HOME") }
        return (suite, storage)
    }

    /// Checks every reference of a suite — the blob is there, a regular file of the recorded size and
    /// SHA-256 (read in full) — and lists the blobs no reference names (orphans, including unfinished
    /// ones a killed writer left) and any symlink in the suite's external directory.
    public func checkExternal(_ domain: Domain) throws -> ExternalReport {
        let (suite, storage) = try externalName(of: domain)
        var report = ExternalReport()
        var referenced = Set<String>()
        for entry in try load(domain)?.contents ?? PrefDictionary() {
            let reference: ExternalReference
            do {
                guard let found = try ExternalReference.parse(entry.value) else {
                    if ExternalReference.containsMarker(entry.value) {
                        report.problems.append("\(suite): \(entry.key): a reference inside a value (only top-level values can be external)")
                    }
                    continue
                }
                reference = found
            } catch {
                report.problems.append("\(suite): \(entry.key): malformed reference: \(error.reason)")
                continue
            }
            report.references += 1
            referenced.insert(reference.directory + "/" + reference.uuid)
            do {
                try BlobReader(storage: storage, reference: reference, suite: suite).forEachChunk { _ in }
            } catch {
                report.problems.append("\(suite): \(entry.key): \((error as? ExternalReference.Problem)?.reason ?? "\(error)")")
            }
        }
        let inventory = self.inventory(of: suite, storage: storage)
        report.problems += inventory.problems
        for blob in inventory.blobs where !referenced.contains(blob.directory + "/" + blob.entry.name) {
            let what = blob.entry.name.hasPrefix(ExternalStorage.temporaryPrefix) ? "unfinished blob" : "orphan blob"
            report.problems.append("\(suite): \(what) \(blob.directory)/\(blob.entry.name) (\(blob.entry.size) bytes)")
        }
        return report
    }

    /// The files in a suite's key directories, and a problem line for each symlink (or other thing
    /// that is not a directory or a regular file) found on the way.
    func inventory(of suite: String, storage: ExternalStorage) -> (blobs: [(directory: String, entry: ConfinedEntry)], problems: [String]) {
        var blobs: [(directory: String, entry: ConfinedEntry)] = []
        var problems: [String] = []
        let base = storage.directory(of: suite)
        func entries(_ path: ConfinedPath) -> [ConfinedEntry] {
            do { return try fileSystem.confinedEntries(path) } catch {
                problems.append("\(suite): \(error.reason)")
                return []
            }
        }
        for keyDirectory in entries(base) {
            let path = base.appending(keyDirectory.name)
            guard keyDirectory.kind == .directory, keyDirectory.nameIsUTF8 else {
                if keyDirectory.kind != .file { problems.append("\(suite): \(path.display) is \(Self.describe(keyDirectory)); it is left alone") }
                continue
            }
            for entry in entries(path) {
                guard entry.kind == .file, entry.nameIsUTF8 else {
                    problems.append("\(suite): \(path.appending(entry.name).display) is \(Self.describe(entry)); it is left alone")
                    continue
                }
                blobs.append((keyDirectory.name, entry))
            }
        }
        return (blobs, problems)
    }

    static func describe(_ entry: ConfinedEntry) -> String {
        guard entry.nameIsUTF8 else { return "a name that is not UTF-8" }
        switch entry.kind {
        case .symlink: return "a symbolic link (nothing in external storage is followed)"
        case .directory: return "a directory where a blob belongs"
        case .file: return "a file where a key directory belongs"
        case .other: return "neither a directory nor a regular file"
        }
    }

    /// Removes a suite's blobs that no reference names and that are older than `grace` seconds,
    /// holding the suite's lock so no reference is committed meanwhile; a blob a writer still holds
    /// (written, not yet committed) is never taken, whatever the grace. Then empty key directories.
    public func collectGarbage(_ domain: Domain, grace: Double, dryRun: Bool) throws -> ExternalReport {
        let (suite, storage) = try externalName(of: domain)
        let target = try fileSystem.resolvingSymlinks(try path(of: domain))
        func collect() throws -> ExternalReport {
            var report = ExternalReport()
            var referenced = Set<String>()
            for entry in try self.load(path: target)?.contents ?? PrefDictionary() {
                // A malformed reference might still name a blob: keep everything its fields could name.
                if case .dictionary(let fields) = entry.value, fields[ExternalReference.marker] != nil,
                   case .string(let directory)? = fields["key"], case .string(let uuid)? = fields["uuid"] {
                    referenced.insert(directory + "/" + uuid)
                }
            }
            let inventory = self.inventory(of: suite, storage: storage)
            report.problems = inventory.problems
            let now = Int64(time(nil))
            for blob in inventory.blobs where !referenced.contains(blob.directory + "/" + blob.entry.name) {
                guard Double(now - blob.entry.modified) >= grace else { continue }
                let path = storage.directory(of: suite).appending(blob.directory).appending(blob.entry.name)
                if !dryRun {
                    do throws(ConfinedError) {
                        guard try self.fileSystem.removeIfUnused(path) == .removed else { continue }
                    } catch {
                        report.problems.append("\(suite): \(error.reason)")
                        continue
                    }
                    self.fileSystem.removeConfinedDirectoryIfEmpty(path.parent)
                }
                report.removed.append((blob.directory + "/" + blob.entry.name, blob.entry.size))
            }
            if !dryRun { self.fileSystem.removeConfinedDirectoryIfEmpty(storage.directory(of: suite)) }
            return report
        }
        guard !dryRun else { return try collect() }
        if try fileSystem.status(of: splitPath(target).directory) == nil {
            // A writer makes the suite's directory before it takes the lock: so does gc, when there
            // is something it might remove.
            guard (try? fileSystem.confinedEntries(storage.directory(of: suite)).isEmpty) == false else { return try collect() }
            try fileSystem.createDirectory(splitPath(target).directory, mode: 0o700)
        }
        return try locked(target, collect)
    }
}
