#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `prefs check` and `prefs gc`: every reference against its blob, and blobs no reference names.
extension SuiteStore {
    /// What `check` found in one suite.
    public struct ExternalReport: Sendable {
        public var references = 0
        /// One line each, naming the suite and the key or blob.
        public var problems: [String] = []
    }

    /// The suites `check` and `gc` look at when none is named: every suite file, the global suite, and
    /// every suite with an external directory (even one whose file is gone).
    public func externalSuites() throws -> [Domain] {
        var names = Set(try suiteNames())
        if let storage = externalStorage { names.formUnion(try storage.suiteDirectories()) }
        names.remove("NSGlobalDomain")
        var domains = names.sorted { $0.utf8Compare($1) < 0 }.compactMap { try? Domain(argument: $0) }.filter {
            if case .suite = $0 { return true } else { return false }
        }
        domains.append(.global)
        return domains
    }

    func externalName(of domain: Domain) throws -> (suite: String, storage: ExternalStorage) {
        guard let suite = domain.registrationName else { throw PrefsError.usage("\(domain.displayName): a file keeps its values inline; name a suite") }
        guard let storage = externalStorage else { throw PrefsError.usage("external storage needs XDG_DATA_HOME or HOME") }
        return (suite, storage)
    }

    /// Checks every reference of a suite — the blob is there, a regular file of the recorded size and
    /// SHA-256 (hashed in full) — and lists the blobs no reference names (orphans, including
    /// unfinished ones a killed writer left).
    public func checkExternal(_ domain: Domain) throws -> ExternalReport {
        let (suite, storage) = try externalName(of: domain)
        var report = ExternalReport()
        let contents = try load(domain)?.contents ?? PrefDictionary()
        var referenced = Set<String>()
        for entry in contents {
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
                _ = try storage.open(reference, suite: suite, thorough: true)
            } catch {
                report.problems.append("\(suite): \(entry.key): \(error.reason)")
            }
        }
        for entry in try storage.entries(of: suite) where !referenced.contains(entry.directory + "/" + entry.name) {
            let what = entry.isTemporary ? "unfinished blob" : "orphan blob"
            report.problems.append("\(suite): \(what) \(entry.directory)/\(entry.name) (\(entry.size) bytes)")
        }
        return report
    }

    /// Removes a suite's blobs that no reference names and that are older than `grace` seconds (a
    /// writer that is still running has a fresh blob it is about to commit), under the suite's lock so
    /// no reference is committed meanwhile; then empty key directories. Returns what it removed (or
    /// would, with `dryRun`), as `KEYDIR/NAME` and size.
    public func collectGarbage(_ domain: Domain, grace: Double, dryRun: Bool) throws -> [(name: String, size: Int)] {
        let (suite, storage) = try externalName(of: domain)
        let target = try fileSystem.resolvingSymlinks(try path(of: domain))
        let collect = { () throws -> [(name: String, size: Int)] in
            let contents = try self.load(path: target)?.contents ?? PrefDictionary()
            var referenced = Set<String>()
            for entry in contents {
                // A malformed reference might still name a blob: keep everything its fields could name.
                if case .dictionary(let fields) = entry.value, fields[ExternalReference.marker] != nil,
                   case .string(let directory)? = fields["key"], case .string(let uuid)? = fields["uuid"] {
                    referenced.insert(directory + "/" + uuid)
                }
            }
            let now = Int64(time(nil))
            var removed: [(name: String, size: Int)] = []
            for entry in try storage.entries(of: suite) where !referenced.contains(entry.directory + "/" + entry.name) {
                guard Double(now - entry.modified) >= grace else { continue }
                let path = storage.directory(of: suite) + "/" + entry.directory + "/" + entry.name
                if !dryRun {
                    guard unlink(path) == 0 || errno == ENOENT else { throw PrefsError.cannotWrite(path: path, errno: errno) }
                    rmdir(storage.directory(of: suite) + "/" + entry.directory)
                }
                removed.append((entry.directory + "/" + entry.name, entry.size))
            }
            if !dryRun { rmdir(storage.directory(of: suite)) }
            return removed
        }
        guard try fileSystem.status(of: splitPath(target).directory) != nil else { return try collect() }
        return try locked(target, collect)
    }
}
