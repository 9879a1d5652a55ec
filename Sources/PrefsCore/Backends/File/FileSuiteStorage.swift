import Glibc

/// Suites as property-list files: a suite `S` is `$XDG_CONFIG_HOME/S.plist` (where Foundation's
/// UserDefaults keeps it on Linux), the global suite `.GlobalPreferences.plist`, a ByHost suite
/// `ByHost/S.HOSTID.plist` (`FileSuiteStorage+ByHost.swift`), the user's
/// registered defaults `$XDG_DATA_HOME/prefs/defaults/S.plist` (or `.json`), a file domain its path.
///
/// Every change is one locked read-modify-write: lock the file (`FileSystem.withLock(ofFile:)`) →
/// read it → apply the change → if nothing changed, stop (the file stays untouched) → encode in the
/// file's own format → atomic replace (temporary file in the same directory, fsync, rename, fsync of
/// the directory) → unlock. A file that cannot be parsed is never overwritten or deleted: the change
/// fails with a data error and the file stays as it was. Reading takes no lock and creates nothing.
package struct FileSuiteStorage: SuiteBackend {
    package let fileSystem: any FileSystem
    package let environment: Environment
    /// The lock every change must still hold when it commits (`--fence`), checked under the suite's lock.
    package var fence: LockFence?
    /// What each change of a suite records in its history (`FileSuiteStorage+History.swift`); nil: nothing.
    package var versioning: VersionStamp?
    /// The format a new suite file is written in (a `.json` path is JSON whatever this is): XML
    /// for the command, as `defaults` writes; binary for the Swift API (`Prefs.Suite`), as
    /// `UserDefaults` writes on macOS, so that a `Date` reads back to the fraction of a second.
    package var newPlistFormat: PlistFormat = .xml

    package init(fileSystem: any FileSystem, environment: Environment) {
        self.fileSystem = fileSystem
        self.environment = environment
    }

    /// The file that holds a location.
    package func path(of location: SuiteLocation) throws -> String {
        switch location {
        case .suite(let name): return try environment.configHome() + "/" + name + ".plist"
        case .global: return try environment.configHome() + "/.GlobalPreferences.plist"
        case .file(let path): return path
        case .byHost(let suite, let host): return try FileSuiteStorage.byHostPath(suite: suite, host: host, in: environment)
        case .managed: throw PrefsError.internalError("managed values in files are found under $XDG_CONFIG_DIRS, not as a suite of the store")
        case .registered(let name), .schema(let name):
            let base = try environment.dataHome() + (location == .schema(name) ? "/prefs/schemas/" : "/prefs/defaults/") + name
            let useJSON = try fileSystem.status(of: base + ".plist") == nil && fileSystem.status(of: base + ".json") != nil
            return base + (useJSON ? ".json" : ".plist")
        }
    }

    package func describe(_ location: SuiteLocation) -> String { (try? path(of: location)) ?? "\(location)" }

    /// Every location is a file.
    package func filePath(of location: SuiteLocation) throws -> String? { try path(of: location) }

    package func newDocumentFormat(for location: SuiteLocation) -> PlistFormat? { newSuiteFileFormat(describe(location)) }

    package func creatingSuites(as format: PlistFormat) -> any SuiteBackend {
        var creating = self
        creating.newPlistFormat = format
        return creating
    }

    /// The format a new file at `path` is written in: JSON for a `.json` path, else `newPlistFormat`.
    func newSuiteFileFormat(_ path: String) -> PlistFormat { path.hasSuffix(".json") ? .json : newPlistFormat }

    package func load(_ location: SuiteLocation) throws -> StoredSuite? {
        let file = try path(of: location)
        guard location.isFile else {
            try checkNotSpecial(file)
            return try load(path: file)
        }
        // A file named on the command line may be a pipe or a device, whose end is not known
        // before it comes: it is read as a document is, at most `DocumentInput.maximumSize`.
        guard try fileSystem.status(of: file)?.isSpecial == true else { return try load(path: file) }
        do {
            return try FileSuiteStorage.decode(try DocumentInput(fileSystem: fileSystem).fileBytes(file), path: file)
        } catch PrefsError.fileNotFound {
            return nil
        }
    }

    /// A file the store reads by itself (a suite's, the global suite's, a registration, a
    /// package's registered defaults) that is a FIFO, a socket or a device is refused (65): opening
    /// a FIFO would block every read. Files named on the command line may be pipes (`<(…)`).
    package func checkNotSpecial(_ file: String) throws {
        guard let status = try fileSystem.status(of: file), status.isSpecial else { return }
        throw PrefsError.malformed(source: file, format: nil, reason: "not a regular file (a FIFO, socket or device is never read as a suite)")
    }

    func load(path: String) throws -> StoredSuite? {
        do {
            return try FileSuiteStorage.decode(try fileSystem.contents(of: path), path: path)
        } catch PrefsError.fileNotFound {
            return nil
        }
    }

    /// A binary or XML suite is read the fast way: its structure and the value asked for are
    /// checked, other values are not read. A large one is read through a small buffer
    /// (`PropertyList.lookup(_:reading:)`), so memory does not grow with the file; when that cannot
    /// decide (a damaged file, another format), the file is read whole for the answer or the exact
    /// error (`PropertyList.lookup(_:in:)`).
    package func lookup(_ key: String, in location: SuiteLocation) throws -> (exists: Bool, value: PrefValue?) {
        let file = try path(of: location)
        if !location.isFile { try checkNotSpecial(file) }
        func whole(_ bytes: UnsafeBufferPointer<UInt8>) throws -> (exists: Bool, value: PrefValue?) {
            (true, bytes.isEmpty ? nil : try PropertyList.lookup(key, in: bytes).value)
        }
        do {
            return try fileSystem.withFileReader(of: file) { reader in
                if reader.size <= FileSuiteStorage.smallFile {
                    guard let bytes = try reader.bytes(at: 0, count: reader.size) else { return try fileSystem.withContents(of: file, whole) }
                    return try bytes.withUnsafeBufferPointer(whole)
                }
                if case .found(let value) = try PropertyList.lookup(key, reading: reader) { return (true, value) }
                return try fileSystem.withContents(of: file, whole)
            }
        } catch PrefsError.fileNotFound {
            return (false, nil)
        } catch let error as PrefsError {
            throw error.attributed(to: file)
        }
    }

    /// Several top-level values of one file, read the fast way with the file read once (a key and the
    /// deadlines of expiring values, `ExpiringStorage`).
    package func lookup(_ keys: [String], in location: SuiteLocation) throws -> [(exists: Bool, value: PrefValue?)] {
        let file = try path(of: location)
        if !location.isFile { try checkNotSpecial(file) }
        func whole(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [(exists: Bool, value: PrefValue?)] {
            try keys.map { (true, bytes.isEmpty ? nil : try PropertyList.lookup($0, in: bytes).value) }
        }
        do {
            return try fileSystem.withFileReader(of: file) { reader in
                if reader.size <= FileSuiteStorage.smallFile {
                    guard let bytes = try reader.bytes(at: 0, count: reader.size) else { return try fileSystem.withContents(of: file, whole) }
                    return try bytes.withUnsafeBufferPointer(whole)
                }
                var found: [(exists: Bool, value: PrefValue?)] = []
                for key in keys {
                    guard case .found(let value) = try PropertyList.lookup(key, reading: reader) else { return try fileSystem.withContents(of: file, whole) }
                    found.append((true, value))
                }
                return found
            }
        } catch PrefsError.fileNotFound {
            return keys.map { _ in (false, nil) }
        } catch let error as PrefsError {
            throw error.attributed(to: file)
        }
    }

    package func lookup(_ keys: [String], in locations: [SuiteLocation], loading whole: [SuiteLocation]) throws
        -> (found: [[(exists: Bool, value: PrefValue?)]], loaded: [StoredSuite?]) {
        (try locations.map { try lookup(keys, in: $0) }, try whole.map { try load($0) })
    }

    /// Files up to this size are read whole, in one piece, for a one-key read.
    static let smallFile = 1 << 16

    /// Decodes a suite file: its root must be a dictionary. A zero-length file is an empty suite
    /// (there is nothing in it to lose).
    static func decode(_ bytes: [UInt8], path: String) throws -> StoredSuite {
        if bytes.isEmpty { return StoredSuite(contents: PrefDictionary(), format: newFileFormat(path)) }
        let value: PrefValue, format: PlistFormat
        do {
            (value, format) = try PropertyList.decode(bytes)
        } catch let error as PrefsError {
            throw error.attributed(to: path)
        }
        guard case .dictionary(let contents) = value else {
            throw PrefsError.malformed(source: path, format: format, reason: "the root is \(value.typeNameWithArticle), not a dictionary")
        }
        return StoredSuite(contents: contents, format: format)
    }

    /// New files are XML, except a path domain ending in `.json`.
    static func newFileFormat(_ path: String) -> PlistFormat { path.hasSuffix(".json") ? .json : .xml }

    /// The suites in the configuration directory, in code-point order, and the entries skipped on
    /// the way: a name that is not UTF-8 (no command line could name it), a symlink loop, a link
    /// that cannot be followed, a FIFO. One bad entry never hides the other suites.
    package func suiteNames() throws -> SuiteListing {
        try suiteFiles(in: try environment.configHome(), suffix: ".plist")
    }

    /// The names of the suite files in `directory` (each name less `suffix`), in code-point order,
    /// and the entries skipped on the way. Names starting with `.` are not suites.
    func suiteFiles(in directory: String, suffix: String) throws -> SuiteListing {
        let entries: [ConfinedEntry]
        do {
            entries = try fileSystem.confinedEntries(ConfinedPath(base: directory, []))
        } catch {
            if case .system(_, let code) = error { throw PrefsError.cannotRead(path: directory, errno: code) }
            throw PrefsError.cannotRead(path: directory, errno: ENOTDIR)
        }
        var listing = SuiteListing()
        for entry in entries where entry.name.hasSuffix(suffix) && entry.name.utf8.count > suffix.utf8.count && !entry.name.hasPrefix(".") {
            let path = directory + "/" + entry.name
            guard entry.nameIsUTF8 else {
                listing.skipped.append(SkippedEntry(path: path, reason: "the name is not UTF-8"))
                continue
            }
            switch entry.kind {
            case .file: break
            case .directory: continue
            case .other:
                listing.skipped.append(SkippedEntry(path: path, reason: "not a regular file"))
                continue
            case .symlink:
                do {
                    guard try fileSystem.status(of: path)?.isDirectory == false else { continue }
                } catch PrefsError.cannotRead(_, let code) {
                    listing.skipped.append(SkippedEntry(path: path, reason: PrefsError.describe(errno: code)))
                    continue
                }
            }
            listing.names.append(String(entry.name.dropLast(suffix.utf8.count)))
        }
        return listing
    }

    /// `prefs/defaults/NAME.plist`, then `NAME.json`, under `$XDG_DATA_HOME` (the user's: the one
    /// `prefs register` changes is `.registered(NAME)`); none without a data home (no
    /// `$XDG_DATA_HOME` and no `$HOME`). The packages' files follow (`SuiteStore.registeredLayers`).
    package func registrationLocations(for name: String) throws -> [SuiteLocation] {
        guard let home = try environment.optionalDataHome() else { return [] }
        let user = try path(of: .registered(name))
        var locations: [SuiteLocation] = [.registered(name)]
        for suffix in [".plist", ".json"] {
            let file = home + "/prefs/defaults/" + name + suffix
            if user.utf8Compare(file) != 0 { locations.append(.file(file)) }
        }
        return locations
    }

    /// `prefs/schemas/NAME.plist` (or `.json`) under `$XDG_DATA_HOME` (the user's, `.schema(NAME)`),
    /// then `NAME.plist` and `NAME.json` under each `$XDG_DATA_DIRS` directory (shipped by packages).
    package func schemaLocations(for name: String) throws -> [SuiteLocation] {
        let user: [SuiteLocation] = try environment.optionalDataHome() == nil ? [] : [.schema(name)]
        return user + (try environment.shippedFiles("schemas", name: name).map { .file($0) })
    }

    /// A suite's own name (or `NSGlobalDomain`) — also for a suite's file named by its path; nil
    /// for other files and registered defaults, whose values stay inline.
    package func blobSuite(for location: SuiteLocation) -> String? {
        switch location {
        case .suite(let name): return name
        case .global: return Domain.global.registrationName
        case .registered, .byHost, .schema, .managed: return nil
        case .file(let path):
            guard let home = try? environment.configHome(), let target = try? fileSystem.resolvingSymlinks(path) else { return nil }
            let (directory, name) = splitPath(target)
            guard name.hasSuffix(".plist"), let here = realPath(directory), let config = realPath(home), here == config else { return nil }
            if name == ".GlobalPreferences.plist" { return Domain.global.registrationName }
            let suite = String(name.dropLast(6))
            guard (try? Domain.checkSuiteName(suite)) != nil else { return nil }
            return suite
        }
    }

    private func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Under `$XDG_DATA_HOME/prefs/external`, when there is a data home.
    package func blobStore() throws -> (any BlobStore)? {
        guard let home = try environment.optionalDataHome() else { return nil }
        return FileBlobStore(fileSystem: fileSystem, base: home + "/prefs")
    }
}
